package seed

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/geoip"
	"storeadmin/internal/storefront"
	"storeadmin/models"
)

// trafficDays and trafficSessions size the storefront traffic: 90 days,
// ~52,000 visits of ~36,000 visitors (returning ones come back; the few
// visits of one visitor within 30 minutes are one session).
const (
	trafficDays     = 90
	trafficSessions = 52_000
	trafficVisitors = 36_000
	trafficChunk    = 20_000 // events a statement sessionises
)

// trafficAgents are the browsers visitors use, by weight; bots last.
var trafficAgents = []struct {
	weight float64
	ua     string
}{
	{30, "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"},
	{22, "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"},
	{20, "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"},
	{10, "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15"},
	{5, "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0"},
	{5, "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1"},
	{3, "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"},
	{2, "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"},
	{2, "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)"},
}

// trafficPlaces are where visitors are, by weight, each with a made-up
// address of a documentation range (the place is given, not looked up).
var trafficPlaces = []struct {
	weight float64
	place  geoip.Place
	ip     string
}{
	{40, geoip.Place{Country: "US", Region: "California", City: "San Francisco"}, "198.51.100.%d"},
	{15, geoip.Place{Country: "US", Region: "New York", City: "New York"}, "198.51.101.%d"},
	{12, geoip.Place{Country: "CA", Region: "Ontario", City: "Toronto"}, "203.0.113.%d"},
	{10, geoip.Place{Country: "GB", Region: "England", City: "London"}, "192.0.2.%d"},
	{8, geoip.Place{Country: "DE", Region: "Berlin", City: "Berlin"}, "198.18.0.%d"},
	{6, geoip.Place{Country: "FR", Region: "Île-de-France", City: "Paris"}, "198.18.1.%d"},
	{5, geoip.Place{Country: "AU", Region: "New South Wales", City: "Sydney"}, "198.18.2.%d"},
	{4, geoip.Place{Country: "NL", Region: "North Holland", City: "Amsterdam"}, "198.18.3.%d"},
}

// storefrontTraffic seeds 90 days of browsing: visits from several
// countries, devices and sources, bots among them, whose campaigns are
// the seeded orders' (ordChannels), through the sessionising statement the
// storefront surface uses (storefront.Ingest). A store with sessions
// already is left alone; event ids are the same on every run besides, so
// a second run would store nothing new.
func storefrontTraffic(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	var filled bool
	if err := tx.NewRaw("SELECT EXISTS (SELECT 1 FROM storefront_sessions WHERE store_id = ?)", storeID).Scan(ctx, &filled); err != nil || filled {
		return err
	}
	var products []struct {
		ID     int64  `bun:"id"`
		Handle string `bun:"handle"`
		Title  string `bun:"title"`
	}
	if err := tx.NewRaw("SELECT id, handle, title FROM products WHERE store_id = ? ORDER BY id LIMIT 200", storeID).Scan(ctx, &products); err != nil {
		return err
	}
	if len(products) == 0 {
		return nil
	}
	if err := models.PrepareBulkIngest(ctx, tx); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(storeID), 16))
	start := now.Add(-trafficDays * 24 * time.Hour)
	span := now.Add(-time.Hour).Sub(start)
	var chunk []models.StagedEvent
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		_, err := storefront.Ingest(ctx, tx, storeID, chunk)
		chunk = chunk[:0]
		return err
	}
	for v := range trafficSessions {
		visitor := rng.IntN(trafficVisitors)
		// Later days have more visits: the store is growing.
		at := start.Add(time.Duration(float64(span) * (1 - rng.Float64()*rng.Float64())))
		agent := trafficAgents[weighted(rng, len(trafficAgents), func(i int) float64 { return trafficAgents[i].weight })]
		place := trafficPlaces[visitor%len(trafficPlaces)]
		utmText, referrer := trafficLanding(rng)
		vid, sid := fmt.Sprintf("seed-v%d", visitor), fmt.Sprintf("seed-s%d", v)
		p := products[min(rng.IntN(len(products)), rng.IntN(len(products)))] // popular ones first
		n := 1 + rng.IntN(4)
		events := make([]models.StagedEvent, 0, n)
		for i := range n {
			e := models.StagedEvent{Ord: i, ClientEventID: fmt.Sprintf("seed-%d-%d", v, i), AnonID: vid, ClientSessionID: sid,
				OccurredAt: at.Add(time.Duration(i*40+rng.IntN(40)) * time.Second).UTC()}
			switch {
			case i == 0:
				e.Name, e.Path, e.Referrer, e.UTM = storefront.EventPageView, ptr("/products/"+p.Handle), referrer, utmText
				e.DwellMS, e.ScrollPct = ptr(int64(2000+rng.IntN(60000))), ptr(int64(rng.IntN(101)))
			case i == 1:
				e.Name, e.ProductID, e.ProductTitle = storefront.EventProductView, ptr(p.ID), ptr(p.Title)
			case i == 2 && rng.IntN(3) == 0:
				e.Name, e.SearchQuery, e.ResultCount = storefront.EventSearch, ptr("merino"), ptr(int64(rng.IntN(30)))
			case i == 2:
				e.Name, e.ProductID, e.Quantity = storefront.EventAddToCart, ptr(p.ID), ptr(int64(1))
			default:
				e.Name, e.Step = storefront.EventCheckoutStep, ptr([]string{"contact", "shipping", "payment"}[rng.IntN(3)])
			}
			events = append(events, e)
		}
		ip := fmt.Sprintf(place.ip, 1+visitor%250)
		storefront.EnrichAt(events, storefront.Client{UserAgent: agent.ua, IP: ip}, place.place, storefront.IPTruncated)
		chunk = append(chunk, events...)
		if len(chunk) >= trafficChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// weighted draws one of n choices, each as likely as its weight.
func weighted(rng *rand.Rand, n int, weight func(int) float64) int {
	var sum float64
	for i := range n {
		sum += weight(i)
	}
	r := rng.Float64() * sum
	for i := range n {
		if r < weight(i) {
			return i
		}
		r -= weight(i)
	}
	return n - 1
}

// trafficLanding draws the way a visit came (a channel of the orders'
// attribution, ordChannels, and one of its campaigns): the landing's utm
// (JSON) and referrer, nil for none.
func trafficLanding(rng *rand.Rand) (utm, referrer *string) {
	ch := ordChannels[weighted(rng, len(ordChannels), func(i int) float64 { return ordChannels[i].weight })]
	params := map[string]string{}
	if ch.source != "direct" {
		params["utm_source"], params["utm_medium"] = ch.source, ch.medium
		if len(ch.campaigns) > 0 {
			params["utm_campaign"] = ch.campaigns[rng.IntN(len(ch.campaigns))]
		}
	}
	if len(params) > 0 {
		b, _ := json.Marshal(params)
		utm = ptr(string(b))
	}
	if ch.referrer != "" {
		referrer = ptr(ch.referrer)
	}
	return utm, referrer
}
