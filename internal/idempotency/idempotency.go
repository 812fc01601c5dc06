// Package idempotency lets integrators retry writes safely: a POST sent with
// an Idempotency-Key header runs once, and a retry with the same key and the
// same request gets the first answer back instead of running again.
//
// It is one HTTP middleware, mounted on both surfaces after the principal is
// known (keys are scoped to the store and to the credential that sent them)
// and inside the audit middleware (so a replay is still recorded, as a
// request that wrote nothing).
//
// The first request with a key reserves it (an atomic INSERT ... ON
// CONFLICT), keyed by a fingerprint of the request: the SHA-256 of the
// method, path, raw query, Content-Type and body. The body is buffered while
// it is hashed (in memory up to 1 MiB, in a temporary file beyond) and the
// handler reads an identical copy. The handler's status, Content-Type and
// body are captured as they are sent and stored for Retention. Then:
//
//   - same key, same fingerprint, answer stored: the stored status and body
//     are replayed with Idempotent-Replayed: true; the handler does not run;
//   - same key, another fingerprint: 409;
//   - same key while the first request is still running: 409 with
//     Retry-After: 1. A reservation older than Abandoned (its process died)
//     is taken over by a retry of the same request.
//
// Not stored, so that a retry runs again: 5xx and 429 answers, GraphQL
// answers carrying an INTERNAL, RATE_LIMITED or TIMEOUT error, answers larger than
// MaxStoredBody, and requests whose handler panicked. Other 4xx answers are
// stored (the same request would fail the same way), as Stripe does.
//
// GET, PUT, DELETE (anything but POST) ignore the header, and so do GraphQL
// queries: only requests that may write are keyed.
package idempotency

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/internal/audit"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
)

// Header is the request header carrying the client's key.
const Header = "Idempotency-Key"

// ReplayedHeader is set to "true" on answers replayed from the store.
const ReplayedHeader = "Idempotent-Replayed"

const (
	// MaxKeyLength is the longest key accepted, in bytes.
	MaxKeyLength = 255
	// Retention is how long a stored answer is replayed.
	Retention = 24 * time.Hour
	// Abandoned is the age past which a reservation whose request never
	// finished is taken over by a retry: its process must have died.
	Abandoned = 5 * time.Minute
	// MaxStoredBody bounds a stored answer; a larger one is sent but not
	// kept, and the key is released.
	MaxStoredBody = 4 << 20
	// MaxRequestBody bounds the body of a keyed request: the largest upload
	// either surface takes (64 MiB of GraphQL multipart) and its envelope.
	MaxRequestBody = 65 << 20
)

// Messages of the answers the middleware gives itself.
const (
	msgMismatch   = "this Idempotency-Key was used for a different request; use a new key for a new request"
	msgInProgress = "a request with this Idempotency-Key is still in progress; retry shortly"
)

// Config tunes the middleware; the zero value works.
type Config struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Log receives the database errors; nil means slog.Default().
	Log *slog.Logger
	// MaxStoredBody overrides the package's MaxStoredBody when positive.
	MaxStoredBody int
	// TempDir is where large request bodies are spooled; "" is os.TempDir.
	TempDir string
}

// Middleware returns the idempotency middleware of one surface. It must run
// after the principal is known; requests without one pass through.
func Middleware(db bun.IDB, cfg Config, surface audit.Surface) func(http.Handler) http.Handler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.MaxStoredBody <= 0 {
		cfg.MaxStoredBody = MaxStoredBody
	}
	m := &middleware{db: db, cfg: cfg, graphql: surface == audit.GraphQL}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { m.serve(w, r, next) })
	}
}

type middleware struct {
	db      bun.IDB
	cfg     Config
	graphql bool
}

