// Package mail sends the service's email to shoppers: through an SMTP
// server when one is configured (--smtp-url), else into the mail_outbox
// table and the log, so that nothing is lost and development needs no mail
// server.
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/smtp"
	"net/url"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// DefaultTimeout bounds one SMTP delivery: connecting, greeting, STARTTLS,
// authenticating and sending.
const DefaultTimeout = 10 * time.Second

// Config says where mail goes.
type Config struct {
	// URL is the SMTP server: smtp://user:pass@host:port (STARTTLS when the
	// server offers it; port 587 when left out) or smtps://... (TLS from the
	// first byte; port 465). Its query parameter from sets the sender's
	// address (smtp://host?from=shop@example.com). Empty: mail goes to the
	// outbox.
	URL string
	// From is the sender's address when URL names none.
	From string
	// Timeout bounds one delivery; default DefaultTimeout.
	Timeout time.Duration
	// TLS is the TLS configuration of STARTTLS and smtps (tests trust their
	// own certificate); nil: the system's roots, the server's host name.
	TLS *tls.Config
	// Log receives every outboxed message. Default: discarded.
	Log *slog.Logger
}

// Delivery is what became of a message.
type Delivery string

const (
	// Sent: the SMTP server accepted it.
	Sent Delivery = "sent"
	// Outboxed: no SMTP server is configured; it is in the outbox.
	Outboxed Delivery = "outboxed"
)

// Mailer sends messages under one Config.
type Mailer struct {
	cfg      Config
	addr     string // host:port; empty: the outbox
	host     string
	implicit bool // smtps
	user     *url.Userinfo
	from     string
}

// New checks cfg and builds its mailer.
func New(cfg Config) (*Mailer, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	m := &Mailer{cfg: cfg, from: cfg.From}
	if cfg.URL == "" {
		return m.checked()
	}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("the SMTP URL: %w", err)
	}
	port := "587"
	switch u.Scheme {
	case "smtp":
	case "smtps":
		m.implicit, port = true, "465"
	default:
		return nil, fmt.Errorf("the SMTP URL must start with smtp:// or smtps://, not %q", u.Scheme+"://")
	}
	if u.Hostname() == "" {
		return nil, errors.New("the SMTP URL names no host")
	}
	if u.Port() != "" {
		port = u.Port()
	}
	for k := range u.Query() {
		if k != "from" {
			return nil, fmt.Errorf("the SMTP URL takes only the query parameter from, not %q", k)
		}
	}
	if f := u.Query().Get("from"); f != "" {
		m.from = f
	}
	m.host, m.addr, m.user = u.Hostname(), net.JoinHostPort(u.Hostname(), port), u.User
	return m.checked()
}

// checked returns m if its sender's address is a plain one.
func (m *Mailer) checked() (*Mailer, error) {
	if m.from == "" || strings.ContainsAny(m.from, "<>\r\n \"") || !strings.Contains(m.from, "@") {
		return nil, fmt.Errorf("the sender's address %q is not a plain email address", m.from)
	}
	return m, nil
}

// Configured tells whether an SMTP server is configured.
func (m *Mailer) Configured() bool { return m.addr != "" }

// Timeout bounds one delivery.
func (m *Mailer) Timeout() time.Duration { return m.cfg.Timeout }

// From is the sender's address.
func (m *Mailer) From() string { return m.from }

// Describe says where mail goes, for the start-up log (no password).
func (m *Mailer) Describe() string {
	if !m.Configured() {
		return "outbox (no --smtp-url)"
	}
	scheme := "smtp"
	if m.implicit {
		scheme = "smtps"
	}
	return scheme + "://" + m.addr
}

// Send delivers msg: through SMTP when a server is configured, else into
// the outbox through db (the caller's transaction, so the message is kept
// exactly when the change that sent it commits) and the log. An SMTP
// failure is returned; nothing else is.
func (m *Mailer) Send(ctx context.Context, db bun.IDB, msg Message) (Delivery, error) {
	raw, err := msg.build(m.from)
	if err != nil {
		return "", err
	}
	if !m.Configured() {
		_, err := db.NewRaw("INSERT INTO mail_outbox (store_id, from_addr, to_addr, subject, message, created_at) VALUES (?, ?, ?, ?, ?, ?)",
			msg.StoreID, m.from, msg.To, msg.Subject, raw, msg.Date).Exec(ctx)
		if err != nil {
			return "", err
		}
		m.cfg.Log.InfoContext(ctx, "mail: kept in the outbox (no SMTP server configured)", "store_id", msg.StoreID, "to", msg.To, "subject", msg.Subject)
		return Outboxed, nil
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	if err := m.deliver(ctx, msg.To, raw); err != nil {
		return "", fmt.Errorf("mail to %s through %s: %w", msg.To, m.addr, err)
	}
	return Sent, nil
}

// deliver runs one SMTP conversation.
func (m *Mailer) deliver(ctx context.Context, to string, raw []byte) error {
	tlsConfig := m.tlsConfig()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", m.addr)
	if err != nil {
		return err
	}
	if m.implicit {
		conn = tls.Client(conn, tlsConfig)
	}
	// The deadline bounds every read and write of the conversation.
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	c, err := smtp.NewClient(conn, m.host)
	if err != nil {
		conn.Close()
		return err
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return err
	}
	if ok, _ := c.Extension("STARTTLS"); ok && !m.implicit {
		if err := c.StartTLS(tlsConfig); err != nil {
			return err
		}
	}
	if m.user != nil {
		// PlainAuth sends the password only over TLS or to this machine.
		pass, _ := m.user.Password()
		if err := c.Auth(smtp.PlainAuth("", m.user.Username(), pass, m.host)); err != nil {
			return err
		}
	}
	if err := c.Mail(m.from); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

func (m *Mailer) tlsConfig() *tls.Config {
	if m.cfg.TLS != nil {
		c := m.cfg.TLS.Clone()
		if c.ServerName == "" {
			c.ServerName = m.host
		}
		return c
	}
	return &tls.Config{ServerName: m.host, MinVersion: tls.VersionTLS12}
}
