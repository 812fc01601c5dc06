package seed

import (
	"fmt"
	"time"

	"storeadmin/models"
)

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