func (m *middleware) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	values, sent := r.Header[Header]
	p := auth.PrincipalFrom(r.Context())
	if !sent || r.Method != http.MethodPost || p == nil {
		next.ServeHTTP(w, r)
		return
	}
	ctx := r.Context()
	if len(values) != 1 {
		m.fail(w, r, apperr.Invalid, "send one Idempotency-Key header, not "+fmt.Sprint(len(values)))
		return
	}
	key := values[0]
	if msg := checkKey(key); msg != "" {
		m.fail(w, r, apperr.Invalid, msg)
		return
	}
	audit.Note(ctx, "idempotency_key", key)

	if r.ContentLength > MaxRequestBody {
		m.fail(w, r, apperr.TooLarge, tooLarge)
		return
	}
	req, err := readRequest(r, m.graphql, m.cfg.TempDir)
	if err != nil {
		var bad *badBody
		if errors.As(err, &bad) {
			m.fail(w, r, apperr.Invalid, bad.msg)
			return
		}
		m.internal(w, r, "buffer request body", err)
		return
	}
	defer req.body.Close()
	r.Body = req.body.Reader()

	var op *ast.OperationDefinition
	if m.graphql {
		op = req.operation()
		if op != nil && op.Operation != ast.Mutation {
			// A query or subscription writes nothing: the key is ignored,
			// as it is on GET.
			next.ServeHTTP(w, r)
			return
		}
	}

	id := scope{storeID: p.StoreID, actorType: string(p.Kind), actorID: p.ActorID, key: key}
	res, err := reserve(ctx, m.db, id, req.fingerprint, m.cfg.Now())
	if err != nil {
		m.internal(w, r, "reserve idempotency key", err)
		return
	}
	switch res.state {
	case acquired:
		m.run(w, r, next, id, res.token)
	case replay:
		// The handler does not run, so tell the audit entry what the
		// request was: GraphQL mutations are recorded by operation.
		audit.NoteOperation(ctx, op)
		audit.Note(ctx, "idempotent_replay", true)
		if res.contentType != "" {
			w.Header().Set("Content-Type", res.contentType)
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set(ReplayedHeader, "true")
		w.WriteHeader(res.status)
		w.Write(res.body) //nolint:errcheck // the client went away: nothing to do
	case mismatch:
		audit.NoteOperation(ctx, op)
		m.fail(w, r, apperr.Conflict, msgMismatch)
	case inProgress:
		audit.NoteOperation(ctx, op)
		w.Header().Set("Retry-After", "1")
		m.fail(w, r, apperr.Conflict, msgInProgress)
	}
}

// run serves the request that holds the reservation, then stores its answer
// or releases the key.
func (m *middleware) run(w http.ResponseWriter, r *http.Request, next http.Handler, id scope, token []byte) {
	rec := &recorder{ResponseWriter: w, max: m.cfg.MaxStoredBody}
	finished := false
	defer func() {
		if finished {
			return
		}
		// The handler panicked: let a retry run again.
		m.release(r.Context(), id, token)
	}()
	next.ServeHTTP(rec, r)
	finished = true

	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	contentType := rec.Header().Get("Content-Type")
	if status >= 500 || status == http.StatusTooManyRequests || rec.overflow ||
		(m.graphql && serverFailure(contentType, rec.body.Bytes())) {
		m.release(r.Context(), id, token)
		return
	}
	ctx, cancel := detached(r.Context())
	defer cancel()
	if err := complete(ctx, m.db, id, token, status, contentType, rec.body.Bytes()); err != nil {
		m.cfg.Log.ErrorContext(ctx, "store idempotent response", "error", err)
		m.release(r.Context(), id, token)
	}
}

func (m *middleware) release(ctx context.Context, id scope, token []byte) {
	ctx, cancel := detached(ctx)
	defer cancel()
	if err := release(ctx, m.db, id, token); err != nil {
		// The reservation stays until it is Abandoned and taken over.
		m.cfg.Log.ErrorContext(ctx, "release idempotency key", "error", err)
	}
}

// detached outlives the client: what the handler did must be recorded even
// if the client has gone.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
}

// fail answers a failure of the middleware's own, in the shape of the
// request's surface, and tells the audit entry.
func (m *middleware) fail(w http.ResponseWriter, r *http.Request, code apperr.Code, msg string) {
	audit.Fail(r.Context(), code, msg)
	failure.Write(w, r, apperr.New(code, "%s", msg))
}

func (m *middleware) internal(w http.ResponseWriter, r *http.Request, what string, err error) {
	if r.Context().Err() != nil {
		return // the client hung up: nobody reads an answer
	}
	m.cfg.Log.ErrorContext(r.Context(), what, "error", err)
	code, msg := failure.Public(err)
	m.fail(w, r, code, msg)
}

// checkKey says what is wrong with a key, or "".
func checkKey(key string) string {
	if key == "" || len(key) > MaxKeyLength {
		return fmt.Sprintf("the Idempotency-Key must be 1 to %d characters long", MaxKeyLength)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "the Idempotency-Key must be printable ASCII characters (a UUID, say)"
		}
	}
	return ""
}

// serverFailure reports whether a GraphQL answer (200 with errors) failed
// for a reason of the server's rather than of the request's.
func serverFailure(contentType string, body []byte) bool {
	if !strings.Contains(contentType, "json") || !bytes.Contains(body, []byte(`"errors"`)) {
		return false
	}
	var resp struct {
		Errors []struct {
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &resp) != nil {
		return false
	}
	for _, e := range resp.Errors {
		switch apperr.Code(e.Extensions.Code) {
		case apperr.Internal, apperr.RateLimited, apperr.Timeout:
			return true
		}
	}
	return false
}

// recorder passes the answer through and keeps a copy of it, up to max
// bytes of body.
type recorder struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	max      int
	overflow bool
}

func (rec *recorder) WriteHeader(code int) {
	if rec.status == 0 && code >= 200 { // 1xx answers are not the answer
		rec.status = code
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(p []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	if !rec.overflow {
		if rec.body.Len()+len(p) > rec.max {
			rec.overflow = true
			rec.body = bytes.Buffer{}
		} else {
			rec.body.Write(p)
		}
	}
	return rec.ResponseWriter.Write(p)
}

func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }
