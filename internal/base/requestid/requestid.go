// Package requestid gives every request an id that names it in answers and
// logs: the client's X-Request-Id when it is a safe token (so a client, or a
// proxy in front of the service, can follow its own id through), else a new
// random one. The id is set on every response, carried in the request's
// context (FromContext), and added to every log line written with that
// context (LogHandler).
package requestid

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
)

// Header is the request and response header that carries the id.
const Header = "X-Request-Id"

// MaxLen bounds a client's id: longer ones are replaced, not cut, so an id
// in the logs is always one the client sent or one the service made.
const MaxLen = 128

type key struct{}

// Middleware gives each request its id, sets it on the response before
// anything else can answer, and puts it in the request's context.
func Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(Header)
		if !valid(id) {
			id = newID()
		}
		w.Header().Set(Header, id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), key{}, id)))
	})
}

// FromContext is the id of ctx's request; empty outside a request.
func FromContext(ctx context.Context) string {
	id, _ := ctx.Value(key{}).(string)
	return id
}

// valid tells whether a client's id may be used as it is: 1 to MaxLen
// characters of [A-Za-z0-9._-], which nothing (a log line, a header, a
// shell) reads as anything but the id.
func valid(id string) bool {
	if id == "" || len(id) > MaxLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// newID is 16 hex digits of crypto/rand: short to read and quote, and
// unique enough (64 bits) to find one request among a service's logs.
func newID() string {
	var b [8]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// LogHandler adds request_id to every record logged with the context of a
// request, so no log call has to name it.
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, rec slog.Record) error {
	if id := FromContext(ctx); id != "" {
		rec = rec.Clone()
		rec.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, rec)
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{h.Handler.WithAttrs(attrs)}
}

func (h logHandler) WithGroup(name string) slog.Handler {
	return logHandler{h.Handler.WithGroup(name)}
}
