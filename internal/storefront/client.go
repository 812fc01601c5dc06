package storefront

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"

	"storeadmin/internal/base/geoip"
	"storeadmin/internal/base/useragent"
	"storeadmin/models"
)

// IPPolicy says how much of a shopper's address a session keeps. The
// place (country, region, city) is always resolved from the whole address
// first; the policy decides only what is stored.
type IPPolicy string

const (
	// IPFull keeps the address as it came.
	IPFull IPPolicy = "full"
	// IPTruncated keeps its network: the last octet of an IPv4 address and
	// all but the first 48 bits of an IPv6 one are zeroed, as Google
	// Analytics and Matomo anonymise. The default.
	IPTruncated IPPolicy = "truncated"
	// IPNone keeps no address.
	IPNone IPPolicy = "none"
)

// ParseIPPolicy reads a policy's name; empty is IPTruncated.
func ParseIPPolicy(s string) (IPPolicy, error) {
	switch p := IPPolicy(s); p {
	case "":
		return IPTruncated, nil
	case IPFull, IPTruncated, IPNone:
		return p, nil
	}
	return "", fmt.Errorf("the IP policy must be full, truncated or none, not %q", s)
}

// keep is what of addr the policy stores; nil: nothing.
func (p IPPolicy) keep(addr netip.Addr) *string {
	if !addr.IsValid() || p == IPNone {
		return nil
	}
	if p == IPTruncated {
		bits := 48
		if addr.Is4() {
			bits = 24
		}
		addr = netip.PrefixFrom(addr, bits).Masked().Addr()
	}
	s := addr.String()
	return &s
}

// Client is what the service learns of a browser from its request (or an
// analytics export's line): who it says it is and where it is.
type Client struct {
	UserAgent string
	IP        string
}

// maxUserAgent bounds the header a session keeps.
const maxUserAgent = 512

// enricher adds to events what their browser's request says: the parsed
// user agent, the place of its address, and the address as the policy
// keeps it. It remembers the agents it parsed: an import's million lines
// come from a few thousand browsers.
type enricher struct {
	geo    *geoip.DB
	policy IPPolicy
	agents map[string]useragent.Agent
}

func newEnricher(geo *geoip.DB, policy IPPolicy) *enricher {
	return &enricher{geo: geo, policy: policy, agents: map[string]useragent.Agent{}}
}

// add enriches e with what c says.
func (en *enricher) add(e *models.StagedEvent, c Client) {
	if r := []rune(c.UserAgent); len(r) > maxUserAgent {
		c.UserAgent = string(r[:maxUserAgent])
	}
	agent, ok := en.agents[c.UserAgent]
	if !ok {
		agent = useragent.Parse(c.UserAgent)
		if len(en.agents) < 100_000 {
			en.agents[c.UserAgent] = agent
		}
	}
	addr, _ := netip.ParseAddr(c.IP)
	addr = addr.Unmap()
	place := en.geo.Lookup(addr)
	e.UserAgent = nonEmpty(c.UserAgent)
	e.Browser, e.BrowserVersion = nonEmpty(agent.Browser), nonEmpty(agent.BrowserVersion)
	e.OS, e.OSVersion = nonEmpty(agent.OS), nonEmpty(agent.OSVersion)
	e.Device, e.IsBot = nonEmpty(agent.Device), agent.IsBot
	e.IP = en.policy.keep(addr)
	setPlace(e, place)
}

// setPlace stores place on e: its names, and its coordinates when the
// database gave them.
func setPlace(e *models.StagedEvent, place geoip.Place) {
	e.Country, e.Region, e.City = nonEmpty(place.Country), nonEmpty(place.Region), nonEmpty(place.City)
	e.Latitude, e.Longitude = nil, nil
	if place.Located {
		lat, lon := place.Lat, place.Lon
		e.Latitude, e.Longitude = &lat, &lon
	}
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// EnrichAt enriches events as a request from c would be, but at place:
// for traffic the service makes itself (the seed), whose made-up addresses
// no GeoIP database resolves.
func EnrichAt(events []models.StagedEvent, c Client, place geoip.Place, policy IPPolicy) {
	en := newEnricher(nil, policy)
	for i := range events {
		en.add(&events[i], c)
		setPlace(&events[i], place)
	}
}

// clientIP is the request's client address: the connection's, or a trusted
// proxy's header's (Config.ClientIP).
func (s *service) clientIP(r *http.Request) string {
	if s.ClientIP != nil {
		return s.ClientIP(r)
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return ""
}

// keptIP is the request's client address as the IP policy keeps it; "" for
// none.
func (s *service) keptIP(r *http.Request) string {
	addr, _ := netip.ParseAddr(s.clientIP(r))
	if kept := s.IPPolicy.keep(addr.Unmap()); kept != nil {
		return *kept
	}
	return ""
}
