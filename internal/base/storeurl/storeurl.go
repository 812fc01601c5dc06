// Package storeurl reads the addresses people write for a store's
// storefront (a redirect's path and target) into one spelling, so that two
// ways of writing one address are one address: a unique index can hold "one
// redirect per path" and a chain of redirects can be followed by comparing
// text.
//
// The spelling:
//   - a path starts with one slash; dot segments (/a/../b) and repeated
//     slashes are resolved, and a trailing slash is dropped (/sale/ is
//     /sale), since the storefront answers both alike;
//   - characters are percent-encoded as Go's net/url writes a path (é is
//     %C3%A9, a space %20), whichever way they arrived;
//   - query parameters are decoded, encoded again, de-duplicated and sorted
//     by name, then value (?b=2&a=1&b=2 is ?a=1&b=2);
//   - a full URL whose host is one of the store's own is cut to its path;
//     a path on another host is refused, and a target on another host is
//     kept as an absolute URL (http or https only; its scheme and host
//     lower-cased, the rest as written).
//
// Errors are plain errors whose text is written for the person who sent
// the address.
package storeurl

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// MaxLen bounds a normalised path or target, in bytes.
const MaxLen = 1024

// OwnHost reports whether a host (lower case, without port) is one of the
// store's own.
type OwnHost func(host string) bool

// Path is raw as a redirect's path: a path of the storefront, with its
// query, never a fragment (browsers do not send it) and never the home
// page alone (the storefront always answers it).
func Path(raw string, own OwnHost) (string, error) {
	a, err := parse(raw, own)
	if err != nil {
		return "", err
	}
	switch {
	case a.external != "":
		return "", fmt.Errorf("must be a path of this store, and %s is not one of its domains", a.host)
	case a.fragment != "":
		return "", errors.New("must not have a #fragment: browsers never send it to the store, so no request would match")
	case a.path == "/" && a.query == "":
		return "", errors.New("must not be the home page, which the storefront always answers")
	}
	return a.short(false)
}

// Target is raw as a redirect's target: a path of the storefront (its
// fragment kept) or an absolute http(s) URL of another site.
func Target(raw string, own OwnHost) (string, error) {
	a, err := parse(raw, own)
	if err != nil {
		return "", err
	}
	if a.external != "" {
		if len(a.external) > MaxLen {
			return "", fmt.Errorf("must be at most %d bytes", MaxLen)
		}
		return a.external, nil
	}
	return a.short(true)
}

// ToItself says why a redirect whose target is its own path is refused.
const ToItself = "must not be the path itself: the redirect would send shoppers back to where they are"

// IsSelf reports whether target (normalised) asks for path (normalised):
// a redirect from path to it would answer itself.
func IsSelf(path, target string) bool { return WithoutFragment(target) == path }

// WithoutFragment is a normalised target without its #fragment: the path a
// request for it asks for.
func WithoutFragment(target string) string {
	p, _, _ := strings.Cut(target, "#")
	return p
}

// address is a parsed path or URL: a storefront path, query and fragment,
// or an external URL.
type address struct {
	path, query, fragment string
	// external is the URL of another site, and host its host.
	external, host string
}

// short writes a's storefront path, query and (when withFragment) fragment.
func (a address) short(withFragment bool) (string, error) {
	s := a.path
	if a.query != "" {
		s += "?" + a.query
	}
	if withFragment && a.fragment != "" {
		s += "#" + a.fragment
	}
	if len(s) > MaxLen {
		return "", fmt.Errorf("must be at most %d bytes", MaxLen)
	}
	return s, nil
}

func parse(raw string, own OwnHost) (address, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return address{}, errors.New("must not be empty")
	}
	if len(raw) > 4*MaxLen {
		return address{}, fmt.Errorf("must be at most %d bytes", MaxLen)
	}
	if strings.IndexFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return address{}, errors.New("must not contain control characters (tabs, line breaks)")
	}
	if strings.HasPrefix(raw, "//") {
		return address{}, errors.New("must start with the scheme (https://) when it names a host")
	}
	if !strings.HasPrefix(raw, "/") {
		if scheme, _, ok := strings.Cut(raw, ":"); ok && isScheme(scheme) && strings.Contains(raw, "://") {
			return parseURL(raw, own)
		} else if ok && knownScheme(scheme) {
			return address{}, fmt.Errorf("must be a path (/sale) or an http or https URL, not a %s: address", strings.ToLower(scheme))
		}
		raw = "/" + raw // "sale" is the path /sale
	}
	u, err := url.Parse(raw)
	if err != nil {
		return address{}, errors.New("is not a well-formed path: " + unwrapURLError(err))
	}
	return storefront(u)
}

// parseURL reads an absolute URL: cut to its path when its host is the
// store's, kept whole otherwise.
func parseURL(raw string, own OwnHost) (address, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return address{}, errors.New("is not a well-formed URL: " + unwrapURLError(err))
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return address{}, fmt.Errorf("must be a path (/sale) or an http or https URL, not a %s: address", scheme)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return address{}, errors.New("is a URL without a host")
	}
	if u.User != nil {
		return address{}, errors.New("must not carry a user name or password")
	}
	if own != nil && own(host) {
		return storefront(u)
	}
	u.Scheme, u.Host = scheme, strings.ToLower(u.Host)
	return address{external: u.String(), host: host}, nil
}

// storefront is the path, query and fragment of u, normalised.
func storefront(u *url.URL) (address, error) {
	p := path.Clean("/" + u.Path) // resolves dot segments, repeated and trailing slashes
	query, err := sortedQuery(u.RawQuery)
	if err != nil {
		return address{}, err
	}
	return address{path: (&url.URL{Path: p}).EscapedPath(), query: query, fragment: u.EscapedFragment()}, nil
}

// sortedQuery is a raw query with each parameter decoded and encoded again,
// duplicates dropped, sorted by name then value.
func sortedQuery(raw string) (string, error) {
	type param struct {
		name, value string
		hasValue    bool
	}
	var params []param
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		name, value, hasValue := strings.Cut(part, "=")
		n, err := url.QueryUnescape(name)
		if err != nil {
			return "", fmt.Errorf("has a query parameter that is not well-formed: %q", part)
		}
		v, err := url.QueryUnescape(value)
		if err != nil {
			return "", fmt.Errorf("has a query parameter that is not well-formed: %q", part)
		}
		params = append(params, param{n, v, hasValue})
	}
	slices.SortFunc(params, func(a, b param) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := strings.Compare(a.value, b.value); c != 0 {
			return c
		}
		switch {
		case a.hasValue == b.hasValue:
			return 0
		case a.hasValue:
			return 1
		}
		return -1
	})
	params = slices.Compact(params)
	var b strings.Builder
	for i, p := range params {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p.name))
		if p.hasValue {
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(p.value))
		}
	}
	return b.String(), nil
}

// isScheme reports whether s has the shape of a URL scheme (RFC 3986:
// a letter, then letters, digits, +, - or .).
func isScheme(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
		if !letter && (i == 0 || !('0' <= r && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return true
}

// knownScheme reports the schemes a person might paste that are not web
// pages, so that "mailto:ana@example.com" is refused rather than read as
// the path /mailto:ana@example.com.
func knownScheme(s string) bool {
	switch strings.ToLower(s) {
	case "mailto", "tel", "sms", "javascript", "data", "ftp", "file", "about", "blob":
		return true
	}
	return false
}

// unwrapURLError is the reason of a net/url error without the quoted
// input, which the caller's field name already identifies.
func unwrapURLError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
