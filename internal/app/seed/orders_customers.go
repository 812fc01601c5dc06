package seed

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"storeadmin/models"
)

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
