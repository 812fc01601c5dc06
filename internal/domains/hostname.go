package domains

import (
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"

	"storeadmin/internal/base/apperr"
)

// DNS's length rules (RFC 1035), on the ASCII form.
const (
	maxHostnameLen = 253 // without the root's trailing dot
	maxLabelLen    = 63
)

// normalize checks raw as a hostname a seller can own and returns its
// stored form: trimmed, one trailing dot dropped, through IDNA's lookup
// profile (lower case, Unicode mapped and made ASCII: bücher.example is
// xn--bcher-kva.example), with DNS's lengths, at least two labels, no IP
// address, no scheme, port or path, and not a public suffix (co.uk, where
// anyone registers). The refusals name field and say what to send.
func normalize(field, raw string) (string, error) {
	h := strings.TrimSpace(raw)
	switch {
	case h == "":
		return "", apperr.Invalidf("%s must not be empty: send a hostname such as shop.example.com", field)
	case strings.Contains(h, "://"):
		return "", apperr.Invalidf("%s must be a hostname alone, without a scheme: shop.example.com, not %s", field, raw)
	case strings.ContainsAny(h, "/?#"):
		return "", apperr.Invalidf("%s must be a hostname alone, without a path or query: shop.example.com, not %s", field, raw)
	}
	if ip, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return "", apperr.Invalidf("%s must be a domain name, not an IP address (%s)", field, ip)
	}
	if _, err := netip.ParseAddrPort(h); err == nil {
		return "", apperr.Invalidf("%s must be a domain name, not an IP address", field)
	}
	if strings.Contains(h, ":") {
		return "", apperr.Invalidf("%s must be a hostname without a port: shop.example.com, not %s", field, raw)
	}
	h = strings.TrimSuffix(h, ".")
	ascii, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", apperr.Invalidf("%s is not a valid domain name: labels are letters, digits and inner hyphens, separated by dots (%q)", field, raw)
	}
	if len(ascii) > maxHostnameLen {
		return "", apperr.Invalidf("%s must be at most %d characters in its DNS form; it is %d", field, maxHostnameLen, len(ascii))
	}
	labels := strings.Split(ascii, ".")
	if len(labels) < 2 {
		return "", apperr.Invalidf("%s must have at least two labels, a name and its top-level domain (shop.example.com), not %q", field, raw)
	}
	for _, l := range labels {
		switch {
		case l == "":
			return "", apperr.Invalidf("%s must not have an empty label (two dots in a row, or a leading dot): %q", field, raw)
		case len(l) > maxLabelLen:
			return "", apperr.Invalidf("%s must have labels of at most %d characters in their DNS form; %.20s... has %d", field, maxLabelLen, l, len(l))
		}
	}
	if tld := labels[len(labels)-1]; strings.Trim(tld, "0123456789") == "" {
		return "", apperr.Invalidf("%s must end in a top-level domain of letters, not %q", field, tld)
	}
	if suffix, _ := publicsuffix.PublicSuffix(ascii); suffix == ascii {
		return "", apperr.Invalidf("%s %s is a public suffix, under which anyone registers names; add a domain of your own, such as shop.%s", field, ascii, ascii)
	}
	return ascii, nil
}

// under tells whether host is domain or one of its subdomains.
func under(host, domain string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// isApex tells whether host is a registrable domain (example.com,
// shop.co.uk), which cannot have a CNAME, rather than a name under one
// (www.example.com).
func isApex(host string) bool {
	registered, err := publicsuffix.EffectiveTLDPlusOne(host)
	return err == nil && registered == host
}
