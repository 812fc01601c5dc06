// Package useragent reads a browser's User-Agent header: browser, OS, their
// versions, the kind of device and whether it is a bot.
//
// The parsing is github.com/mileusna/useragent's: maintained, pure Go with
// no data files to ship or update by hand, no allocation-heavy regular
// expressions (it tokenises the header once), and it knows the crawlers,
// link previewers and headless browsers a store sees. It reads the header
// only; client hints (Sec-CH-UA) are not consulted.
package useragent

import (
	"strings"

	ua "github.com/mileusna/useragent"
)

// Device types, as sessions store them.
const (
	Desktop = "desktop"
	Mobile  = "mobile"
	Tablet  = "tablet"
	Bot     = "bot"
	Other   = "other"
)

// Agent is what a User-Agent header says. Empty strings are what it did
// not say.
type Agent struct {
	Browser        string
	BrowserVersion string
	OS             string
	OSVersion      string
	Device         string
	IsBot          bool
}

// Parse reads header. An empty header is Other, not a bot: a browser
// that sends none is odd but not known to be a crawler.
func Parse(header string) Agent {
	header = strings.TrimSpace(header)
	if header == "" {
		return Agent{Device: Other}
	}
	u := ua.Parse(header)
	a := Agent{Browser: u.Name, BrowserVersion: u.Version, OS: u.OS, OSVersion: u.OSVersion, IsBot: u.Bot}
	switch {
	case u.Bot:
		a.Device = Bot
	case u.Tablet:
		a.Device = Tablet
	case u.Mobile:
		a.Device = Mobile
	case u.Desktop:
		a.Device = Desktop
	default:
		a.Device = Other
	}
	return a
}
