package domains

import (
	"net/netip"
	"strings"
	"testing"
)

// TestHostname: what a store may add, in its stored form, and each
// refusal's reason.
func TestHostname(t *testing.T) {
	s := testService(t, "127.0.0.1:1", 0)
	for raw, want := range map[string]string{
		"shop.example.com":                   "shop.example.com",
		"  Shop.Example.COM  ":               "shop.example.com",
		"shop.example.com.":                  "shop.example.com",
		"bücher.example":                     "xn--bcher-kva.example",
		"ＳＨＯＰ.example":                       "shop.example", // full-width letters map
		"www.shop.co.uk":                     "www.shop.co.uk",
		"shop.co.uk":                         "shop.co.uk",
		"a-b.example":                        "a-b.example",
		"platform.test.shop.example":         "platform.test.shop.example",
		strings.Repeat("a", 63) + ".example": strings.Repeat("a", 63) + ".example",
	} {
		got, err := s.Hostname("hostname", raw)
		if err != nil || got != want {
			t.Errorf("Hostname(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	long := strings.Repeat(strings.Repeat("a", 60)+".", 4) + "example" // 251
	if _, err := s.Hostname("hostname", long); err != nil {
		t.Errorf("251 characters: %v", err)
	}
	for raw, reason := range map[string]string{
		"":                                    "must not be empty",
		"   ":                                 "must not be empty",
		"https://shop.example":                "without a scheme",
		"shop.example/about":                  "without a path",
		"shop.example?x=1":                    "without a path or query",
		"shop.example:8080":                   "without a port",
		"192.0.2.1":                           "not an IP address",
		"[2001:db8::1]":                       "not an IP address",
		"2001:db8::1":                         "not an IP address",
		"192.0.2.1:80":                        "not an IP address",
		"localhost":                           "at least two labels",
		"shop..example":                       "must not have an empty label",
		".shop.example":                       "must not have an empty label",
		"-shop.example":                       "is not a valid domain name",
		"shop_1.example":                      "is not a valid domain name",
		"*.shop.example":                      "is not a valid domain name",
		"shop example.com":                    "is not a valid domain name",
		"shop.123":                            "top-level domain of letters",
		strings.Repeat("a", 64) + ".example":  "labels of at most 63 characters",
		strings.Repeat("a.", 126) + "example": "at most 253 characters",
		"co.uk":                               "is a public suffix",
		"com":                                 "at least two labels",
		"github.io":                           "is a public suffix",
		"platform.test":                       "is the platform's own",
		"shop.platform.test":                  "is the platform's own",
		"SHOPS.Platform.Test":                 "is the platform's own",
	} {
		_, err := s.Hostname("hostname", raw)
		if err == nil || !strings.HasPrefix(err.Error(), "hostname ") || !strings.Contains(err.Error(), reason) {
			t.Errorf("Hostname(%q): %v; want a refusal saying %q", raw, err, reason)
		}
	}

	// Without platform addresses an apex has nothing to point at.
	noApex, err := New(Config{PlatformDomain: "platform.test", Resolver: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noApex.Hostname("hostname", "shop.example"); err == nil || !strings.Contains(err.Error(), "add a subdomain such as www.shop.example") {
		t.Errorf("an apex without A targets: %v", err)
	}
	if h, err := noApex.Hostname("hostname", "www.shop.example"); err != nil || h != "www.shop.example" {
		t.Errorf("a subdomain without A targets: %q, %v", h, err)
	}
}

// TestNewConfig: defaults, and a configuration that cannot work refused.
func TestNewConfig(t *testing.T) {
	s, err := New(Config{Resolver: "192.0.2.53"})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Config(); c.PlatformDomain != DefaultPlatformDomain || c.TargetHost != "shops."+DefaultPlatformDomain || c.Timeout != DefaultTimeout {
		t.Fatalf("defaults: %+v", c)
	}
	if s.Resolver() != "192.0.2.53:53" {
		t.Fatalf("resolver %q", s.Resolver())
	}
	for in, want := range map[string]string{"2001:db8::53": "[2001:db8::53]:53", "ns.example:5353": "ns.example:5353", "[::1]:53": "[::1]:53", "ns.example": "ns.example:53"} {
		if got, err := resolverAddr(in); err != nil || got != want {
			t.Errorf("resolverAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for name, cfg := range map[string]Config{
		"platform an IP": {PlatformDomain: "192.0.2.1", Resolver: "x"},
		"IPv6 as IPv4":   {TargetIPv4: []netip.Addr{netip.MustParseAddr("2001:db8::1")}, Resolver: "x"},
		"IPv4 as IPv6":   {TargetIPv6: []netip.Addr{netip.MustParseAddr("192.0.2.1")}, Resolver: "x"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
