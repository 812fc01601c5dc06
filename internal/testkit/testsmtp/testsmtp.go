// Package testsmtp is an SMTP server on loopback for tests: it accepts
// every message (with or without AUTH PLAIN) and keeps it, parsed, for the
// test to read.
package testsmtp

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one message the server accepted.
type Message struct {
	From, To string
	Header   mail.Header
	// Subject is the decoded Subject header.
	Subject string
	// Text and HTML are the decoded parts of a multipart/alternative body.
	Text, HTML string
	Raw        []byte
}

// Server is a running SMTP server.
type Server struct {
	addr string
	mu   sync.Mutex
	msgs []Message
	// user and pass, when set, are the only credentials accepted, and a
	// message needs them.
	user, pass string
}

// Start starts a server on a free loopback port, stopped when the test
// ends. With user and pass not empty it requires AUTH PLAIN with them.
func Start(t testing.TB, user, pass string) *Server {
	t.Helper()
	s := &Server{user: user, pass: pass}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true // loopback, no TLS
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// URL is the server's smtp:// URL, with the credentials it requires.
func (s *Server) URL() string {
	if s.user != "" {
		return "smtp://" + s.user + ":" + s.pass + "@" + s.addr
	}
	return "smtp://" + s.addr
}

// Messages are the messages accepted so far, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

type session struct {
	s      *Server
	authed bool
	from   string
	to     []string
}

func (x *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (x *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != x.s.user || pass != x.s.pass {
			return smtp.ErrAuthFailed
		}
		x.authed = true
		return nil
	}), nil
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	if x.s.user != "" && !x.authed {
		return smtp.ErrAuthRequired
	}
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := parse(raw)
	if err != nil {
		return &smtp.SMTPError{Code: 554, Message: "unreadable message: " + err.Error()}
	}
	m.From, m.To = x.from, strings.Join(x.to, ",")
	x.s.mu.Lock()
	x.s.msgs = append(x.s.msgs, m)
	x.s.mu.Unlock()
	return nil
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }

// parse reads a message: its headers and the text and HTML parts of a
// multipart/alternative body.
func parse(raw []byte) (Message, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, err
	}
	m := Message{Header: msg.Header, Raw: raw}
	if m.Subject, err = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); err != nil {
		return m, err
	}
	typ, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || typ != "multipart/alternative" {
		return m, errors.New("not multipart/alternative")
	}
	parts := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := parts.NextRawPart()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return m, err
		}
		body := io.Reader(p)
		if p.Header.Get("Content-Transfer-Encoding") == "quoted-printable" {
			body = quotedprintable.NewReader(p)
		}
		b, err := io.ReadAll(body)
		if err != nil {
			return m, err
		}
		switch pt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); pt {
		case "text/plain":
			m.Text = strings.ReplaceAll(string(b), "\r\n", "\n")
		case "text/html":
			m.HTML = strings.ReplaceAll(string(b), "\r\n", "\n")
		}
	}
}
