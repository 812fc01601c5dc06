package events

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode"

	"storeadmin/internal/base/webhooks"
	"storeadmin/models"
)

// snippetBytes is how much of a failed answer's body goes into last_error.
const snippetBytes = 200

// sender POSTs deliveries.
type sender struct {
	client   *http.Client
	timeout  time.Duration
	maxBytes int64
}

func newSender(cfg Config) *sender {
	return &sender{client: newHTTPClient(cfg), timeout: cfg.Timeout, maxBytes: cfg.MaxResponseBytes}
}

// newHTTPClient is the client deliveries go out with: no proxy (the target
// check must see the real peer), no redirects (a 3xx is the answer, and a
// failure), a total deadline per attempt, bounded answer headers, and,
// unless cfg.AllowPrivate, a dialer that refuses non-public addresses after
// DNS resolution, so a name that resolves (or rebinds) to one is caught.
func newHTTPClient(cfg Config) *http.Client {
	dialer := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivate {
		dialer.Control = refusePrivate
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    cfg.Timeout,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
	}
	return &http.Client{
		Transport:     transport,
		Timeout:       cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// privateTargetError is a dial refused by refusePrivate.
type privateTargetError struct{ addr netip.Addr }

func (e *privateTargetError) Error() string {
	return "target address " + e.addr.String() + " is private"
}

// refusePrivate is the dialer's Control: it sees the address actually
// dialled, after resolution, for every address a name resolves to.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("target address %s cannot be checked", address)
	}
	if !webhooks.IsPublic(ap.Addr()) {
		return &privateTargetError{ap.Addr().Unmap()}
	}
	return nil
}

// outcome is what one attempt came to.
type outcome struct {
	status int    // the answer's HTTP status, 0 without one
	err    string // "" on success
}

func (o outcome) ok() bool { return o.err == "" }

// send makes one attempt of delivery t.
func (s *sender) send(ctx context.Context, t *models.DeliveryTarget) outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, strings.NewReader(t.Body))
	if err != nil {
		return outcome{err: "the subscription's URL cannot be requested: " + err.Error()}
	}
	setHeaders(req.Header, t, time.Now())
	resp, err := s.client.Do(req)
	if err != nil {
		return outcome{err: s.describe(err)}
	}
	defer resp.Body.Close()
	snippet := drain(resp.Body, s.maxBytes)
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return outcome{status: code}
	case code >= 300 && code < 400:
		return outcome{status: code, err: fmt.Sprintf("HTTP %d: redirects are not followed (Location: %s)",
			code, clip(resp.Header.Get("Location"), snippetBytes))}
	default:
		msg := fmt.Sprintf("HTTP %d", code)
		if snippet != "" {
			msg += ": " + snippet
		}
		return outcome{status: code, err: msg}
	}
}

// drain reads at most max bytes of an answer and returns the start of it,
// made printable on one line. What lies beyond max is never read; closing
// the body then drops the connection.
func drain(body io.Reader, max int64) string {
	lr := io.LimitReader(body, max)
	buf := make([]byte, min(snippetBytes, max))
	n, _ := io.ReadFull(lr, buf)
	io.Copy(io.Discard, lr) //nolint:errcheck // the status is the answer; the rest is read only to be discarded
	return printable(string(buf[:n]))
}

// printable turns text into valid UTF-8 on one line with single spaces.
func printable(s string) string {
	s = strings.ToValidUTF8(s, "?")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}

// describe turns a failed request into a short sentence for last_error.
func (s *sender) describe(err error) string {
	var private *privateTargetError
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var netErr net.Error
	switch {
	case errors.As(err, &private):
		return private.Error()
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before an answer"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "host " + dnsErr.Name + " not found"
		}
		return "cannot resolve host " + dnsErr.Name
	case errors.As(err, &certErr):
		return clip("TLS certificate not accepted: "+certErr.Err.Error(), snippetBytes)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "no answer within " + s.timeout.String()
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err // drop `Post "<url>":`, the subscription says where
	}
	return clip(err.Error(), snippetBytes)
}
