package webhooks

import (
	"net/netip"
	"strings"
	"testing"

	"storeadmin/internal/base/apperr"
)

// TestSpecialRefusesEveryRegistryBlock: the first and last address of every
// special-purpose block of the IANA IPv4 and IPv6 registries (and of the
// IPv6 space outside global unicast) is refused, IPv4 carried in IPv6 is
// judged by the address it reaches, and the public neighbours pass.
func TestSpecialRefusesEveryRegistryBlock(t *testing.T) {
	refused := map[string]string{
		// IPv4
		"0.0.0.0":         `"this network"`,
		"0.0.0.1":         `"this network"`,
		"0.255.255.255":   `"this network"`,
		"10.0.0.0":        "private-use",
		"10.255.255.255":  "private-use",
		"100.64.0.0":      "shared address space (carrier-grade NAT)",
		"100.127.255.255": "shared address space (carrier-grade NAT)",
		"127.0.0.1":       "loopback",
		"127.255.255.255": "loopback",
		"169.254.169.254": "link-local",
		"172.16.0.0":      "private-use",
		"172.31.255.255":  "private-use",
		"192.0.0.0":       "IETF protocol assignments",
		"192.0.0.255":     "IETF protocol assignments",
		"192.0.2.1":       "documentation (TEST-NET-1)",
		"192.88.99.1":     "6to4 relay anycast",
		"192.168.0.1":     "private-use",
		"198.18.0.0":      "benchmarking",
		"198.19.255.255":  "benchmarking",
		"198.51.100.7":    "documentation (TEST-NET-2)",
		"203.0.113.9":     "documentation (TEST-NET-3)",
		"224.0.0.1":       "multicast",
		"239.255.255.255": "multicast",
		"240.0.0.1":       "reserved (and the limited broadcast address)",
		"255.255.255.255": "reserved (and the limited broadcast address)",
		// IPv6 outside global unicast
		"::":                "unspecified",
		"::1":               "loopback",
		"::127.0.0.1":       "IPv4-compatible (deprecated)",
		"::8.8.8.8":         "IPv4-compatible (deprecated)",
		"64:ff9b:1::1":      "local-use NAT64",
		"64:ff9b:1:ffff::1": "local-use NAT64",
		"100::1":            "discard-only",
		"5f00::1":           "SRv6 segment identifiers",
		"fc00::1":           "unique-local",
		"fdff:ffff::1":      "unique-local",
		"fe80::1":           "link-local",
		"fe80::1%eth0":      "link-local",
		"febf:ffff::1":      "link-local",
		"ff02::1":           "multicast",
		"ff0e::1":           "multicast",
		"1fff:ffff::1":      "outside global unicast (2000::/3)",
		"4000::1":           "outside global unicast (2000::/3)",
		// IPv6 special blocks inside global unicast
		"2001::1":     "IETF protocol assignments (Teredo, ORCHID, ...)",
		"2001:1ff::1": "IETF protocol assignments (Teredo, ORCHID, ...)",
		"2001:db8::1": "documentation",
		"3fff:fff::1": "documentation",
		// IPv4 inside IPv6: judged by the IPv4 address
		"::ffff:127.0.0.1":   "IPv4-mapped 127.0.0.1, loopback",
		"::ffff:10.1.2.3":    "IPv4-mapped 10.1.2.3, private-use",
		"64:ff9b::7f00:1":    "NAT64 well-known prefix 127.0.0.1, loopback",
		"64:ff9b::a9fe:a9fe": "NAT64 well-known prefix 169.254.169.254, link-local",
		"64:ff9b::ffff:ffff": "NAT64 well-known prefix 255.255.255.255, reserved (and the limited broadcast address)",
		"2002:7f00:1::1":     "6to4 127.0.0.1, loopback",
		"2002:c0a8:101::":    "6to4 192.168.1.1, private-use",
	}
	for raw, want := range refused {
		ip := netip.MustParseAddr(raw)
		if got := Special(ip); got != want {
			t.Errorf("Special(%s) = %q, want %q", raw, got, want)
		}
		if IsPublic(ip) {
			t.Errorf("IsPublic(%s) = true", raw)
		}
	}
	public := []string{
		"1.0.0.0", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255",
		"128.0.0.0", "169.253.255.255", "172.15.255.255", "172.32.0.0", "192.0.1.0", "192.0.3.0",
		"192.88.98.255", "192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0",
		"203.0.112.255", "223.255.255.255", "93.184.215.14", "8.8.8.8",
		"2000::1", "2001:200::1", "2001:db7:ffff::1", "2001:db9::1", "2606:4700::1111", "2a00:1450::1",
		"3ffe:ffff::1", "3fff:1000::1",
		"::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
	}
	for _, raw := range public {
		ip := netip.MustParseAddr(raw)
		if got := Special(ip); got != "" || !IsPublic(ip) {
			t.Errorf("Special(%s) = %q, want public", raw, got)
		}
	}
	if IsPublic(netip.Addr{}) {
		t.Error("the zero Addr is public")
	}
}

// TestCheckURLRefusesSpecialTargets: literal special-purpose addresses, in
// any spelling a resolver accepts, are refused with the block named, unless
// private targets are allowed; public ones pass unchanged.
func TestCheckURLRefusesSpecialTargets(t *testing.T) {
	refused := map[string]string{
		"http://0.0.0.1/":                 `0.0.0.1 is "this network"`,
		"http://255.255.255.255/":         "255.255.255.255 is reserved",
		"http://[::127.0.0.1]/":           "::7f00:1 is IPv4-compatible",
		"http://[64:ff9b::7f00:1]/":       "64:ff9b::7f00:1 is NAT64 well-known prefix 127.0.0.1, loopback",
		"http://[::ffff:169.254.169.254]": "IPv4-mapped 169.254.169.254, link-local",
		"http://[2002:7f00:1::1]:8080/":   "6to4 127.0.0.1, loopback",
		"http://[fe80::1%25eth0]/":        "link-local",
		"http://[2001:db8::5]/":           "documentation",
		"https://198.18.0.1/x":            "benchmarking",
		"http://2130706433/":              "four decimal numbers",
		"http://0x7f.1/":                  "four decimal numbers",
		"http://127.1/":                   "four decimal numbers",
		"http://0177.0.0.1/":              "four decimal numbers",
		"http://127.0.0.1./":              "loopback",
		"http://example.0x/":              "four decimal numbers",
		"http://intranet/":                "public host",
		"http://localhost:1/":             "localhost",
	}
	for raw, want := range refused {
		_, err := CheckURL(raw, false)
		if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckURL(%q, false) = %v, want an invalid-input error containing %q", raw, err, want)
		}
		if _, err := CheckURL(raw, true); err != nil {
			t.Errorf("CheckURL(%q, true) = %v, want it allowed", raw, err)
		}
	}
	for _, raw := range []string{"https://example.com/hooks", "https://93.184.215.14/", "https://[2606:4700::1111]/h", "https://hooks.example.com./in", "https://1password.example/x", "https://shop.x1/"} {
		if got, err := CheckURL(raw, false); err != nil || got != raw {
			t.Errorf("CheckURL(%q, false) = %q, %v; want it accepted as is", raw, got, err)
		}
	}
}
