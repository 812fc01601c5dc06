// Package domains is what the service knows of stores' custom domains
// beyond their rows: which hostnames a store may add (Hostname), the DNS
// records a domain needs to reach the platform (Records, Outstanding), and
// checking those records through a real DNS resolver (Check, Verify), now
// or periodically in a River job (Work, Recheck).
package domains

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"time"

	"github.com/miekg/dns"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Defaults of Config's zero fields.
const (
	// DefaultPlatformDomain is the platform's own domain when none is set.
	DefaultPlatformDomain = "storeadmin.app"
	// DefaultTimeout bounds one check's look-ups.
	DefaultTimeout = 5 * time.Second
	// resolvConf names the system's resolver when Config.Resolver is empty.
	resolvConf = "/etc/resolv.conf"
)

// VerifyPrefix starts the name of a domain's TXT verification record:
// _storeadmin-verify.shop.example.com holds the domain's token.
const VerifyPrefix = "_storeadmin-verify."

// Config says where the platform serves custom domains from and how their
// records are checked.
type Config struct {
	// PlatformDomain is the platform's own domain: it and every name under
	// it are the platform's, never a store's custom domain. Default
	// DefaultPlatformDomain.
	PlatformDomain string
	// TargetHost is what a subdomain's CNAME names (www.shop.example →
	// TargetHost); it is refused as a custom domain too. Default
	// "shops." + PlatformDomain.
	TargetHost string
	// TargetIPv4 are the platform's addresses, which an apex domain's A
	// records name (an apex cannot have a CNAME). None: apex domains are
	// refused, since there is nothing they could point at.
	TargetIPv4 []netip.Addr
	// TargetIPv6 are the platform's IPv6 addresses for an apex's AAAA
	// records; none: an apex must have no AAAA record.
	TargetIPv6 []netip.Addr
	// Resolver is the DNS server checks ask, host:port (port 53 when left
	// out). Default the first nameserver of /etc/resolv.conf (127.0.0.1:53
	// without one).
	Resolver string
	// Timeout bounds one check's look-ups, made at once. Default
	// DefaultTimeout.
	Timeout time.Duration
	// Log receives the periodic checks' failures. Default: discarded.
	Log *slog.Logger
}

// Service checks custom domains under one Config.
type Service struct {
	cfg      Config
	resolver string
	udp, tcp *dns.Client
}

// New checks cfg and fills its defaults; an empty Resolver reads
// /etc/resolv.conf.
func New(cfg Config) (*Service, error) {
	if cfg.PlatformDomain == "" {
		cfg.PlatformDomain = DefaultPlatformDomain
	}
	platform, err := normalize("the platform domain", cfg.PlatformDomain)
	if err != nil {
		return nil, err
	}
	cfg.PlatformDomain = platform
	if cfg.TargetHost == "" {
		cfg.TargetHost = "shops." + platform
	}
	if cfg.TargetHost, err = normalize("the CNAME target", cfg.TargetHost); err != nil {
		return nil, err
	}
	for _, ip := range cfg.TargetIPv4 {
		if !ip.Is4() {
			return nil, fmt.Errorf("domains: %s is not an IPv4 address", ip)
		}
	}
	for _, ip := range cfg.TargetIPv6 {
		if !ip.Is6() || ip.Is4In6() {
			return nil, fmt.Errorf("domains: %s is not an IPv6 address", ip)
		}
	}
	resolver, err := resolverAddr(cfg.Resolver)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{
		cfg:      cfg,
		resolver: resolver,
		udp:      &dns.Client{Net: "udp", Timeout: cfg.Timeout},
		tcp:      &dns.Client{Net: "tcp", Timeout: cfg.Timeout},
	}, nil
}

// resolverAddr is the resolver's host:port: addr with port 53 when it has
// none, or, when addr is empty, the system's first nameserver, and
// 127.0.0.1:53 when /etc/resolv.conf names none (as glibc and Go's own
// resolver do).
func resolverAddr(addr string) (string, error) {
	if addr == "" {
		conf, err := dns.ClientConfigFromFile(resolvConf)
		if err != nil || len(conf.Servers) == 0 {
			return "127.0.0.1:53", nil
		}
		return net.JoinHostPort(conf.Servers[0], conf.Port), nil
	}
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr, nil
	}
	if ip, err := netip.ParseAddr(addr); err == nil {
		return netip.AddrPortFrom(ip, 53).String(), nil
	}
	return net.JoinHostPort(addr, "53"), nil
}

// Resolver is the DNS server this service asks (host:port).
func (s *Service) Resolver() string { return s.resolver }

// Config is the service's configuration, defaults filled.
func (s *Service) Config() Config { return s.cfg }

// Hostname checks raw as a custom domain a store may add and returns its
// stored form (see normalize); the platform's own names are refused, and
// an apex domain when the platform has no address for its A records.
func (s *Service) Hostname(field, raw string) (string, error) {
	h, err := normalize(field, raw)
	if err != nil {
		return "", err
	}
	if under(h, s.cfg.PlatformDomain) || under(h, s.cfg.TargetHost) {
		return "", apperr.Invalidf("%s %s is the platform's own; add a domain of your own", field, h)
	}
	if isApex(h) && len(s.cfg.TargetIPv4) == 0 {
		return "", apperr.Invalidf("%s %s is an apex domain, which needs A records, and this platform has no address for them; add a subdomain such as www.%s", field, h, h)
	}
	return h, nil
}

// Records are the DNS records domain d needs: for an apex, an A record per
// platform address (and AAAA, when the platform has IPv6 ones); for a
// subdomain, a CNAME to the target host; and the TXT record of its token.
func (s *Service) Records(d *models.Domain) []models.DomainDNSRecord {
	var out []models.DomainDNSRecord
	if isApex(d.Hostname) {
		for _, ip := range s.cfg.TargetIPv4 {
			out = append(out, models.DomainDNSRecord{Type: "A", Name: d.Hostname, Value: ip.String(), Purpose: models.RecordRouting})
		}
		for _, ip := range s.cfg.TargetIPv6 {
			out = append(out, models.DomainDNSRecord{Type: "AAAA", Name: d.Hostname, Value: ip.String(), Purpose: models.RecordRouting,
				Note: ptr("for visitors over IPv6; without it, remove every other AAAA record of " + d.Hostname)})
		}
	} else {
		out = append(out, models.DomainDNSRecord{Type: "CNAME", Name: d.Hostname, Value: s.cfg.TargetHost, Purpose: models.RecordRouting,
			Note: ptr("replaces any A or AAAA record of " + d.Hostname)})
	}
	return append(out, models.DomainDNSRecord{Type: "TXT", Name: VerifyPrefix + d.Hostname, Value: d.VerificationToken,
		Purpose: models.RecordVerification, Note: ptr("proves the store controls " + d.Hostname + "; it may be removed once the domain is active")})
}

// Outstanding are the records of Records that d still needs found: its
// routing records unless the last check found it pointing here, its TXT
// record until its ownership is proved. All of them before the first
// check; none once it is active.
func (s *Service) Outstanding(d *models.Domain) []models.DomainDNSRecord {
	pointed := d.DNSCheck != nil && d.DNSCheck.State == models.DNSPointed
	return slices.DeleteFunc(s.Records(d), func(r models.DomainDNSRecord) bool {
		if r.Purpose == models.RecordVerification {
			return d.VerifiedAt != nil
		}
		return pointed
	})
}

func ptr[T any](v T) *T { return &v }
