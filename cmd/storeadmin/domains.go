package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"strings"

	"storeadmin/internal/domains"
)

// domainFlags say where the platform serves stores' custom domains from and
// which DNS resolver checks them.
type domainFlags struct {
	platform, target, ipv4, ipv6, resolver string
}

func (f *domainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.platform, "platform-domain", envOr("STOREADMIN_PLATFORM_DOMAIN", domains.DefaultPlatformDomain),
		"the platform's own domain: it and its subdomains cannot be a store's custom domain (env STOREADMIN_PLATFORM_DOMAIN)")
	fs.StringVar(&f.target, "domain-cname-target", os.Getenv("STOREADMIN_DOMAIN_CNAME_TARGET"),
		"the host a custom subdomain's CNAME names; default shops.<platform-domain> (env STOREADMIN_DOMAIN_CNAME_TARGET)")
	fs.StringVar(&f.ipv4, "domain-ipv4", os.Getenv("STOREADMIN_DOMAIN_IPV4"),
		"the platform's IPv4 addresses, comma-separated, for apex domains' A records; empty: apex domains are refused (env STOREADMIN_DOMAIN_IPV4)")
	fs.StringVar(&f.ipv6, "domain-ipv6", os.Getenv("STOREADMIN_DOMAIN_IPV6"),
		"the platform's IPv6 addresses, comma-separated, for apex domains' AAAA records; empty: none (env STOREADMIN_DOMAIN_IPV6)")
	fs.StringVar(&f.resolver, "dns-resolver", os.Getenv("STOREADMIN_DNS_RESOLVER"),
		"the DNS resolver that checks custom domains, host[:port]; default the first nameserver of /etc/resolv.conf (env STOREADMIN_DNS_RESOLVER)")
}

// open builds the custom domain service the flags describe.
func (f *domainFlags) open(log *slog.Logger) (*domains.Service, error) {
	v4, err := addrList("--domain-ipv4", f.ipv4)
	if err != nil {
		return nil, err
	}
	v6, err := addrList("--domain-ipv6", f.ipv6)
	if err != nil {
		return nil, err
	}
	return domains.New(domains.Config{PlatformDomain: f.platform, TargetHost: f.target, TargetIPv4: v4, TargetIPv6: v6, Resolver: f.resolver, Log: log})
}

// addrList reads a comma-separated list of IP addresses.
func addrList(flagName, list string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		ip, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an IP address", flagName, s)
		}
		out = append(out, ip)
	}
	return out, nil
}
