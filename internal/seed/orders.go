package seed

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// ordDays is how far back the order history reaches.
const ordDays = 90

// ordPerDay is the mean number of orders a day at the start of the history;
// it grows gently towards the present.
const ordPerDay = 24.0

// ordVariant is a sellable variant of the seeded catalogue.
type ordVariant struct {
	id, productID       int64
	title, sku          string
	price               int64
	compareAt           *int64
	imageSrc, thumbhash string
}

// ordProduct is a product of the seeded catalogue with its variants.
type ordProduct struct {
	title                    string
	archived                 bool
	variants                 []ordVariant
	engrave, sock, baseLayer bool
}

// ordRegion is a city orders ship to.
type ordRegion struct {
	city, province, code, zip, area string
	tax                             float64 // sales tax (or VAT) when the country is domestic
	weight                          float64
}

// ordCountry is a country orders ship to.
type ordCountry struct {
	code, name, currency string
	phone                func(rng *rand.Rand, area string) string
	streets              []string
	regions              []ordRegion
}

func ordNANP(rng *rand.Rand, area string) string {
	return fmt.Sprintf("+1 %s 555 01%02d", area, rng.IntN(100))
}

var ordCountries = map[string]*ordCountry{
	"US": {code: "US", name: "United States", currency: "USD", phone: ordNANP,
		streets: []string{"SE Division St", "NE Alberta St", "SE Hawthorne Blvd", "Maple St", "Oak Ave", "Cedar Ln", "Pine St",
			"Washington Ave", "Park Blvd", "Lake Dr", "Hillcrest Rd", "Main St", "2nd Ave", "Mission St", "Broadway", "Highland Ave",
			"Ridge Rd", "River Rd", "Spruce St", "Aspen Way"},
		regions: []ordRegion{
			{"Portland", "Oregon", "OR", "97214", "503", 0, 9}, {"Bend", "Oregon", "OR", "97701", "541", 0, 2},
			{"Eugene", "Oregon", "OR", "97401", "541", 0, 2}, {"Seattle", "Washington", "WA", "98103", "206", 0.1035, 7},
			{"Spokane", "Washington", "WA", "99201", "509", 0.09, 2}, {"San Francisco", "California", "CA", "94110", "415", 0.08625, 5},
			{"Los Angeles", "California", "CA", "90026", "213", 0.095, 5}, {"San Diego", "California", "CA", "92104", "619", 0.0775, 3},
			{"Sacramento", "California", "CA", "95816", "916", 0.0875, 2}, {"Denver", "Colorado", "CO", "80205", "303", 0.0881, 4},
			{"Boulder", "Colorado", "CO", "80302", "303", 0.0886, 2}, {"Salt Lake City", "Utah", "UT", "84101", "801", 0.0775, 2},
			{"Boise", "Idaho", "ID", "83702", "208", 0.06, 2}, {"Bozeman", "Montana", "MT", "59715", "406", 0, 1},
			{"Austin", "Texas", "TX", "78704", "512", 0.0825, 3}, {"Chicago", "Illinois", "IL", "60614", "312", 0.1025, 3},
			{"Minneapolis", "Minnesota", "MN", "55408", "612", 0.08025, 2}, {"Brooklyn", "New York", "NY", "11211", "718", 0.08875, 4},
			{"Boston", "Massachusetts", "MA", "02130", "617", 0.0625, 3}, {"Burlington", "Vermont", "VT", "05401", "802", 0.07, 1},
			{"Asheville", "North Carolina", "NC", "28801", "828", 0.07, 1}, {"Atlanta", "Georgia", "GA", "30307", "404", 0.089, 2},
			{"Phoenix", "Arizona", "AZ", "85004", "602", 0.086, 2}, {"Anchorage", "Alaska", "AK", "99501", "907", 0, 1},
		}},
	"PR": {code: "PR", name: "Puerto Rico", currency: "USD", phone: ordNANP,
		streets: []string{"Calle Loíza", "Calle del Cristo", "Avenida Ashford", "Calle San Francisco"},
		regions: []ordRegion{{"San Juan", "Puerto Rico", "PR", "00907", "787", 0.115, 1}}},
	"CA": {code: "CA", name: "Canada", currency: "CAD", phone: ordNANP,
		streets: []string{"Granville St", "Queen St W", "17 Ave SW", "Rue Saint-Denis", "Commercial Dr", "Yonge St"},
		regions: []ordRegion{
			{"Vancouver", "British Columbia", "BC", "V6B 1A1", "604", 0.12, 3}, {"Toronto", "Ontario", "ON", "M5V 2T6", "416", 0.13, 3},
			{"Calgary", "Alberta", "AB", "T2P 1J9", "403", 0.05, 2}, {"Montréal", "Quebec", "QC", "H2X 1Y4", "514", 0.14975, 2},
		}},
	"GB": {code: "GB", name: "United Kingdom", currency: "GBP",
		phone:   func(rng *rand.Rand, _ string) string { return fmt.Sprintf("+44 7700 900%03d", rng.IntN(1000)) },
		streets: []string{"High Street", "Church Road", "Station Road", "Victoria Road", "Green Lane"},
		regions: []ordRegion{
			{"London", "England", "ENG", "N1 9GU", "", 0.2, 4}, {"Manchester", "England", "ENG", "M1 1AE", "", 0.2, 1},
			{"Edinburgh", "Scotland", "SCT", "EH1 1YZ", "", 0.2, 1},
		}},
	"IE": {code: "IE", name: "Ireland", currency: "EUR",
		phone:   func(rng *rand.Rand, _ string) string { return fmt.Sprintf("+353 85 000 %04d", rng.IntN(10000)) },
		streets: []string{"Grafton Street", "Dame Street", "Shop Street"},
		regions: []ordRegion{{"Dublin", "Dublin", "D", "D02 X285", "", 0.23, 2}, {"Galway", "Galway", "G", "H91 E2K3", "", 0.23, 1}}},
	"AU": {code: "AU", name: "Australia", currency: "AUD",
		phone:   func(rng *rand.Rand, _ string) string { return fmt.Sprintf("+61 491 570 %03d", rng.IntN(1000)) },
		streets: []string{"George St", "Chapel St", "Brunswick St", "Hay St"},
		regions: []ordRegion{{"Sydney", "New South Wales", "NSW", "2000", "", 0.1, 2}, {"Melbourne", "Victoria", "VIC", "3000", "", 0.1, 2}}},
	"DE": {code: "DE", name: "Germany", currency: "EUR",
		phone:   func(rng *rand.Rand, _ string) string { return fmt.Sprintf("+49 151 0000 %04d", rng.IntN(10000)) },
		streets: []string{"Bergmannstraße", "Kastanienallee", "Schillerstraße", "Hauptstraße"},
		regions: []ordRegion{{"Berlin", "Berlin", "BE", "10997", "", 0.19, 2}, {"München", "Bavaria", "BY", "80331", "", 0.19, 2}}},
	"FR": {code: "FR", name: "France", currency: "EUR",
		phone: func(rng *rand.Rand, _ string) string {
			return fmt.Sprintf("+33 6 39 98 %02d %02d", rng.IntN(100), rng.IntN(100))
		},
		streets: []string{"Rue Oberkampf", "Rue de la République", "Avenue Jean Jaurès"},
		regions: []ordRegion{{"Paris", "Île-de-France", "IDF", "75011", "", 0.2, 3}, {"Lyon", "Auvergne-Rhône-Alpes", "ARA", "69002", "", 0.2, 1}}},
	"NL": {code: "NL", name: "Netherlands", currency: "EUR",
		phone:   func(rng *rand.Rand, _ string) string { return fmt.Sprintf("+31 6 12345 %03d", rng.IntN(1000)) },
		streets: []string{"Prinsengracht", "Haarlemmerstraat", "Oudegracht"},
		regions: []ordRegion{{"Amsterdam", "North Holland", "NH", "1015 CJ", "", 0.21, 2}, {"Utrecht", "Utrecht", "UT", "3511 AB", "", 0.21, 1}}},
}

// ordMarkets are the countries a store sells to, by its currency.
var ordMarkets = map[string][]struct {
	code   string
	weight float64
}{
	"USD": {{"US", 90}, {"CA", 4}, {"PR", 2}, {"GB", 2}, {"AU", 2}},
	"CAD": {{"CA", 92}, {"US", 8}},
	"GBP": {{"GB", 94}, {"IE", 6}},
	"EUR": {{"DE", 35}, {"FR", 25}, {"NL", 20}, {"IE", 20}},
	"AUD": {{"AU", 100}},
}

