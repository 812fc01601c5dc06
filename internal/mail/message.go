package mail

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
	"unicode"
)

// Message is one email to one recipient, in text and HTML.
type Message struct {
	// StoreID is the store it is sent for (the outbox keeps it).
	StoreID int64
	// FromName is the sender's name shoppers see (the store's email
	// settings); the address is the mailer's.
	FromName string
	// ReplyTo is where replies go; empty: to the sender.
	ReplyTo string
	To      string
	Subject string
	Text    string
	HTML    string
	// Unsubscribe, when set, is a URL that opts the recipient out in one
	// click (List-Unsubscribe with List-Unsubscribe-Post, RFC 8058).
	Unsubscribe string
	Date        time.Time
}

// oneLine keeps a header value on one line: control characters (line
// breaks among them) and Unicode's line separators become spaces.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) || unicode.IsSpace(r)
	}), " ")
}

// build writes the message in MIME: multipart/alternative, text then HTML,
// each quoted-printable UTF-8.
func (msg Message) build(from string) ([]byte, error) {
	if _, err := mail.ParseAddress(msg.To); err != nil || strings.ContainsAny(msg.To, "<>\r\n") {
		return nil, fmt.Errorf("mail: %q is not a plain email address", msg.To)
	}
	var buf bytes.Buffer
	body := multipart.NewWriter(&buf)
	h := func(k, v string) { fmt.Fprintf(&buf, "%s: %s\r\n", k, v) }
	h("From", (&mail.Address{Name: oneLine(msg.FromName), Address: from}).String())
	h("To", "<"+msg.To+">")
	if msg.ReplyTo != "" {
		h("Reply-To", (&mail.Address{Address: oneLine(msg.ReplyTo)}).String())
	}
	h("Subject", mime.QEncoding.Encode("utf-8", oneLine(msg.Subject)))
	h("Date", msg.Date.Format(time.RFC1123Z))
	id := make([]byte, 16)
	rand.Read(id)
	h("Message-ID", "<"+hex.EncodeToString(id)+"@"+from[strings.LastIndexByte(from, '@')+1:]+">")
	if msg.Unsubscribe != "" {
		h("List-Unsubscribe", "<"+oneLine(msg.Unsubscribe)+">")
		h("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
	}
	h("MIME-Version", "1.0")
	h("Content-Type", "multipart/alternative; boundary="+body.Boundary())
	buf.WriteString("\r\n")
	for _, part := range []struct{ typ, text string }{{"text/plain", msg.Text}, {"text/html", msg.HTML}} {
		w, err := body.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {part.typ + "; charset=utf-8"},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return nil, err
		}
		qp := quotedprintable.NewWriter(w)
		if _, err := qp.Write([]byte(strings.ReplaceAll(part.text, "\n", "\r\n"))); err != nil {
			return nil, err
		}
		if err := qp.Close(); err != nil {
			return nil, err
		}
	}
	if err := body.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
