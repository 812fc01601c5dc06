// Package webhooks holds what the API knows about subscriber URLs (which
// targets are allowed) and their signing secrets. The target rule is applied
// when a subscription is saved and, by the events engine, when a connection
// is dialled.
package webhooks

import (
	"crypto/rand"
	"encoding/base64"
	"net/netip"
	"net/url"
	"strings"

	"storeadmin/internal/base/apperr"
)

// MaxURLLength bounds a subscriber URL.
const MaxURLLength = 2048

// block is one entry of the IANA special-purpose address registries
// (https://www.iana.org/assignments/iana-ipv4-special-registry and
// iana-ipv6-special-registry).
type block struct {
	prefix netip.Prefix
	name   string
}

func blocks(entries ...string) []block {
	out := make([]block, 0, len(entries)/2)
	for i := 0; i < len(entries); i += 2 {
		out = append(out, block{netip.MustParsePrefix(entries[i]), entries[i+1]})
	}
	return out
}

// special4 is every special-purpose IPv4 block, and multicast and the
// reserved 240/4 (which holds the limited broadcast address). A webhook
// reaches none of them, including the few the registry marks globally
// reachable (anycast services in 192.0.0.0/24): they are not receivers.
var special4 = blocks(
	"0.0.0.0/8", `"this network"`,
	"10.0.0.0/8", "private-use",
	"100.64.0.0/10", "shared address space (carrier-grade NAT)",
	"127.0.0.0/8", "loopback",
	"169.254.0.0/16", "link-local",
	"172.16.0.0/12", "private-use",
	"192.0.0.0/24", "IETF protocol assignments",
	"192.0.2.0/24", "documentation (TEST-NET-1)",
	"192.88.99.0/24", "6to4 relay anycast",
	"192.168.0.0/16", "private-use",
	"198.18.0.0/15", "benchmarking",
	"198.51.100.0/24", "documentation (TEST-NET-2)",
	"203.0.113.0/24", "documentation (TEST-NET-3)",
	"224.0.0.0/4", "multicast",
	"240.0.0.0/4", "reserved (and the limited broadcast address)",
)

// embedsIPv4 are the IPv6 blocks that carry an IPv4 address a packet ends
// up at; the embedded address is judged by the IPv4 rule. at is the byte
// offset of the embedded address.
var embedsIPv4 = []struct {
	block
	at int
}{
	{block{netip.MustParsePrefix("::ffff:0:0/96"), "IPv4-mapped"}, 12},
	{block{netip.MustParsePrefix("64:ff9b::/96"), "NAT64 well-known prefix"}, 12},
	{block{netip.MustParsePrefix("2002::/16"), "6to4"}, 2},
}

// globalUnicast6 is where every public IPv6 address lies; nothing outside
// it is reachable as a webhook.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// outside6 names the special-purpose blocks outside globalUnicast6, for the
// message; the more specific first.
var outside6 = blocks(
	"::/128", "unspecified",
	"::1/128", "loopback",
	"::/96", "IPv4-compatible (deprecated)",
	"64:ff9b:1::/48", "local-use NAT64",
	"100::/64", "discard-only",
	"5f00::/16", "SRv6 segment identifiers",
	"fc00::/7", "unique-local",
	"fe80::/10", "link-local",
	"ff00::/8", "multicast",
)

// special6 are the special-purpose blocks inside globalUnicast6.
var special6 = blocks(
	"2001::/23", "IETF protocol assignments (Teredo, ORCHID, ...)",
	"2001:db8::/32", "documentation",
	"3fff::/20", "documentation",
)

// Special names the special-purpose block ip is in ("loopback",
// "documentation (TEST-NET-1)", ...), or answers "" when ip is a public
// unicast address a webhook may reach. IPv4 carried inside IPv6 (mapped,
// NAT64, 6to4) is judged as the IPv4 address it reaches.
func Special(ip netip.Addr) string {
	ip = ip.WithZone("")
	if ip.Is6() {
		for _, e := range embedsIPv4 {
			if e.prefix.Contains(ip) {
				b := ip.As16()
				v4 := netip.AddrFrom4([4]byte(b[e.at : e.at+4]))
				if name := Special(v4); name != "" {
					return e.name + " " + v4.String() + ", " + name
				}
				return ""
			}
		}
		if !globalUnicast6.Contains(ip) {
			if name := find(outside6, ip); name != "" {
				return name
			}
			return "outside global unicast (2000::/3)"
		}
		return find(special6, ip)
	}
	if ip.Is4() {
		return find(special4, ip)
	}
	return "not an IP address"
}

func find(list []block, ip netip.Addr) string {
	for _, b := range list {
		if b.prefix.Contains(ip) {
			return b.name
		}
	}
	return ""
}

// IsPublic reports whether ip is a public unicast address, one a webhook
// may reach by default: in no special-purpose block (Special answers "").
func IsPublic(ip netip.Addr) bool { return Special(ip) == "" }

// CheckURL validates a subscriber URL: absolute http(s), a host, no
// credentials, and, unless allowPrivate, no localhost name, no literal
// address in a special-purpose block, and no IPv4 address in another form
// than four decimal numbers (0x7f.1, 2130706433), which resolvers take as
// addresses too. Names that resolve to such addresses are caught when the
// delivery engine dials.
func CheckURL(raw string, allowPrivate bool) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", apperr.Invalidf("url is required")
	}
	if len(raw) > MaxURLLength {
		return "", apperr.Invalidf("url must be at most %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return "", apperr.Invalidf("url must be an absolute http or https URL, such as https://example.com/hooks")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", apperr.Invalidf("url must use http or https, not %s", u.Scheme)
	}
	if u.User != nil {
		return "", apperr.Invalidf("url must not carry a user name or password")
	}
	if u.Fragment != "" {
		return "", apperr.Invalidf("url must not have a #fragment")
	}
	if !allowPrivate {
		host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		if host == "localhost" || strings.HasSuffix(host, ".localhost") {
			return "", apperr.Invalidf("url must not point at localhost")
		}
		if ip, err := netip.ParseAddr(host); err == nil {
			if name := Special(ip); name != "" {
				return "", apperr.Invalidf("url must point at a public address; %s is %s", ip, name)
			}
		} else if endsInNumber(host) {
			return "", apperr.Invalidf("url must write an IPv4 address as four decimal numbers (such as 93.184.215.14), not %s", host)
		} else if !strings.Contains(host, ".") {
			return "", apperr.Invalidf("url must name a public host")
		}
	}
	return u.String(), nil
}

// endsInNumber reports whether host's last label is a number (decimal, or
// hexadecimal after 0x), which makes the whole host an IPv4 address to URL
// parsers and resolvers (the WHATWG URL standard's "ends in a number").
func endsInNumber(host string) bool {
	last := host[strings.LastIndex(host, ".")+1:]
	digits := "0123456789"
	if rest, ok := strings.CutPrefix(last, "0x"); ok {
		last, digits = rest, "0123456789abcdef"
		if last == "" {
			return true // "0x" alone is zero
		}
	}
	return last != "" && strings.Trim(last, digits) == ""
}

// SecretPrefix starts every signing secret, so that people recognise it.
const SecretPrefix = "whsec_"

// NewSecret returns a fresh signing secret: "whsec_" and 32 random bytes in
// standard base64, the Standard Webhooks format, so that its verifier
// libraries take the secret exactly as it is shown.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read does not fail on supported platforms
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}