var (
	ordFirstNames = append(slices.Clone(catFirstNames), "Liam", "Emma", "Noah", "Ava", "James", "Sophia", "William",
		"Isabella", "Henry", "Mia", "Jack", "Amelia", "Leo", "Harper", "Daniel", "Evelyn", "Michael", "Abigail", "Alexander",
		"Emily", "Sebastian", "Ella", "Wyatt", "Scarlett", "Samuel", "Luna", "Julian", "Camila", "Isaac", "Layla", "Anthony",
		"Riley", "Arjun", "Ananya", "Wei", "Hana", "Carlos", "Lucía", "Kwame", "Adaeze", "Sven", "Astrid", "Dmitri", "Katya",
		"Fatima", "Yusuf", "Aroha", "Tane", "Marcus", "Claire", "Theo", "Naomi", "Rafael", "Jade", "Eli", "Quinn")
	ordLastNames = append(slices.Clone(catLastNames), "Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis",
		"Rodriguez", "Martinez", "Hernandez", "Lopez", "Wilson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee",
		"Thompson", "White", "Harris", "Clark", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright", "Scott",
		"Nguyen", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter",
		"Roberts", "Chen", "Kim", "Patel", "Shah", "Olsen", "Larsen", "Byrne", "O'Brien", "Sato", "Mensah", "Ibrahim", "Rossi",
		"Dubois", "Müller", "Schneider", "Andersson", "Nowak")
	ordMailDomains = []string{"example.com", "example.net", "example.org", "mail.example", "inbox.example"}
	ordCompanies   = []string{"Basecamp Outfitters Co-op", "Ridge & River Supply", "Mountain Mercantile", "Trailhead Goods",
		"Cascade Climbing Gym", "Lakeside Paddle Shop", "High Desert Provisions", "Northfork Guides"}
	ordGiftNotes = []string{"Happy birthday, Dad! Love, Sam", "Merry Christmas! Stay warm out there.",
		"Congrats on finishing the PCT!", "For our next adventure together. x", "Happy anniversary ❤",
		"Thank you for everything this year.", "Welcome to the team!"}
	ordDeliveryNotes = []string{"Please leave at the back door.", "Gate code 4821.", "Deliver to the side entrance, not the front.",
		"Ring the bell twice, the dog is friendly.", "Leave with the concierge if nobody answers."}
	ordAdminNotes = []string{"Customer called: switch to size M before shipping.", "Fraud check passed (AVS and CVV match).",
		"Replacement zipper pull sent separately.", "Customer asked to combine with their next order.",
		"Address confirmed by phone.", "VIP: add a handwritten thank-you card."}
	ordReturnReasons = []string{"Didn't fit", "Size exchange", "Changed mind", "Defective: seam came apart", "Colour not as pictured",
		"Arrived too late"}
	ordCaptureErrors = map[string][]string{
		"stripe":   {"Your card has insufficient funds.", "Your card was declined.", "card_declined: do_not_honor"},
		"shop_pay": {"Your card was declined.", "Your card has insufficient funds."},
		"paypal":   {"INSTRUMENT_DECLINED: The instrument presented was declined by the processor or bank.", "PAYER_CANNOT_PAY"},
	}
	ordEngravings = []string{"Summit 2026", "For Dad", "Trail Mom", "Adventure awaits", "Est. 2019", "Happy Trails"}
)

// ordCustomer is a customer with the address it ships to.
type ordCustomer struct {
	c         models.Customer
	shipping  map[string]any
	billing   map[string]any
	country   *ordCountry
	region    ordRegion
	orders    int // planned
	placed    int // so far
	wholesale bool
	company   string
}

type ordPay struct {
	provider, method string
	auth             bool // authorize at checkout, capture on shipping
}

// ordOrder is an order under construction with everything that hangs off
// it. Ids are local (1, 2, ...) until insert swaps them for real ones.
type ordOrder struct {
	local       int64
	o           models.Order
	cust        *ordCustomer
	country     *ordCountry
	region      ordRegion
	pay         ordPay
	carrier     string
	lines       []models.OrderLineItem
	txs         []models.OrderTransaction
	refunds     []models.Refund
	refundItems []models.RefundLineItem
	fuls        []models.Fulfillment
	fulItems    []models.FulfillmentItem
	events      []models.OrderEvent
	restock     bool      // cancelled with restock
	allShipped  bool      // every line shipped
	lastShip    time.Time // last successful shipment
}

type ordGen struct {
	rng      *rand.Rand
	now      time.Time
	storeID  int64
	currency string
	loc      *time.Location
	products []ordProduct // most popular first
	socks    []int        // indexes into products
	bases    []int
	promo    [2]time.Time // a flash sale: FLASH20 is everywhere
	seen     map[string]int

	customers []*ordCustomer
	orders    []*ordOrder
	emails    map[string]bool

	lineN, txN, refundN, fulN int64
}

// orders seeds ninety days of order history on the seeded catalogue:
// customers, orders with lines, payments, refunds, shipments and each
// order's timeline.
func orders(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	n, err := models.CountOrders(ctx, tx, storeID, models.OrderFilter{})
	if err != nil || n > 0 {
		return err
	}
	s, err := models.GetStore(ctx, tx, storeID)
	if err != nil {
		return err
	}
	products, err := ordCatalogue(ctx, tx, storeID)
	if err != nil || len(products) == 0 {
		return err // nothing to sell, nothing to order
	}
	g := &ordGen{
		rng: rand.New(rand.NewPCG(uint64(storeID), 43)), now: now, storeID: storeID, currency: s.Currency,
		loc: time.UTC, seen: map[string]int{}, emails: map[string]bool{},
	}
	if g.currency == "" {
		g.currency = "USD"
	}
	if loc, err := time.LoadLocation(s.Timezone); err == nil && s.Timezone != "" {
		g.loc = loc
	}
	g.setProducts(products)
	g.generate()
	return g.insert(ctx, tx)
}

// ordCatalogue reads the store's sellable variants (not of draft products)
// with their titles and pictures.
func ordCatalogue(ctx context.Context, tx bun.Tx, storeID int64) ([]ordProduct, error) {
	var rows []struct {
		ID           int64  `bun:"id"`
		ProductID    int64  `bun:"product_id"`
		Title        string `bun:"title"`
		VariantTitle string `bun:"variant_title"`
		SKU          string `bun:"sku"`
		PriceCents   int64  `bun:"price_cents"`
		CompareAt    *int64 `bun:"compare_at_price_cents"`
		ProductType  string `bun:"product_type"`
		Status       string `bun:"status"`
		ImageSrc     string `bun:"image_src"`
		Thumbhash    string `bun:"image_thumbhash"`
	}
	err := tx.NewRaw(`SELECT v.id, v.product_id, p.title, v.title AS variant_title, v.sku, v.price_cents,
			v.compare_at_price_cents, p.product_type, p.status,
			coalesce(vi.src, pi.src, '') AS image_src, coalesce(vi.thumbhash, pi.thumbhash, '') AS image_thumbhash
		FROM product_variants v
		JOIN products p ON p.id = v.product_id
		LEFT JOIN product_images vi ON vi.id = v.image_id
		LEFT JOIN LATERAL (SELECT src, thumbhash FROM product_images
			WHERE product_id = p.id ORDER BY position, id LIMIT 1) pi ON true
		WHERE v.store_id = ? AND p.status <> ?
		ORDER BY p.id, v.position, v.id`, storeID, models.ProductDraft).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	var out []ordProduct
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].variants[0].productID != r.ProductID {
			t := r.Title
			out = append(out, ordProduct{
				title: t, archived: r.Status == models.ProductArchived,
				engrave: strings.Contains(t, "Water Bottle") || strings.Contains(t, "Camp Mug") ||
					strings.Contains(t, "Trekking Poles") || strings.Contains(t, "Duffel"),
				sock:      strings.Contains(t, "Hiking Sock"),
				baseLayer: r.ProductType == "Base Layers",
			})
		}
		vt := r.VariantTitle
		if vt == "Default Title" {
			vt = ""
		}
		p := &out[len(out)-1]
		p.variants = append(p.variants, ordVariant{
			id: r.ID, productID: r.ProductID, title: vt, sku: r.SKU, price: r.PriceCents, compareAt: r.CompareAt,
			imageSrc: r.ImageSrc, thumbhash: r.Thumbhash,
		})
	}
	return out, nil
}

// setProducts orders the products by a made-up popularity.
func (g *ordGen) setProducts(products []ordProduct) {
	g.rng.Shuffle(len(products), func(i, j int) { products[i], products[j] = products[j], products[i] })
	g.products = products
	for i, p := range products {
		if p.archived {
			continue
		}
		if p.sock {
			g.socks = append(g.socks, i)
		}
		if p.baseLayer {
			g.bases = append(g.bases, i)
		}
	}
	start := g.localDay(g.now.Add(-41 * 24 * time.Hour))
	g.promo = [2]time.Time{start, start.AddDate(0, 0, 3)}
}

