// Package webhooks holds what the API knows about subscriber URLs (which
// targets are allowed) and their signing secrets. The target rule is applied
// when a subscription is saved and, by the events engine, when a connection
// is dialled.
package webhooks

import (
	"crypto/rand"
	"encoding/base64"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"storeadmin/internal/apperr"
)

// MaxURLLength bounds a subscriber URL.
const MaxURLLength = 2048

// IsPrivate reports whether ip is an address a webhook must not reach by
// default: loopback, private, link-local, unique-local, unspecified,
// multicast, or shared (carrier-grade NAT) space.
func IsPrivate(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() ||
		sharedAddressSpace.Contains(ip)
}

var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// CheckURL validates a subscriber URL: absolute http(s), a host, no
// credentials, and, unless allowPrivate, no literal private address or
// localhost name. Names that resolve to private addresses are caught when
// the delivery engine dials.
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
		if ip, err := netip.ParseAddr(host); err == nil && IsPrivate(ip) {
			return "", apperr.Invalidf("url must not point at a private, loopback or link-local address")
		}
		if net.ParseIP(host) == nil && !strings.Contains(host, ".") {
			return "", apperr.Invalidf("url must name a public host")
		}
	}
	return u.String(), nil
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
