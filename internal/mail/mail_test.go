package mail

import (
	"context"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/testkit/testsmtp"
)

// TestNewChecksTheURL: only smtp:// and smtps:// with a host, from as the
// one query parameter, a plain sender address.
func TestNewChecksTheURL(t *testing.T) {
	for _, bad := range []string{"http://mail.example", "smtp://", "smtp://mail.example?tls=off", "smtp://mail.example?from=Shop%20%3Cx@y%3E", "smtp://mail.example?from=nobody"} {
		if _, err := New(Config{URL: bad, From: "no-reply@example.com"}); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	m, err := New(Config{URL: "smtps://u:p@mail.example?from=shop@example.com", From: "no-reply@example.com"})
	if err != nil || m.addr != "mail.example:465" || m.From() != "shop@example.com" || !m.Configured() || strings.Contains(m.Describe(), "p@") {
		t.Fatalf("smtps: %+v, %v", m, err)
	}
	if m, err := New(Config{From: "no-reply@example.com"}); err != nil || m.Configured() {
		t.Fatalf("no URL: %+v, %v", m, err)
	}
}

// TestHeadersStayOnOneLine: a name or subject with line breaks cannot add
// headers; the recipient must be one plain address.
func TestHeadersStayOnOneLine(t *testing.T) {
	msg := Message{FromName: "Acme\r\nBcc: victim@example.com", To: "ana@example.com", Subject: "Hi\nBcc: x@example.com\u2028", Text: "t", HTML: "<p>h</p>", Date: time.Now()}
	raw, err := msg.build("no-reply@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\r\n") {
		if strings.HasPrefix(line, "Bcc:") {
			t.Fatalf("a header was added:\n%s", raw)
		}
	}
	msg.To = "ana@example.com\r\nBcc: x@example.com"
	if _, err := msg.build("no-reply@example.com"); err == nil {
		t.Fatal("a recipient with a line break was accepted")
	}
}

// TestSendThroughSMTP: a message reaches an SMTP server that requires
// AUTH PLAIN, with its text and HTML parts and its headers.
func TestSendThroughSMTP(t *testing.T) {
	srv := testsmtp.Start(t, "shop", "pw")
	m, err := New(Config{URL: srv.URL() + "?from=shop@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Send(context.Background(), nil, Message{FromName: "Acme Ünï", ReplyTo: "care@example.com", To: "ana@example.com",
		Subject: "Grüße", Text: "Hello\nthere", HTML: "<p>Hello</p>", Unsubscribe: "http://x.example/opt-out", Date: time.Now()})
	if err != nil || d != Sent {
		t.Fatalf("send: %v, %v", d, err)
	}
	got := srv.Messages()
	if len(got) != 1 || got[0].Subject != "Grüße" || got[0].Text != "Hello\nthere" || got[0].HTML != "<p>Hello</p>" ||
		got[0].From != "shop@example.com" || got[0].To != "ana@example.com" || got[0].Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Fatalf("received %+v", got)
	}
	bad, err := New(Config{URL: "smtp://shop:wrong@" + strings.TrimPrefix(srv.URL(), "smtp://shop:pw@"), From: "shop@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Send(context.Background(), nil, Message{To: "ana@example.com", Date: time.Now()}); err == nil {
		t.Fatal("wrong password: sent")
	}
}
