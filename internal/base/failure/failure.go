// Package failure writes the answer of a request that failed, in the shape
// of the surface it came in on: the REST envelope
// {"status": false, "message": ..., "code": ..., "field": ..., "request_id": ...}
// or a GraphQL response with one error (the same code, field and request id
// in its extensions) and data null. The HTTP status always comes from the error's code
// (apperr.Code.HTTPStatus), so no caller pairs a status with a code by hand.
//
// Middleware shared by both surfaces (authentication, the rate limit,
// idempotency) calls Write, which reads the surface the router marked on
// the request (Mark); the REST adapter, which is only ever REST, calls
// WriteREST.
package failure

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/database"
	"storeadmin/internal/base/requestid"
)

// Surface is the shape failures are written in.
type Surface int

// The surfaces.
const (
	REST Surface = iota
	GraphQL
)

type surfaceKey struct{}

// Mark records that the requests it wraps came in on s.
func Mark(s Surface) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), surfaceKey{}, s)))
		})
	}
}

// Write answers err in the shape of r's surface (REST unless marked
// GraphQL).
func Write(w http.ResponseWriter, r *http.Request, err error) {
	if s, _ := r.Context().Value(surfaceKey{}).(Surface); s == GraphQL {
		writeGraphQL(w, r, err)
		return
	}
	writeREST(w, r, err)
}

// WriteREST answers err as the REST envelope, for code that only ever
// serves REST.
func WriteREST(w http.ResponseWriter, r *http.Request, err error) { writeREST(w, r, err) }

// internalMessage is all a client learns of an error that is not ours.
const internalMessage = "internal server error"

// Public is what a client is told of err, wherever it is answered: an
// apperr error's code and message; an unreachable database, which passes
// by itself, as Unavailable (503, retry); anything else as Internal, its
// text hidden.
func Public(err error) (apperr.Code, string) {
	code := apperr.CodeOf(err)
	switch {
	case code != apperr.Internal:
		return code, err.Error()
	case database.Unavailable(err):
		return apperr.Unavailable, apperr.UnavailableMessage
	}
	return apperr.Internal, internalMessage
}

func header(w http.ResponseWriter, code apperr.Code) int {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	status := code.HTTPStatus()
	if status == http.StatusServiceUnavailable {
		h.Set("Retry-After", apperr.RetryAfter)
	}
	return status
}

// Envelope is the REST answer of a failure. Field is the input at fault,
// when one is; RequestID names the request in the service's logs.
type Envelope struct {
	Status    bool        `json:"status"`
	Message   string      `json:"message"`
	Code      apperr.Code `json:"code"`
	Field     string      `json:"field,omitempty"`
	RequestID string      `json:"request_id"`
}

func writeREST(w http.ResponseWriter, r *http.Request, err error) {
	code, msg := Public(err)
	status := header(w, code)
	w.WriteHeader(status)
	w.Write(encode(Envelope{ //nolint:errcheck // the client went away: nothing to do
		Message: msg, Code: code, Field: publicField(err, code), RequestID: requestid.FromContext(r.Context()),
	}))
}

func writeGraphQL(w http.ResponseWriter, r *http.Request, err error) {
	code, msg := Public(err)
	status := header(w, code)
	ext := Extensions(r.Context(), code, publicField(err, code))
	if code == apperr.TooLarge {
		// One code for every body that is not one GraphQL request; the
		// status tells a too-large one apart.
		ext["code"] = string(apperr.BadRequest)
	}
	type gqlError struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	}
	w.WriteHeader(status)
	w.Write(encode(struct { //nolint:errcheck // the client went away: nothing to do
		Errors []gqlError `json:"errors"`
		Data   any        `json:"data"`
	}{[]gqlError{{msg, ext}}, nil}))
}

// Extensions are the extensions of a GraphQL error with code about field
// (none when empty), in ctx's request: what the REST envelope says besides
// its message.
func Extensions(ctx context.Context, code apperr.Code, field string) map[string]any {
	ext := map[string]any{"code": string(code), "request_id": requestid.FromContext(ctx)}
	if field != "" {
		ext["field"] = field
	}
	return ext
}

// publicField is the field err is about, unless its message is hidden.
func publicField(err error, code apperr.Code) string {
	if code == apperr.Internal || code == apperr.Unavailable {
		return ""
	}
	return apperr.FieldOf(err)
}

// encode is v as JSON with < and > kept as they are: messages are read by
// people.
func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v) //nolint:errchkjson // strings and a bool always encode
	return bytes.TrimSpace(buf.Bytes())
}

// The status of a GraphQL answer. gqlgen's transport answers 200 whatever
// the errors, and 422 for a document that does not validate. A failure met
// inside the executor that decides the status of the whole answer (the rate
// limit refusing a mutation, an unreachable database) records its code with
// SetStatus, and GraphQLStatus writes that code's status instead; 422
// becomes 400, what REST answers for the same document.

type statusKey struct{}

// GraphQLStatus gives the answers of next the status SetStatus recorded.
func GraphQLStatus(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code := new(atomic.Pointer[apperr.Code])
		next.ServeHTTP(&statusWriter{ResponseWriter: w, code: code}, r.WithContext(context.WithValue(r.Context(), statusKey{}, code)))
	})
}

// SetStatus records that the answer of ctx's request has code's status; the
// first code recorded wins. Outside GraphQLStatus it does nothing: REST
// derives every status from its error's code already.
func SetStatus(ctx context.Context, code apperr.Code) {
	if p, _ := ctx.Value(statusKey{}).(*atomic.Pointer[apperr.Code]); p != nil {
		p.CompareAndSwap(nil, &code)
	}
}

type statusWriter struct {
	http.ResponseWriter
	code        *atomic.Pointer[apperr.Code]
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(status int) {
	if !w.wroteHeader {
		w.wroteHeader = true
		if c := w.code.Load(); c != nil {
			status = header(w.ResponseWriter, *c)
		} else if status == http.StatusUnprocessableEntity {
			status = http.StatusBadRequest
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
