package domains

import (
	"context"
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/testkit/testdns"
	"storeadmin/models"
)

// The platform of these tests: shops.platform.test for CNAMEs, 192.0.2.10
// and 192.0.2.11 (and 2001:db8::10) for apex domains.
func testService(t *testing.T, resolver string, timeout time.Duration) *Service {
	t.Helper()
	s, err := New(Config{
		PlatformDomain: "platform.test",
		TargetIPv4:     []netip.Addr{netip.MustParseAddr("192.0.2.10"), netip.MustParseAddr("192.0.2.11")},
		TargetIPv6:     []netip.Addr{netip.MustParseAddr("2001:db8::10")},
		Resolver:       resolver,
		Timeout:        timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const token = "0123456789abcdef0123456789abcdef"

// TestCheck: a real DNS client against a DNS server on loopback, for each
// way a domain's records can be.
func TestCheck(t *testing.T) {
	ns := testdns.New(t)
	s := testService(t, ns.Addr, 5*time.Second)
	ns.Add(
		// Pointing right: a www CNAME, an apex's A and AAAA records.
		"www.right.test. 300 IN CNAME shops.platform.test.",
		"shops.platform.test. 300 IN A 192.0.2.10",
		"_storeadmin-verify.www.right.test. 300 IN TXT \""+token+"\"",
		"right.test. 300 IN A 192.0.2.10",
		"right.test. 300 IN A 192.0.2.11",
		"right.test. 300 IN AAAA 2001:db8::10",
		"_storeadmin-verify.right.test. 300 IN TXT \"other\"",
		"_storeadmin-verify.right.test. 300 IN TXT \""+token[:10]+"\" \""+token[10:]+"\"", // split strings join
		// Pointing elsewhere: a CNAME to another host, an apex with one
		// foreign address, an apex whose AAAA is not the platform's.
		"www.elsewhere.test. 300 IN CNAME shops.other-host.test.",
		"shops.other-host.test. 300 IN A 198.51.100.7",
		"_storeadmin-verify.www.elsewhere.test. 300 IN TXT \""+token+"\"",
		"elsewhere.test. 300 IN A 192.0.2.10",
		"elsewhere.test. 300 IN A 198.51.100.7",
		"v6.test. 300 IN A 192.0.2.10",
		"v6.test. 300 IN AAAA 2001:db8::99",
		// Missing TXT: pointing right, no verification record.
		"www.notxt.test. 300 IN CNAME shops.platform.test.",
		// A name that exists with no address: only a TXT.
		"www.bare.test. 300 IN TXT \"hello\"",
	)
	ns.Silence("www.slow.test")

	for _, c := range []struct {
		host string
		want models.DomainCheck
	}{
		{"www.right.test", models.DomainCheck{
			DNS:   models.DomainDNSCheck{State: models.DNSPointed, Points: []string{"shops.platform.test"}, Detail: "www.right.test is a CNAME for shops.platform.test, the platform's target"},
			Owned: true}},
		{"right.test", models.DomainCheck{
			DNS:   models.DomainDNSCheck{State: models.DNSPointed, Points: []string{"192.0.2.10", "192.0.2.11", "2001:db8::10"}, Detail: "right.test points at 192.0.2.10, 192.0.2.11, 2001:db8::10, the platform's"},
			Owned: true}},
		{"www.elsewhere.test", models.DomainCheck{
			DNS:   models.DomainDNSCheck{State: models.DNSElsewhere, Points: []string{"shops.other-host.test"}, Detail: "www.elsewhere.test is a CNAME for shops.other-host.test, not for shops.platform.test"},
			Owned: true}},
		{"elsewhere.test", models.DomainCheck{
			DNS: models.DomainDNSCheck{State: models.DNSElsewhere, Points: []string{"192.0.2.10", "198.51.100.7"},
				Detail: "elsewhere.test points at 198.51.100.7, which is not the platform's; its records must point at 192.0.2.10, 192.0.2.11, 2001:db8::10 only"},
			TXT: "the TXT record _storeadmin-verify.elsewhere.test was not found"}},
		{"v6.test", models.DomainCheck{
			DNS: models.DomainDNSCheck{State: models.DNSElsewhere, Points: []string{"192.0.2.10", "2001:db8::99"},
				Detail: "v6.test points at 2001:db8::99, which is not the platform's; its records must point at 192.0.2.10, 192.0.2.11, 2001:db8::10 only"},
			TXT: "the TXT record _storeadmin-verify.v6.test was not found"}},
		{"www.notxt.test", models.DomainCheck{
			DNS: models.DomainDNSCheck{State: models.DNSPointed, Points: []string{"shops.platform.test"}, Detail: "www.notxt.test is a CNAME for shops.platform.test, the platform's target"},
			TXT: "the TXT record _storeadmin-verify.www.notxt.test was not found"}},
		{"www.nowhere.test", models.DomainCheck{
			DNS: models.DomainDNSCheck{State: models.DNSMissing, Detail: "www.nowhere.test does not exist in DNS (NXDOMAIN)"},
			TXT: "the TXT record _storeadmin-verify.www.nowhere.test was not found"}},
		{"www.bare.test", models.DomainCheck{
			DNS: models.DomainDNSCheck{State: models.DNSMissing, Detail: "www.bare.test has no A, AAAA or CNAME record"},
			TXT: "the TXT record _storeadmin-verify.www.bare.test was not found"}},
	} {
		if got := s.Check(context.Background(), c.host, token); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Check(%s):\n got  %+v\n want %+v", c.host, got, c.want)
		}
	}

	// A TXT of another value says what it found.
	ns.Add("_storeadmin-verify.www.notxt.test. 300 IN TXT \"stale-token\"")
	if got := s.Check(context.Background(), "www.notxt.test", token); got.Owned || got.TXT != `the TXT record _storeadmin-verify.www.notxt.test holds "stale-token", not the domain's token` {
		t.Errorf("a stale token: %+v", got)
	}
}

// TestCheckTimeout: a resolver that never answers makes the check
// unreachable, within the timeout, saying so.
func TestCheckTimeout(t *testing.T) {
	ns := testdns.New(t)
	ns.Add("www.slow.test. 300 IN CNAME shops.platform.test.")
	ns.Silence("www.slow.test")
	s := testService(t, ns.Addr, 200*time.Millisecond)
	got := s.Check(context.Background(), "www.slow.test", token)
	want := models.DomainCheck{DNS: models.DomainDNSCheck{State: models.DNSUnreachable,
		Detail: fmt.Sprintf("the DNS resolver %s did not answer within 200ms", ns.Addr)}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

// TestCheckOverTCP: an answer too large for UDP comes truncated and is
// asked again over TCP.
func TestCheckOverTCP(t *testing.T) {
	ns := testdns.New(t)
	ns.Add("www.big.test. 300 IN CNAME shops.platform.test.")
	for i := range 40 {
		ns.Add(fmt.Sprintf("_storeadmin-verify.www.big.test. 300 IN TXT \"filler-%02d-%s\"", i, strings.Repeat("x", 40)))
	}
	ns.Add("_storeadmin-verify.www.big.test. 300 IN TXT \"" + token + "\"")
	s := testService(t, ns.Addr, 5*time.Second)
	if got := s.Check(context.Background(), "www.big.test", token); !got.Owned || got.DNS.State != models.DNSPointed {
		t.Fatalf("a large TXT answer: %+v", got)
	}
}

// TestRecords: an apex needs A (and AAAA) records, a subdomain a CNAME;
// both a TXT of their token. Outstanding leaves out what was found.
func TestRecords(t *testing.T) {
	s := testService(t, "127.0.0.1:1", time.Second)
	apex := &models.Domain{Hostname: "shop.co.uk", VerificationToken: token}
	var got []string
	for _, r := range s.Records(apex) {
		got = append(got, r.Type+" "+r.Name+" "+r.Value+" "+r.Purpose)
	}
	want := []string{"A shop.co.uk 192.0.2.10 routing", "A shop.co.uk 192.0.2.11 routing", "AAAA shop.co.uk 2001:db8::10 routing",
		"TXT _storeadmin-verify.shop.co.uk " + token + " verification"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("apex records %v\nwant %v", got, want)
	}
	www := &models.Domain{Hostname: "www.shop.co.uk", VerificationToken: token}
	if r := s.Records(www); len(r) != 2 || r[0].Type != "CNAME" || r[0].Value != "shops.platform.test" || r[1].Type != "TXT" {
		t.Fatalf("subdomain records %+v", r)
	}
	if len(s.Outstanding(www)) != 2 {
		t.Fatal("before a check, every record is outstanding")
	}
	www.DNSCheck = &models.DomainDNSCheck{State: models.DNSPointed}
	if r := s.Outstanding(www); len(r) != 1 || r[0].Type != "TXT" {
		t.Fatalf("pointed, not owned: %+v", r)
	}
	now := time.Now()
	www.VerifiedAt = &now
	if r := s.Outstanding(www); len(r) != 0 {
		t.Fatalf("active: %+v", r)
	}
	www.DNSCheck.State = models.DNSElsewhere
	if r := s.Outstanding(www); len(r) != 1 || r[0].Type != "CNAME" {
		t.Fatalf("verified, pointing elsewhere: %+v", r)
	}
}

// BenchmarkCheck: one check (its four look-ups at once) against a DNS
// server on loopback.
func BenchmarkCheck(b *testing.B) {
	ns := testdns.New(b)
	ns.Add("www.right.test. 300 IN CNAME shops.platform.test.", "shops.platform.test. 300 IN A 192.0.2.10",
		"_storeadmin-verify.www.right.test. 300 IN TXT \""+token+"\"")
	s, err := New(Config{PlatformDomain: "platform.test", Resolver: ns.Addr})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if c := s.Check(context.Background(), "www.right.test", token); !c.Owned {
			b.Fatalf("%+v", c)
		}
	}
}
