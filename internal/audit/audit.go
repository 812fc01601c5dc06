// Package audit records every write through either surface, successful or
// failed: who (which key), what operation, which records, and how it ended.
//
// The HTTP middleware opens an Entry per request; the GraphQL extension fills
// in the operation and its errors (REST runs the same executor, so it is
// filled the same way); resolvers name the records they touch with Touch.
// After the response, the middleware writes one audit_logs row.
package audit

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/uptrace/bun"
	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Record names one record a write touched.
type Record struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`
}

// Entry collects what one request did.
type Entry struct {
	mu        sync.Mutex
	opType    ast.Operation
	opName    string
	fields    []string
	records   []Record
	errCode   apperr.Code
	errText   string
	extraMeta map[string]any
}

type entryKey struct{}

func from(ctx context.Context) *Entry {
	e, _ := ctx.Value(entryKey{}).(*Entry)
	return e
}

// Touch notes that the request wrote the record kind/id.
func Touch(ctx context.Context, kind string, id int64) {
	if e := from(ctx); e != nil {
		e.mu.Lock()
		e.records = append(e.records, Record{Type: kind, ID: id})
		e.mu.Unlock()
	}
}

// Note adds a key to the entry's metadata.
func Note(ctx context.Context, key string, value any) {
	if e := from(ctx); e != nil {
		e.mu.Lock()
		if e.extraMeta == nil {
			e.extraMeta = map[string]any{}
		}
		e.extraMeta[key] = value
		e.mu.Unlock()
	}
}

// Fail records a failure decided outside the executor (a REST body that
// could not be read, say).
func Fail(ctx context.Context, code apperr.Code, message string) {
	if e := from(ctx); e != nil {
		e.mu.Lock()
		if e.errCode == "" {
			e.errCode, e.errText = code, message
		}
		e.mu.Unlock()
	}
}

// Surface says which side of the API a middleware guards.
type Surface int

// The surfaces. REST writes are the write methods; GraphQL writes are
// mutations.
const (
	REST Surface = iota
	GraphQL
)

// Config says where the client's address and country come from.
type Config struct {
	// ClientIPHeader, when set, is a header set by a trusted proxy whose first
	// address is the client's (X-Forwarded-For, say). Otherwise the peer
	// address is used.
	ClientIPHeader string
	// CountryHeader, when set, is a header set by a trusted proxy or CDN
	// holding the client's country code (CF-IPCountry, say).
	CountryHeader string
}

// ClientIP is the client's address under cfg.
func (cfg Config) ClientIP(r *http.Request) string {
	if cfg.ClientIPHeader != "" {
		if v := r.Header.Get(cfg.ClientIPHeader); v != "" {
			first, _, _ := strings.Cut(v, ",")
			return strings.TrimSpace(first)
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Middleware records the writes of one surface. It must run after the
// principal is known: unauthenticated requests name no store and are not
// recorded. It runs after the rate limiter too, so requests the limiter
// refuses are not recorded: a row per refused request would hand the
// database the very load the limiter is there to keep away.
func Middleware(db bun.IDB, cfg Config, surface Surface, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			e := &Entry{}
			rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), entryKey{}, e)))

			p := auth.PrincipalFrom(r.Context())
			if p == nil || !e.isWrite(surface, r.Method) {
				return
			}
			row := e.row(surface, r, rec.status, p, cfg)
			ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 5*time.Second)
			defer cancel()
			if err := models.InsertAuditLog(ctx, db, row); err != nil {
				log.ErrorContext(ctx, "audit log write failed", "error", err, "action", row.Action)
			}
		})
	}
}

func (e *Entry) isWrite(surface Surface, method string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.opType == ast.Mutation {
		return true
	}
	if surface == GraphQL {
		return false
	}
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

func (e *Entry) row(surface Surface, r *http.Request, status int, p *auth.Principal, cfg Config) *models.AuditLog {
	e.mu.Lock()
	defer e.mu.Unlock()
	meta := map[string]any{}
	for k, v := range e.extraMeta {
		meta[storable(k)] = storableValue(v)
	}
	if len(e.records) > 0 {
		meta["records"] = e.records
	}
	if e.opName != "" {
		meta["operation"] = e.opName
	}
	if e.errCode != "" {
		meta["error"] = storable(e.errText)
		if surface == GraphQL {
			status = e.errCode.HTTPStatus()
		}
	}
	action := strings.Join(e.fields, ",")
	if action == "" {
		action = r.Method + " " + r.URL.Path
	}
	path := r.URL.Path
	if surface == GraphQL {
		path = "/graphql"
		if e.opName != "" {
			path += "/" + e.opName
		}
	}
	storeID, actorID := p.StoreID, p.ActorID
	country := ""
	if cfg.CountryHeader != "" {
		country = strings.ToUpper(strings.TrimSpace(r.Header.Get(cfg.CountryHeader)))
	}
	return &models.AuditLog{
		StoreID:    &storeID,
		ActorType:  string(p.Kind),
		ActorID:    &actorID,
		Action:     storable(action),
		Method:     storable(r.Method),
		Path:       storable(path),
		StatusCode: int64(status),
		IP:         storable(cfg.ClientIP(r)),
		UserAgent:  storable(r.UserAgent()),
		Country:    storable(country),
		Metadata:   meta,
	}
}

// storable is s as PostgreSQL can store it: invalid UTF-8 and NUL
// characters become U+FFFD. Requests that carry them (a NUL in the path, in
// an error message that quotes a value) must still be recorded, and one
// such byte would fail the whole row.
func storable(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// storableValue applies storable to every string of a metadata value.
func storableValue(v any) any {
	switch v := v.(type) {
	case string:
		return storable(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			out[storable(k)] = storableValue(val)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, val := range v {
			out[i] = storableValue(val)
		}
		return out
	}
	return v
}

type statusRecorder struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wroteHeader {
		s.status, s.wroteHeader = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Extension is the gqlgen side: it tells the entry which operation ran and
// how it ended.
type Extension struct{}

var (
	_ graphql.HandlerExtension     = Extension{}
	_ graphql.OperationInterceptor = Extension{}
	_ graphql.ResponseInterceptor  = Extension{}
)

// ExtensionName names the extension for gqlgen.
func (Extension) ExtensionName() string { return "AuditLog" }

// Validate accepts every schema.
func (Extension) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptOperation notes the operation's type, name and root fields.
func (Extension) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	noteOperation(ctx)
	return next(ctx)
}

// noteOperation records which operation the request ran. It is also called
// for responses that never reached execution (variables that failed
// validation), so that a rejected mutation is still recorded as one.
func noteOperation(ctx context.Context) {
	if !graphql.HasOperationContext(ctx) {
		return
	}
	if oc := graphql.GetOperationContext(ctx); oc != nil {
		NoteOperation(ctx, oc.Operation)
	}
}

// NoteOperation tells the entry which operation the request runs: its type,
// name and root fields. The first call wins. The REST adapter calls it
// before its access gate, so that refused requests name their operation.
func NoteOperation(ctx context.Context, op *ast.OperationDefinition) {
	e := from(ctx)
	if e == nil || op == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.opType != "" {
		return
	}
	e.opType, e.opName = op.Operation, op.Name
	for _, sel := range op.SelectionSet {
		if f, ok := sel.(*ast.Field); ok && !strings.HasPrefix(f.Name, "__") {
			e.fields = append(e.fields, f.Name)
		}
	}
}

// InterceptResponse notes the first error of the response.
func (Extension) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	noteOperation(ctx)
	if e := from(ctx); e != nil && resp != nil && len(resp.Errors) > 0 {
		first := resp.Errors[0]
		code := apperr.Internal
		if c, ok := first.Extensions["code"].(string); ok {
			code = apperr.Code(c)
		}
		Fail(ctx, code, first.Message)
	}
	return resp
}