// want reports whether an order gets a feature: always the first time one
// may (so every seeded store has each of them), then with probability p.
func (g *ordGen) want(feature string, p float64) bool {
	if g.seen[feature] == 0 || g.rng.Float64() < p {
		g.seen[feature]++
		return true
	}
	return false
}

func (g *ordGen) dur(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(g.rng.Int64N(int64(hi-lo)+1))
}

func (g *ordGen) weighted(weights ...float64) int {
	var sum float64
	for _, w := range weights {
		sum += w
	}
	r := g.rng.Float64() * sum
	for i, w := range weights {
		if r < w {
			return i
		}
		r -= w
	}
	return len(weights) - 1
}

func (g *ordGen) localDay(t time.Time) time.Time {
	l := t.In(g.loc)
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, g.loc)
}

const ordAlnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func (g *ordGen) chars(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.rng.IntN(len(alphabet))]
	}
	return string(b)
}

// ordHourWeights is when people shop, by local hour.
var ordHourWeights = []float64{0.6, 0.35, 0.2, 0.15, 0.15, 0.25, 0.5, 0.9, 1.2, 1.4, 1.5, 1.55,
	1.6, 1.5, 1.4, 1.4, 1.45, 1.6, 1.8, 2.0, 2.1, 1.9, 1.5, 1.0}

// ordWeekdayFactor scales a day's orders: Sunday evenings and Mondays sell
// best, Fridays worst.
var ordWeekdayFactor = map[time.Weekday]float64{
	time.Sunday: 1.25, time.Monday: 1.1, time.Tuesday: 0.95, time.Wednesday: 0.95, time.Thursday: 1.0,
	time.Friday: 0.85, time.Saturday: 1.1,
}

// slots are the times orders were placed, oldest first.
func (g *ordGen) slots() []time.Time {
	start := g.now.Add(-ordDays * 24 * time.Hour)
	first := g.localDay(start)
	var out []time.Time
	for day := first; day.Before(g.now); day = day.AddDate(0, 0, 1) {
		frac := float64(day.Sub(first)) / float64(ordDays*24*time.Hour)
		mean := ordPerDay * (0.85 + 0.35*frac) * ordWeekdayFactor[day.Weekday()] * (1 + 0.12*g.rng.NormFloat64())
		if !day.Before(g.promo[0]) && day.Before(g.promo[1]) {
			mean *= 1.8
		}
		for range int(math.Round(max(mean, 3))) {
			h := g.weighted(ordHourWeights...)
			at := time.Date(day.Year(), day.Month(), day.Day(), h, g.rng.IntN(60), g.rng.IntN(60), 0, g.loc)
			if at.After(start) && at.Before(g.now.Add(-time.Minute)) {
				out = append(out, at.UTC())
			}
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

// person makes up a shopper: name, unique email, phone and address.
func (g *ordGen) person() *ordCustomer {
	first := ordFirstNames[g.rng.IntN(len(ordFirstNames))]
	last := ordLastNames[g.rng.IntN(len(ordLastNames))]
	f, l := strings.ReplaceAll(models.Handleize(first), "-", ""), strings.ReplaceAll(models.Handleize(last), "-", "")
	var email string
	for {
		domain := ordMailDomains[g.rng.IntN(len(ordMailDomains))]
		switch g.rng.IntN(4) {
		case 0:
			email = f + "." + l
		case 1:
			email = f[:1] + l + fmt.Sprint(10+g.rng.IntN(90))
		case 2:
			email = f + "_" + l[:1]
		default:
			email = f + l + fmt.Sprint(1960+g.rng.IntN(45))
		}
		email += "@" + domain
		if !g.emails[email] {
			g.emails[email] = true
			break
		}
	}
	market := ordMarkets[g.currency]
	if market == nil {
		market = ordMarkets["USD"]
	}
	ws := make([]float64, len(market))
	for i, m := range market {
		ws[i] = m.weight
	}
	country := ordCountries[market[g.weighted(ws...)].code]
	rws := make([]float64, len(country.regions))
	for i, r := range country.regions {
		rws[i] = r.weight
	}
	region := country.regions[g.weighted(rws...)]
	c := &ordCustomer{country: country, region: region}
	c.c = models.Customer{StoreID: g.storeID, Email: email, FirstName: first, LastName: last, AcceptsMarketing: g.rng.Float64() < 0.45}
	if g.rng.Float64() < 0.7 {
		c.c.Phone = country.phone(g.rng, region.area)
	}
	c.shipping = g.address(c, first, last)
	c.billing = c.shipping
	if g.rng.Float64() < 0.12 {
		c.billing = g.address(c, first, last)
	}
	return c
}

func (g *ordGen) address(c *ordCustomer, first, last string) map[string]any {
	r := c.region
	a := map[string]any{
		"first_name": first, "last_name": last,
		"address1": fmt.Sprintf("%d %s", 100+g.rng.IntN(9800), c.country.streets[g.rng.IntN(len(c.country.streets))]),
		"city":     r.city, "province": r.province, "province_code": r.code, "zip": r.zip,
		"country": c.country.name, "country_code": c.country.code, "phone": c.c.Phone,
	}
	if c.country.code == "GB" || c.country.code == "DE" || c.country.code == "FR" || c.country.code == "NL" || c.country.code == "IE" {
		a["address1"] = fmt.Sprintf("%s %d", c.country.streets[g.rng.IntN(len(c.country.streets))], 1+g.rng.IntN(180))
	}
	if g.rng.Float64() < 0.15 {
		a["address2"] = []string{"Apt 4B", "Unit 12", "Suite 200", "Apt 310", "Floor 2"}[g.rng.IntN(5)]
	}
	if c.company != "" {
		a["company"] = c.company
	}
	return a
}

// orderCount draws how many orders a customer places: most once, a long
// tail more often.
func (g *ordGen) orderCount() int {
	switch g.weighted(52, 25, 14, 6, 3) {
	case 0:
		return 1
	case 1:
		return 2 + g.rng.IntN(2)
	case 2:
		return 4 + g.rng.IntN(3)
	case 3:
		return 7 + g.rng.IntN(3)
	}
	return 10 + g.rng.IntN(7)
}

func (g *ordGen) generate() {
	slots := g.slots()
	owners := make([]*ordCustomer, len(slots))
	var open []int
	for i := range slots {
		if g.rng.Float64() >= 0.05 { // a few guest checkouts
			open = append(open, i)
		}
	}
	var pool []*ordCustomer
	for len(pool) < len(open) {
		c := g.person()
		c.orders = min(g.orderCount(), len(open)-len(pool))
		if c.orders >= 4 && g.rng.Float64() < 0.05 {
			c.wholesale = true
			c.company = ordCompanies[len(g.customers)%len(ordCompanies)]
			c.c.AcceptsMarketing = true
			for _, a := range []map[string]any{c.shipping, c.billing} {
				a["company"], a["address2"] = c.company, "Receiving dock"
			}
		}
		g.customers = append(g.customers, c)
		for range c.orders {
			pool = append(pool, c)
		}
	}
	g.rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	for k, i := range open {
		owners[i] = pool[k]
	}
	for i, at := range slots {
		g.build(int64(i+1), at, owners[i])
	}
}

// build makes one order placed at created, by c (nil: a guest).
func (g *ordGen) build(local int64, created time.Time, c *ordCustomer) {
	oo := &ordOrder{local: local, cust: c}
	g.orders = append(g.orders, oo)
	buyer := c
	if buyer == nil {
		buyer = g.person()
	}
	oo.country, oo.region = buyer.country, buyer.region
	domestic := buyer.country.currency == g.currency
	o := &oo.o
	*o = models.Order{
		StoreID: g.storeID, Currency: g.currency, Status: models.OrderOpen, Email: buyer.c.Email,
		Source: "web", CreatedAt: created, Tags: []string{}, SystemTags: []string{},
	}
	switch {
	case c != nil && c.wholesale:
		o.Source = "draft_order"
	case domestic && buyer.country.code == "US" && g.rng.Float64() < 0.05:
		o.Source = "pos"
	case g.rng.Float64() < 0.025:
		o.Source = "draft_order"
	}
	pos := o.Source == "pos"
	if c == nil && pos && g.rng.Float64() < 0.5 {
		o.Email = "" // a walk-in who gave no email
	}
	if !pos {
		o.ShippingAddress, o.BillingAddress = buyer.shipping, buyer.billing
	} else if o.Email != "" {
		o.BillingAddress = buyer.billing
	}
	if o.Source == "web" {
		t := created.Add(-g.dur(90*time.Second, 25*time.Minute)).Truncate(time.Second)
		o.CheckoutStartedAt = &t
		o.Attribution = g.attribution(created)
	}
	if c != nil {
		if c.placed >= 4 {
			o.Tags = append(o.Tags, "vip")
		}
		if c.wholesale {
			o.Tags = append(o.Tags, "wholesale")
			o.Note = fmt.Sprintf("PO #%d. Net 30 on the balance.", 4000+g.rng.IntN(6000))
		}
	}
	if o.Source != "web" {
		o.SystemTags = append(o.SystemTags, o.Source)
	}

	g.lines(oo, buyer)

	// Money.
	var sub int64
	for _, l := range oo.lines {
		sub += l.PriceCents * l.Quantity
	}
	o.SubtotalCents = sub
	g.shipping(oo, domestic)
	g.discount(oo, c)
	if domestic && (c == nil || !c.wholesale) { // wholesale buys for resale, tax exempt
		oo.o.TaxCents = int64(math.Round(float64(sub-o.DiscountCents) * buyer.region.tax))
	}
	if o.Source == "web" && g.rng.Float64() < 0.04 {
		o.TipCents = sub * []int64{10, 15, 20}[g.rng.IntN(3)] / 100
	}
	o.TotalCents = sub - o.DiscountCents + o.ShippingCents + o.TaxCents + o.TipCents

	if o.Source == "web" && o.Note == "" {
		switch r := g.rng.Float64(); {
		case r < 0.05:
			o.Note = ordGiftNotes[g.rng.IntN(len(ordGiftNotes))]
			o.Tags = append(o.Tags, "gift")
			o.SystemTags = append(o.SystemTags, "gift")
		case r < 0.08:
			o.Note = ordDeliveryNotes[g.rng.IntN(len(ordDeliveryNotes))]
		}
	}
	for _, l := range oo.lines {
		if l.BundleGroup != nil {
			o.SystemTags = append(o.SystemTags, "bundle")
			break
		}
	}

	src := map[string]string{"web": "checkout", "draft_order": "admin", "pos": "api"}[o.Source]
	g.event(oo, "created", src, created, o.TotalCents, 0, map[string]any{"source": o.Source, "line_items": len(oo.lines)})
	oo.pay = g.payment(o.Source, c != nil && c.wholesale)
	g.settle(oo)

	o.FinancialStatus = models.FinancialStatus(o.TotalCents, oo.txs)
	current := models.FulfillmentUnfulfilled
	if oo.restock {
		current = models.FulfillmentRestocked
	}
	o.FulfillmentStatus = models.FulfillmentStatus(current, oo.lines)
	for _, t := range oo.txs {
		if t.Status == models.TxSuccess && (t.Kind == models.TxSale || t.Kind == models.TxCapture) {
			at := t.CreatedAt
			o.PaidAt = &at
			break
		}
	}

	// Old, shipped, paid orders get archived; the staff leave notes.
	last := g.lastEvent(oo)
	if o.Status == models.OrderOpen && o.FulfillmentStatus == models.FulfillmentFulfilled &&
		o.FinancialStatus == models.FinancialPaid && g.now.Sub(last) > 20*24*time.Hour && g.rng.Float64() < 0.5 {
		at := last.Add(g.dur(5*24*time.Hour, 20*24*time.Hour)).Truncate(time.Second)
		if at.Before(g.now) {
			o.Status, o.ArchivedAt = models.OrderArchived, &at
			g.event(oo, "archived", []string{"system", "admin"}[g.rng.IntN(2)], at, 0, 0, nil)
		}
	}
	if o.Note == "" && g.rng.Float64() < 0.03 {
		at := created.Add(g.dur(time.Hour, 3*24*time.Hour))
		if at.Before(g.now) {
			o.Note = ordAdminNotes[g.rng.IntN(len(ordAdminNotes))]
			g.event(oo, "note_updated", "admin", at, 0, 0, map[string]any{"note": o.Note})
		}
	}
	o.UpdatedAt = g.lastEvent(oo)

	if c != nil {
		c.placed++
		if c.placed == 1 {
			c.c.CreatedAt = created
			if o.CheckoutStartedAt != nil {
				c.c.CreatedAt = *o.CheckoutStartedAt
			}
		}
		c.c.UpdatedAt = created
	}
}

func (g *ordGen) lastEvent(oo *ordOrder) time.Time {
	last := oo.o.CreatedAt
	for _, e := range oo.events {
		if e.At.After(last) {
			last = e.At
		}
	}
	return last
}

// lines fills the order's lines from the catalogue: popular products more
// often, quantities mostly one.
func (g *ordGen) lines(oo *ordOrder, buyer *ordCustomer) {
	o := &oo.o
	recent := g.now.Sub(o.CreatedAt) < 30*24*time.Hour
	n := 1 + g.weighted(45, 28, 15, 8, 4)
	if o.Source == "draft_order" && buyer.wholesale {
		n = 3 + g.rng.IntN(3)
	}
	used := map[int64]bool{}
	add := func(p *ordProduct, v ordVariant, qty, price int64, original *int64, group, title *string) {
		g.lineN++
		l := models.OrderLineItem{
			ID: g.lineN, StoreID: g.storeID, OrderID: oo.local, Position: int64(len(oo.lines)),
			VariantID: &v.id, ProductID: &v.productID, Title: p.title, VariantTitle: v.title, SKU: v.sku,
			PriceCents: price, OriginalPriceCents: original, Quantity: qty, RequiresShipping: o.Source != "pos",
			ImageSrc: v.imageSrc, ImageThumbhash: v.thumbhash, BundleGroup: group, BundleTitle: title, Source: "checkout",
		}
		if original == nil && v.compareAt != nil && *v.compareAt > price {
			ca := *v.compareAt
			l.OriginalPriceCents = &ca
		}
		switch {
		case p.engrave && g.rng.Float64() < 0.35:
			text := ordEngravings[g.rng.IntN(len(ordEngravings))]
			if g.rng.Float64() < 0.5 {
				text = fmt.Sprintf("%c.%c.", buyer.c.FirstName[0], buyer.c.LastName[0])
			}
			l.Properties = map[string]any{"Engraving": text}
		case g.rng.Float64() < 0.015:
			l.Properties = map[string]any{"Gift wrap": "Yes"}
		}
		used[v.id] = true
		oo.lines = append(oo.lines, l)
	}
	pick := func(from []int) (*ordProduct, ordVariant, bool) {
		for range 20 {
			var p *ordProduct
			if from != nil {
				p = &g.products[from[g.rng.IntN(len(from))]]
			} else {
				// Squaring skews towards the front: a few products sell most.
				p = &g.products[int(float64(len(g.products))*math.Pow(g.rng.Float64(), 2.2))]
			}
			if p.archived && recent {
				continue
			}
			v := p.variants[g.rng.IntN(len(p.variants))]
			if !used[v.id] {
				return p, v, true
			}
		}
		return nil, ordVariant{}, false
	}

	// A bundle offer taken at checkout: its lines share a group and the
	// tier's discount.
	if o.Source == "web" && g.rng.Float64() < 0.06 {
		offers := []struct {
			title string
			from  []int
			tiers [][2]int64 // quantity, discount in basis points
		}{
			{"Buy more, save more", nil, [][2]int64{{2, 500}, {3, 1000}}},
			{"Sock drawer refresh", g.socks, [][2]int64{{3, 1000}, {5, 1500}}},
			{"Base layer multipack", g.bases, [][2]int64{{2, 500}, {3, 1000}}},
		}
		offer := offers[g.rng.IntN(len(offers))]
		if offer.from == nil || len(offer.from) > 0 {
			tier := offer.tiers[g.rng.IntN(len(offer.tiers))]
			group := "bndl_" + g.chars("0123456789abcdef", 10)
			title := offer.title
			for left := tier[0]; left > 0; {
				p, v, ok := pick(offer.from)
				if !ok {
					break
				}
				q := min(left, 1+g.rng.Int64N(2))
				left -= q
				orig := v.price
				add(p, v, q, v.price*(10000-tier[1])/10000, &orig, &group, &title)
			}
		}
	}
	for len(oo.lines) < n {
		p, v, ok := pick(nil)
		if !ok {
			break
		}
		qty := int64(1 + g.weighted(76, 17, 5, 1, 1))
		if o.Source == "draft_order" && buyer.wholesale {
			qty = 6 + g.rng.Int64N(19)
		} else if p.sock && g.rng.Float64() < 0.5 {
			qty = 2 + g.rng.Int64N(2)
		}
		add(p, v, qty, v.price, nil, nil, nil)
	}
	if len(oo.lines) == 0 { // every pick collided: take the first variant
		p := &g.products[0]
		add(p, p.variants[0], 1, p.variants[0].price, nil, nil, nil)
	}
}

// shipping picks the shipping method by country and basket.
func (g *ordGen) shipping(oo *ordOrder, domestic bool) {
	o := &oo.o
	if o.Source == "pos" {
		return
	}
	var title, code, carrier string
	var price int64
	switch {
	case !domestic:
		if g.rng.Float64() < 0.7 {
			title, code, price, carrier = "International Standard", "intl_standard", 1995, "DHL"
		} else {
			title, code, price, carrier = "International Express", "intl_express", 3495, []string{"DHL", "FedEx"}[g.rng.IntN(2)]
		}
	case oo.country.code == "PR":
		title, code, price, carrier = "Standard Shipping", "standard", 995, "USPS"
	default:
		switch g.weighted(84, 13, 3) {
		case 0:
			title, code, price, carrier = "Standard Shipping", "standard", 695, []string{"USPS", "UPS"}[g.rng.IntN(2)]
			if o.SubtotalCents >= 7500 {
				title, code, price = "Free Standard Shipping", "free_standard", 0
			}
		case 1:
			title, code, price, carrier = "2-Day Expedited", "expedited", 1495, []string{"UPS", "FedEx"}[g.rng.IntN(2)]
			o.Tags = append(o.Tags, "priority")
		default:
			title, code, price, carrier = "Overnight", "overnight", 2995, "FedEx"
			o.Tags = append(o.Tags, "priority")
		}
	}
	if o.Source == "draft_order" && oo.cust != nil && oo.cust.wholesale {
		title, code, price, carrier = "Freight (LTL)", "freight", 4500, "UPS"
	}
	oo.carrier = carrier
	o.ShippingCents = price
	o.ShippingLine = map[string]any{"title": title, "code": code, "price_cents": price, "carrier": carrier}
}

// discount applies a discount code to about one order in seven (most during
// the flash sale).
func (g *ordGen) discount(oo *ordOrder, c *ordCustomer) {
	o := &oo.o
	if o.Source == "pos" {
		return
	}
	inPromo := !o.CreatedAt.Before(g.promo[0]) && o.CreatedAt.Before(g.promo[1])
	switch {
	case inPromo && g.rng.Float64() < 0.45:
		o.DiscountCode, o.DiscountCents = "FLASH20", o.SubtotalCents*20/100
	case g.rng.Float64() < 0.15:
		switch g.weighted(35, 20, 15, 10, 10) {
		case 0:
			if c == nil || c.placed == 0 {
				o.DiscountCode, o.DiscountCents = "WELCOME10", o.SubtotalCents*10/100
			}
		case 1:
			o.DiscountCode, o.DiscountCents = "TRAIL15", o.SubtotalCents*15/100
		case 2:
			if o.SubtotalCents >= 15000 {
				o.DiscountCode, o.DiscountCents = "SAVE25", 2500
			}
		case 3:
			if o.ShippingCents > 0 {
				o.DiscountCode, o.DiscountCents = "FREESHIP", min(o.ShippingCents, o.SubtotalCents)
			}
		default:
			if c != nil && c.placed >= 2 {
				o.DiscountCode, o.DiscountCents = "VIP20", o.SubtotalCents*20/100
			}
		}
	}
}

// ordChannels are where web orders come from.
var ordChannels = []struct {
	weight                     float64
	source, medium             string
	campaigns, contents, terms []string
	referrer, clickKey, ad     string
	platform                   string
	formats                    []string
}{
	{24, "google", "cpc", []string{"brand-search", "nonbrand-base-layers", "pmax-outerwear", "shopping-all-products"},
		[]string{"rsa-merino-v2", "rsa-rain-shell", "shopping-feed"},
		[]string{"merino base layer", "waterproof rain jacket", "trail running shoes", "demo outfitters", "hiking pants women", "down jacket sale"},
		"https://www.google.com/", "gclid", "google_ads", "Google Ads", nil},
	{10, "google", "organic", nil, nil, nil, "https://www.google.com/", "", "", "", nil},
	{14, "facebook", "paid_social", []string{"fall-layering-prospecting", "retargeting-30d", "advantage-plus-catalog"},
		[]string{"carousel-merino", "video-rain-shell-15s", "ugc-trail-runner"}, nil,
		"https://m.facebook.com/", "fbclid", "meta", "Meta Ads", []string{"carousel", "video", "image"}},
	{7, "instagram", "paid_social", []string{"reels-trail-day", "stories-new-arrivals"}, []string{"reel-15s", "story-swipe"}, nil,
		"https://l.instagram.com/", "fbclid", "meta", "Meta Ads", []string{"video", "image"}},
	{4, "instagram", "social", []string{"bio-link"}, nil, nil, "https://l.instagram.com/", "", "", "", nil},
	{5, "tiktok", "paid_social", []string{"spark-ads-trail-day", "creator-whitelisting"}, []string{"creator-maya", "unboxing-hoodie"}, nil,
		"https://www.tiktok.com/", "ttclid", "tiktok_ads", "TikTok Ads", []string{"video"}},
	{13, "newsletter", "email", nil, []string{"hero-cta", "product-grid", "footer-link"}, nil, "", "", "", "Klaviyo", nil},
	{18, "direct", "none", nil, nil, nil, "", "", "", "", nil},
	{5, "reddit", "referral", nil, nil, nil, "https://www.reddit.com/r/CampingGear/", "", "", "", nil},
}

// attribution is what the storefront recorded of where the shopper came
// from; nil for a few orders (tracking refused).
func (g *ordGen) attribution(at time.Time) *models.OrderAttribution {
	if g.rng.Float64() < 0.1 {
		return nil
	}
	ws := make([]float64, len(ordChannels))
	for i, c := range ordChannels {
		ws[i] = c.weight
	}
	ch := ordChannels[g.weighted(ws...)]
	pickOr := func(list []string) string {
		if len(list) == 0 {
			return ""
		}
		return list[g.rng.IntN(len(list))]
	}
	a := &models.OrderAttribution{
		UTMSource: ch.source, UTMMedium: ch.medium, UTMCampaign: pickOr(ch.campaigns),
		UTMContent: pickOr(ch.contents), UTMTerm: pickOr(ch.terms),
	}
	if ch.source == "newsletter" {
		week := g.localDay(at)
		week = week.AddDate(0, 0, -int(week.Weekday()-time.Thursday+7)%7) // the Thursday send
		a.UTMCampaign = "weekly-" + week.Format("2006-01-02")
	}
	if ch.referrer != "" {
		a.Referrer = ptr(ch.referrer)
	}
	switch ch.clickKey {
	case "gclid":
		a.ClickIDs = map[string]any{"gclid": "Cj0KCQiA" + g.chars(ordAlnum, 40)}
	case "fbclid":
		a.ClickIDs = map[string]any{"fbclid": "IwAR" + g.chars(ordAlnum, 52)}
	case "ttclid":
		a.ClickIDs = map[string]any{"ttclid": "E.C.P." + g.chars(ordAlnum, 36)}
	}
	if ch.ad != "" && g.rng.Float64() < 0.7 {
		a.AdSource = ptr(ch.ad)
		a.UTMID = ptr(fmt.Sprintf("%d", 120000000000+g.rng.Int64N(9000000000)))
	}
	if ch.platform != "" {
		a.UTMSourcePlatform = ptr(ch.platform)
	}
	if len(ch.formats) > 0 {
		a.UTMCreativeFormat = ptr(ch.formats[g.rng.IntN(len(ch.formats))])
	}
	return a
}

// payment picks how the order is paid.
func (g *ordGen) payment(source string, wholesale bool) ordPay {
	brand := func() string { return []string{"visa", "mastercard", "amex", "discover"}[g.weighted(52, 27, 15, 6)] }
	switch {
	case wholesale:
		return ordPay{provider: "manual", method: "bank_transfer"}
	case source == "pos":
		if g.rng.Float64() < 0.2 {
			return ordPay{provider: "manual", method: "cash"}
		}
		return ordPay{provider: "stripe", method: brand()}
	case source == "draft_order":
		return ordPay{provider: "stripe", method: brand()} // the invoice's payment link
	}
	switch g.weighted(56, 16, 24, 4) {
	case 0:
		return ordPay{provider: "stripe", method: brand(), auth: g.rng.Float64() < 0.3}
	case 1:
		return ordPay{provider: "shop_pay", method: brand(), auth: g.rng.Float64() < 0.3}
	case 2:
		return ordPay{provider: "paypal", method: "paypal", auth: g.rng.Float64() < 0.4}
	}
	return ordPay{provider: "manual", method: "bank_transfer"}
}

// externalID is the gateway's id of a transaction.
func (g *ordGen) externalID(provider, kind string) string {
	switch provider {
	case "stripe":
		switch kind {
		case models.TxAuthorization, models.TxVoid:
			return "pi_3" + g.chars(ordAlnum, 23)
		case models.TxRefund:
			return "re_3" + g.chars(ordAlnum, 23)
		}
		return "ch_3" + g.chars(ordAlnum, 23)
	case "shop_pay":
		return "sp_" + g.chars("0123456789abcdef", 24)
	case "paypal":
		return g.chars("0123456789ABCDEFGHJKLMNPRSTUVWXY", 17)
	}
	return ""
}

// addTx records a transaction at at and returns its local id.
func (g *ordGen) addTx(oo *ordOrder, kind, status string, amount int64, at time.Time, parent int64) int64 {
	g.txN++
	t := models.OrderTransaction{
		ID: g.txN, StoreID: g.storeID, OrderID: oo.local, Kind: kind, Status: status, AmountCents: amount,
		Currency: oo.o.Currency, Provider: oo.pay.provider, ExternalID: g.externalID(oo.pay.provider, kind),
		CreatedAt: at.Truncate(time.Second),
	}
	if oo.pay.method != "" {
		t.PaymentMethod = ptr(oo.pay.method)
	}
	if parent != 0 {
		t.ParentID = ptr(parent)
		if kind == models.TxVoid {
			for _, p := range oo.txs {
				if p.ID == parent {
					t.ExternalID = p.ExternalID
				}
			}
		}
	}
	if oo.pay.method == "bank_transfer" && status == models.TxSuccess {
		t.ExternalID = fmt.Sprintf("BT-%s-%05d", at.Format("20060102"), g.rng.IntN(100000))
	}
	if kind == models.TxAuthorization {
		exp := t.CreatedAt.Add(7 * 24 * time.Hour)
		t.ExpiresAt = &exp
	}
	oo.txs = append(oo.txs, t)
	return t.ID
}

func (g *ordGen) event(oo *ordOrder, name, source string, at time.Time, amount, txID int64, detail map[string]any) {
	e := models.OrderEvent{StoreID: g.storeID, OrderID: oo.local, Name: name, Source: source, At: at.Truncate(time.Second)}
	if amount != 0 {
		e.AmountCents = ptr(amount)
	}
	if txID != 0 {
		e.TransactionID = ptr(txID)
	}
	if detail != nil {
		e.Detail = detail
	}
	oo.events = append(oo.events, e)
}

func (g *ordGen) secs(lo, hi int) time.Duration {
	return time.Duration(lo+g.rng.IntN(hi-lo+1)) * time.Second
}

// settle plays the order's life after checkout: payment, cancellation,
// shipments, returns.
func (g *ordGen) settle(oo *ordOrder) {
	o := &oo.o
	created, total := o.CreatedAt, o.TotalCents
	if o.Source == "pos" {
		at := created.Add(g.secs(20, 90))
		id := g.addTx(oo, models.TxSale, models.TxSuccess, total, at, 0)
		g.event(oo, "paid", "api", at, total, id, nil)
		g.fulfil(oo, created.Add(g.secs(120, 400)))
		g.afterShip(oo)
		return
	}
	if g.cancel(oo) {
		return
	}
	var ready time.Time // when it may ship; zero: not yet
	switch {
	case oo.cust != nil && oo.cust.wholesale:
		ready = g.deposit(oo)
	case o.Source == "draft_order":
		ready = g.invoice(oo)
	case oo.pay.method == "bank_transfer":
		ready = g.bankTransfer(oo)
	case oo.pay.auth:
		g.authorizeAndShip(oo)
		return
	default:
		at := created.Add(g.secs(2, 30))
		id := g.addTx(oo, models.TxSale, models.TxSuccess, total, at, 0)
		g.event(oo, "paid", "checkout", at, total, id, nil)
		ready = created
	}
	if ready.IsZero() {
		return
	}
	if at := g.shipTime(ready); !at.After(g.now) {
		g.fulfil(oo, at)
		g.afterShip(oo)
	}
}

// shipTime is when the warehouse ships an order that may ship from ready:
// a few hours to a couple of days later, in working hours on weekdays.
func (g *ordGen) shipTime(ready time.Time) time.Time {
	h := min(2+g.rng.ExpFloat64()*16, 80)
	l := ready.Add(time.Duration(h * float64(time.Hour))).In(g.loc)
	if l.Hour() < 8 || l.Hour() >= 18 {
		d := l
		if l.Hour() >= 18 {
			d = d.AddDate(0, 0, 1)
		}
		l = time.Date(d.Year(), d.Month(), d.Day(), 9, 0, 0, 0, g.loc).Add(g.dur(0, 8*time.Hour))
	}
	for l.Weekday() == time.Saturday || l.Weekday() == time.Sunday {
		l = l.AddDate(0, 0, 1)
	}
	return l.UTC()
}

// cancel cancels about one order in thirty within hours of checkout, giving
// the money back: an authorization is voided, a sale refunded.
func (g *ordGen) cancel(oo *ordOrder) bool {
	o := &oo.o
	if oo.pay.provider == "manual" {
		return false
	}
	at := o.CreatedAt.Add(g.dur(15*time.Minute, 30*time.Hour))
	if at.After(g.now) || !g.want("cancelled", 0.03) {
		return false
	}
	reason := models.CancelReasons[g.weighted(45, 15, 20, 8, 12)]
	restock := g.want("cancel_restock", 0.85)
	auth := oo.pay.auth
	switch {
	case g.seen["cancel_void"] == 0:
		auth = true
	case g.seen["cancel_refund"] == 0:
		auth = false
	}
	payAt := o.CreatedAt.Add(g.secs(2, 30))
	if auth {
		g.seen["cancel_void"]++
		id := g.addTx(oo, models.TxAuthorization, models.TxSuccess, o.TotalCents, payAt, 0)
		g.event(oo, "authorized", "checkout", payAt, o.TotalCents, id, nil)
		v := g.addTx(oo, models.TxVoid, models.TxSuccess, o.TotalCents, at, id)
		g.event(oo, "voided", "admin", at, o.TotalCents, v, nil)
	} else {
		g.seen["cancel_refund"]++
		id := g.addTx(oo, models.TxSale, models.TxSuccess, o.TotalCents, payAt, 0)
		g.event(oo, "paid", "checkout", payAt, o.TotalCents, id, nil)
		items := make(map[int]int64, len(oo.lines))
		for i, l := range oo.lines {
			items[i] = l.Quantity
		}
		g.refund(oo, at, o.TotalCents, items, restock, "Order cancelled", id)
	}
	g.markCancelled(oo, at, reason, restock)
	return true
}

func (g *ordGen) markCancelled(oo *ordOrder, at time.Time, reason string, restock bool) {
	at = at.Truncate(time.Second)
	oo.o.Status, oo.o.CancelReason, oo.o.CancelledAt = models.OrderCancelled, reason, &at
	oo.restock = restock
	g.event(oo, "cancelled", "admin", at, 0, 0, map[string]any{"reason": reason, "restock": restock})
}

// bankTransfer waits for the transfer: a pending transaction until it
// arrives, a sale once it has.
func (g *ordGen) bankTransfer(oo *ordOrder) time.Time {
	o := &oo.o
	arrived := o.CreatedAt.Add(g.dur(16*time.Hour, 96*time.Hour))
	if arrived.After(g.now) || (g.now.Sub(o.CreatedAt) < 5*24*time.Hour && g.want("bank_pending", 0.3)) {
		g.addTx(oo, models.TxSale, models.TxPending, o.TotalCents, o.CreatedAt.Add(g.secs(2, 30)), 0)
		return time.Time{}
	}
	id := g.addTx(oo, models.TxSale, models.TxSuccess, o.TotalCents, arrived, 0)
	g.event(oo, "paid", "admin", arrived, o.TotalCents, id, map[string]any{"note": "Bank transfer received"})
	return arrived
}

// invoice waits for the shopper to pay a draft order's invoice by card.
func (g *ordGen) invoice(oo *ordOrder) time.Time {
	o := &oo.o
	at := o.CreatedAt.Add(g.dur(2*time.Hour, 6*24*time.Hour))
	if g.rng.Float64() < 0.4 { // paid over the phone
		at = o.CreatedAt.Add(g.secs(30, 600))
	}
	if at.After(g.now) || (g.now.Sub(o.CreatedAt) < 7*24*time.Hour && g.want("invoice_pending", 0.4)) {
		return time.Time{}
	}
	id := g.addTx(oo, models.TxSale, models.TxSuccess, o.TotalCents, at, 0)
	g.event(oo, "paid", "checkout", at, o.TotalCents, id, nil)
	return at
}

// deposit takes half of a wholesale order up front and the balance within
// a month; it ships after the deposit.
func (g *ordGen) deposit(oo *ordOrder) time.Time {
	o := &oo.o
	at := o.CreatedAt.Add(g.dur(2*time.Hour, 48*time.Hour))
	if at.After(g.now) {
		return time.Time{}
	}
	dep := o.TotalCents / 2
	id := g.addTx(oo, models.TxSale, models.TxSuccess, dep, at, 0)
	g.event(oo, "paid", "admin", at, dep, id, map[string]any{"note": "50% deposit"})
	balance := o.CreatedAt.Add(g.dur(12*24*time.Hour, 30*24*time.Hour))
	if g.now.Sub(o.CreatedAt) < 30*24*time.Hour && g.want("partially_paid", 0.3) {
		balance = g.now.Add(24 * time.Hour)
	}
	if balance.Before(g.now) {
		id := g.addTx(oo, models.TxSale, models.TxSuccess, o.TotalCents-dep, balance, 0)
		g.event(oo, "paid", "admin", balance, o.TotalCents-dep, id, map[string]any{"note": "Balance received"})
	}
	return at
}

// authorizeAndShip authorizes at checkout and captures when the order
// ships. Some authorizations are still open: not shipped yet, held (and
// soon expiring), or with a failed capture.
func (g *ordGen) authorizeAndShip(oo *ordOrder) {
	o := &oo.o
	total := o.TotalCents
	age := g.now.Sub(o.CreatedAt)
	day := 24 * time.Hour
	authAt := o.CreatedAt.Add(g.secs(2, 30))
	auth := g.addTx(oo, models.TxAuthorization, models.TxSuccess, total, authAt, 0)
	expires := *oo.txs[len(oo.txs)-1].ExpiresAt
	g.event(oo, "authorized", "checkout", authAt, total, auth, map[string]any{"expires_at": expires})

	if (age >= 5*day && age < 7*day && g.want("auth_expiring", 0.3)) || (age >= 7*day && age < 9*day && g.rng.Float64() < 0.15) {
		return // held: backordered, waiting to capture when it ships
	}
	at := g.shipTime(o.CreatedAt)
	if at.After(g.now) {
		return
	}
	if !at.Before(expires) {
		at = expires.Add(-g.dur(2*time.Hour, 12*time.Hour))
	}
	errs := ordCaptureErrors[oo.pay.provider]
	fail := func(at time.Time) {
		msg := errs[g.rng.IntN(len(errs))]
		id := g.addTx(oo, models.TxCapture, models.TxFailure, total, at, auth)
		oo.txs[len(oo.txs)-1].Error = ptr(msg)
		g.event(oo, "payment_failed", "system", at, total, id, map[string]any{"error": msg})
	}
	if expires.After(g.now) && g.want("auth_capture_failed", 0.12) {
		fail(at) // the attempt failed and nobody has retried yet
		return
	}
	if g.rng.Float64() < 0.05 {
		fail(at)
		retry := at.Add(g.dur(3*time.Hour, 40*time.Hour))
		if retry.After(g.now) || !retry.Before(expires) || g.rng.Float64() < 0.25 {
			if expires.After(g.now) {
				return // still open, needing attention
			}
			// The authorization lapsed: give up, void it and cancel.
			at := expires.Add(g.dur(time.Hour, 20*time.Hour))
			if at.After(g.now) {
				at = g.now
			}
			v := g.addTx(oo, models.TxVoid, models.TxSuccess, total, at, auth)
			g.event(oo, "voided", "admin", at, total, v, nil)
			g.markCancelled(oo, at, "declined", true)
			return
		}
		at = retry
	}
	capAt := at.Add(-g.dur(time.Minute, 10*time.Minute))
	id := g.addTx(oo, models.TxCapture, models.TxSuccess, total, capAt, auth)
	g.event(oo, "captured", []string{"system", "admin"}[g.rng.IntN(2)], capAt, total, id, nil)
	g.fulfil(oo, at)
	g.afterShip(oo)
}

// tracking makes up a carrier's tracking number and its URL.
func (g *ordGen) tracking(carrier string) (string, string) {
	digits := "0123456789"
	switch carrier {
	case "UPS":
		n := "1Z" + g.chars("0123456789ABCDEFGHJKLMNPRSTUVWXYZ", 6) + "03" + g.chars(digits, 8)
		return n, "https://www.ups.com/track?tracknum=" + n
	case "FedEx":
		n := g.chars(digits, 12)
		return n, "https://www.fedex.com/fedextrack/?trknbr=" + n
	case "DHL":
		n := g.chars(digits, 10)
		return n, "https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=" + n
	}
	n := "9400" + g.chars(digits, 18)
	return n, "https://tools.usps.com/go/TrackConfirmAction?tLabels=" + n
}

// addFul records a shipment of quantities (by line index) at at.
func (g *ordGen) addFul(oo *ordOrder, at time.Time, items map[int]int64, cancelledAt *time.Time) {
	g.fulN++
	f := models.Fulfillment{ID: g.fulN, StoreID: g.storeID, OrderID: oo.local, Status: models.ShipmentSuccess, CreatedAt: at.Truncate(time.Second)}
	source := "api" // the warehouse's integration
	if g.rng.Float64() < 0.35 {
		source = "admin"
	}
	if oo.o.Source == "pos" {
		f.Note, source = "Picked up in store", "api"
	} else {
		f.Carrier = oo.carrier
		f.TrackingNumber, f.TrackingURL = g.tracking(f.Carrier)
		if g.rng.Float64() < 0.2 {
			f.Note = "Shipped from PDX-1"
		}
	}
	idx := make([]int, 0, len(items))
	for i := range items {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		oo.fulItems = append(oo.fulItems, models.FulfillmentItem{FulfillmentID: f.ID, LineItemID: oo.lines[i].ID, Quantity: items[i]})
		if cancelledAt == nil {
			oo.lines[i].FulfilledQuantity += items[i]
		}
	}
	g.event(oo, "fulfilled", source, at, 0, 0, map[string]any{
		"carrier": f.Carrier, "tracking_number": f.TrackingNumber, "line_items": len(items)})
	if cancelledAt != nil {
		c := cancelledAt.Truncate(time.Second)
		f.Status, f.CancelledAt = models.ShipmentCancelled, &c
		g.event(oo, "fulfillment_cancelled", "admin", c, 0, 0, map[string]any{
			"carrier": f.Carrier, "tracking_number": f.TrackingNumber, "reason": "Label voided: address corrected"})
	} else {
		oo.lastShip = at
	}
	oo.fuls = append(oo.fuls, f)
}

// fulfil ships the order from at: usually everything at once; sometimes a
// line follows later (backordered), sometimes a label is voided and the
// shipment redone.
func (g *ordGen) fulfil(oo *ordOrder, at time.Time) {
	all := make(map[int]int64, len(oo.lines))
	for i, l := range oo.lines {
		all[i] = l.Quantity
	}
	if oo.o.Source == "pos" {
		g.addFul(oo, at, all, nil)
		oo.allShipped = true
		return
	}
	if g.want("fulfillment_cancelled", 0.01) {
		c := at.Add(g.dur(time.Hour, 8*time.Hour))
		if c.After(g.now) {
			c = g.now
		}
		g.addFul(oo, at, all, &c)
		at = c.Add(g.dur(time.Hour, 24*time.Hour))
		if at.After(g.now) {
			return
		}
	}
	age := g.now.Sub(oo.o.CreatedAt)
	split := len(oo.lines) >= 2 && g.rng.Float64() < 0.07
	backordered := !split && len(oo.lines) >= 2 && age < 14*24*time.Hour && g.want("partial", 0.08)
	if split || backordered {
		held := g.rng.IntN(len(oo.lines))
		first := make(map[int]int64, len(all))
		for i, q := range all {
			if i != held {
				first[i] = q
			}
		}
		g.addFul(oo, at, first, nil)
		later := at.Add(g.dur(2*24*time.Hour, 10*24*time.Hour))
		if backordered || later.After(g.now) {
			return
		}
		g.addFul(oo, later, map[int]int64{held: all[held]}, nil)
	} else {
		g.addFul(oo, at, all, nil)
	}
	oo.allShipped = true
}

// afterShip gives money back on some delivered orders: a returned line,
// a goodwill refund, or everything for a parcel lost in transit.
func (g *ordGen) afterShip(oo *ordOrder) {
	o := &oo.o
	if !oo.allShipped {
		return
	}
	m := models.SumMoney(oo.txs)
	if m.Captured < o.TotalCents {
		return
	}
	var parent int64
	for _, t := range oo.txs {
		if t.Status == models.TxSuccess && (t.Kind == models.TxSale || t.Kind == models.TxCapture) {
			parent = t.ID
		}
	}
	switch r := g.rng.Float64(); {
	case r < 0.07: // a return
		at := oo.lastShip.Add(g.dur(4*24*time.Hour, 25*24*time.Hour))
		if at.After(g.now) {
			return
		}
		i := g.rng.IntN(len(oo.lines))
		l := oo.lines[i]
		q := 1 + g.rng.Int64N(l.Quantity)
		gross := l.PriceCents * q
		disc := int64(0)
		if o.SubtotalCents > 0 {
			disc = o.DiscountCents * gross / o.SubtotalCents
		}
		tax := int64(0)
		if base := o.SubtotalCents - o.DiscountCents; base > 0 {
			tax = o.TaxCents * (gross - disc) / base
		}
		amount := min(gross-disc+tax, m.Refundable())
		if amount <= 0 {
			return
		}
		g.refund(oo, at, amount, map[int]int64{i: q}, g.rng.Float64() < 0.85, ordReturnReasons[g.rng.IntN(len(ordReturnReasons))], parent)
	case r < 0.085: // goodwill
		at := oo.lastShip.Add(g.dur(2*24*time.Hour, 10*24*time.Hour))
		amount := o.ShippingCents
		if amount == 0 {
			amount = o.SubtotalCents / 10
		}
		if at.After(g.now) || amount <= 0 || amount >= m.Refundable() {
			return
		}
		g.refund(oo, at, amount, nil, false, "Goodwill: shipping delay", parent)
	case r < 0.095: // lost in transit
		at := oo.lastShip.Add(g.dur(10*24*time.Hour, 20*24*time.Hour))
		if at.After(g.now) {
			return
		}
		items := make(map[int]int64, len(oo.lines))
		for i, l := range oo.lines {
			items[i] = l.Quantity
		}
		g.refund(oo, at, m.Refundable(), items, false, "Lost in transit", parent)
	}
}

// refund gives amount back at at, with quantities by line index, through
// a refund transaction on parent.
func (g *ordGen) refund(oo *ordOrder, at time.Time, amount int64, items map[int]int64, restock bool, reason string, parent int64) {
	g.refundN++
	r := models.Refund{
		ID: g.refundN, StoreID: g.storeID, OrderID: oo.local, AmountCents: amount, Currency: oo.o.Currency,
		Status: "success", Reason: reason, Restock: restock, CreatedAt: at.Truncate(time.Second),
	}
	idx := make([]int, 0, len(items))
	for i := range items {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		oo.refundItems = append(oo.refundItems, models.RefundLineItem{RefundID: r.ID, LineItemID: oo.lines[i].ID, Quantity: items[i]})
		oo.lines[i].RefundedQuantity += items[i]
	}
	oo.refunds = append(oo.refunds, r)
	id := g.addTx(oo, models.TxRefund, models.TxSuccess, amount, at, parent)
	oo.txs[len(oo.txs)-1].RefundID = ptr(r.ID)
	g.event(oo, "refunded", "admin", at, amount, id, map[string]any{"reason": reason, "restock": restock, "line_items": len(items)})
}

// ordIDs takes n ids from table's sequence.
func ordIDs(ctx context.Context, tx bun.Tx, table string, n int64) ([]int64, error) {
	if n == 0 {
		return nil, nil
	}
	var ids []int64
	err := tx.NewRaw("SELECT nextval(pg_get_serial_sequence(?, 'id')) FROM generate_series(1, ?)", table, n).Scan(ctx, &ids)
	slices.Sort(ids)
	return ids, err
}

// ordInsert inserts rows in batches.
func ordInsert[T any](ctx context.Context, tx bun.Tx, rows []T, suffix ...string) error {
	for len(rows) > 0 {
		batch := rows[:min(len(rows), 1000)]
		q := tx.NewInsert().Model(&batch).Returning("NULL")
		for _, s := range suffix {
			q = q.On(s)
		}
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
		rows = rows[len(batch):]
	}
	return nil
}

// insert numbers the orders, swaps local ids for real ones and writes
// everything in bulk.
func (g *ordGen) insert(ctx context.Context, tx bun.Tx) error {
	// Customers: an existing customer of the same email is kept.
	custs := make([]models.Customer, len(g.customers))
	for i, c := range g.customers {
		custs[i] = c.c
	}
	if err := ordInsert(ctx, tx, custs, "CONFLICT (store_id, lower(email)) DO NOTHING"); err != nil {
		return fmt.Errorf("customers: %w", err)
	}
	var known []struct {
		ID    int64  `bun:"id"`
		Email string `bun:"email"`
	}
	if err := tx.NewSelect().Table("customers").Column("id").ColumnExpr("lower(email) AS email").
		Where("store_id = ?", g.storeID).Scan(ctx, &known); err != nil {
		return err
	}
	custID := make(map[string]int64, len(known))
	for _, k := range known {
		custID[k.Email] = k.ID
	}

	// A block of order numbers, taken at once.
	n := int64(len(g.orders))
	var s struct {
		Last   int64  `bun:"last_order_number"`
		Prefix string `bun:"order_number_prefix"`
		Suffix string `bun:"order_number_suffix"`
	}
	err := tx.NewUpdate().Table("stores").Set("last_order_number = last_order_number + ?", n).
		Where("id = ?", g.storeID).Returning("last_order_number, order_number_prefix, order_number_suffix").Scan(ctx, &s)
	if err != nil {
		return err
	}

	orderIDs, err := ordIDs(ctx, tx, "orders", n)
	if err != nil {
		return err
	}
	lineIDs, err := ordIDs(ctx, tx, "order_line_items", g.lineN)
	if err != nil {
		return err
	}
	txIDs, err := ordIDs(ctx, tx, "order_transactions", g.txN)
	if err != nil {
		return err
	}
	refundIDs, err := ordIDs(ctx, tx, "refunds", g.refundN)
	if err != nil {
		return err
	}
	fulIDs, err := ordIDs(ctx, tx, "fulfillments", g.fulN)
	if err != nil {
		return err
	}
	id := func(ids []int64, local int64) int64 { return ids[local-1] }
	idp := func(ids []int64, local *int64) *int64 {
		if local == nil {
			return nil
		}
		return ptr(ids[*local-1])
	}

	var (
		orders      = make([]models.Order, 0, n)
		lines       = make([]models.OrderLineItem, 0, g.lineN)
		txs         = make([]models.OrderTransaction, 0, g.txN)
		refunds     = make([]models.Refund, 0, g.refundN)
		refundItems []models.RefundLineItem
		fuls        = make([]models.Fulfillment, 0, g.fulN)
		fulItems    []models.FulfillmentItem
		events      []models.OrderEvent
	)
	for k, oo := range g.orders {
		o := oo.o
		o.ID = id(orderIDs, oo.local)
		o.OrderNumber = s.Last - n + 1 + int64(k)
		o.OrderNumberDisplay = models.OrderNumberDisplay(s.Prefix, o.OrderNumber, s.Suffix)
		o.Token = models.NewOrderToken()
		if oo.cust != nil {
			if cid, ok := custID[strings.ToLower(oo.cust.c.Email)]; ok {
				o.CustomerID = ptr(cid)
			}
		}
		orders = append(orders, o)
		for _, l := range oo.lines {
			l.ID, l.OrderID = id(lineIDs, l.ID), o.ID
			lines = append(lines, l)
		}
		for _, t := range oo.txs {
			t.ID, t.OrderID, t.ParentID, t.RefundID = id(txIDs, t.ID), o.ID, idp(txIDs, t.ParentID), idp(refundIDs, t.RefundID)
			txs = append(txs, t)
		}
		for _, r := range oo.refunds {
			r.ID, r.OrderID = id(refundIDs, r.ID), o.ID
			refunds = append(refunds, r)
		}
		for _, ri := range oo.refundItems {
			ri.RefundID, ri.LineItemID = id(refundIDs, ri.RefundID), id(lineIDs, ri.LineItemID)
			refundItems = append(refundItems, ri)
		}
		for _, f := range oo.fuls {
			f.ID, f.OrderID = id(fulIDs, f.ID), o.ID
			fuls = append(fuls, f)
		}
		for _, fi := range oo.fulItems {
			fi.FulfillmentID, fi.LineItemID = id(fulIDs, fi.FulfillmentID), id(lineIDs, fi.LineItemID)
			fulItems = append(fulItems, fi)
		}
		for _, e := range oo.events {
			e.OrderID, e.TransactionID = o.ID, idp(txIDs, e.TransactionID)
			events = append(events, e)
		}
	}
	steps := []struct {
		name string
		run  func() error
	}{
		{"orders", func() error { return ordInsert(ctx, tx, orders) }},
		{"line items", func() error { return ordInsert(ctx, tx, lines) }},
		{"refunds", func() error { return ordInsert(ctx, tx, refunds) }},
		{"refund line items", func() error { return ordInsert(ctx, tx, refundItems) }},
		{"transactions", func() error { return ordInsert(ctx, tx, txs) }},
		{"fulfillments", func() error { return ordInsert(ctx, tx, fuls) }},
		{"fulfillment items", func() error { return ordInsert(ctx, tx, fulItems) }},
		{"order events", func() error { return ordInsert(ctx, tx, events) }},
	}
	for _, st := range steps {
		if err := st.run(); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
	}
	return nil
}
