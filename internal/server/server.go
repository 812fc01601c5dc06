// Package server assembles the HTTP service: middleware (request id,
// recovery, principal, rate limit, audit, idempotency), POST /graphql, the playground and
// the REST adapter under /api/v1, all on one GraphQL executor.
package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/cors"
	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/graph/playground"
	"storeadmin/internal/apperr"
	"storeadmin/internal/audit"
	"storeadmin/internal/auth"
	"storeadmin/internal/database"
	"storeadmin/internal/events"
	"storeadmin/internal/idempotency"
	"storeadmin/internal/loaders"
	"storeadmin/internal/media"
	"storeadmin/internal/ratelimit"
	"storeadmin/resolvers"
	"storeadmin/rest"
)

// DefaultRateLimit is the requests per key per minute when none is set.
const DefaultRateLimit = 600

// Config is what the service can be told.
type Config struct {
	// RateLimit is the requests per key (per client address for requests
	// without a valid key) per minute, on both surfaces together.
	RateLimit int
	// RedisURL, when set, keeps the rate limit's counts in that Redis,
	// shared by every replica pointing at it (see ratelimit.Config).
	RedisURL string
	// AllowPrivateWebhooks lets subscriptions target loopback and private
	// addresses.
	AllowPrivateWebhooks bool
	// Audit says which headers carry the client address and country.
	Audit audit.Config
	// PublicURL is the service's own base URL, for links it hands out.
	PublicURL string
	// Media keeps uploaded images and generated downloads, and serves
	// their signed URLs (/uploads/, /media/, /files/).
	Media *media.Media
	// Events records the events of changes for webhook subscribers; its
	// workers are started (or not) by whoever built it.
	Events *events.Engine
	// GraphQLTimeout bounds the execution of one GraphQL operation, on
	// both surfaces; 0 is limits.DefaultTimeout.
	GraphQLTimeout time.Duration
}

// Server is the assembled service.
type Server struct {
	handler http.Handler
	exec    *executor.Executor
	limiter *ratelimit.Limiter
}

// New wires the service on db. now is the clock of every resolver.
func New(db *bun.DB, cfg Config, log *slog.Logger, now func() time.Time) (*Server, error) {
	if cfg.RateLimit <= 0 {
		cfg.RateLimit = DefaultRateLimit
	}
	res := &resolvers.Resolver{
		DB:                   db,
		Now:                  now,
		AllowPrivateWebhooks: cfg.AllowPrivateWebhooks,
		MCPEndpoint:          strings.TrimSuffix(cfg.PublicURL, "/") + "/mcp",
		Media:                cfg.Media,
		Events:               cfg.Events,
	}
	exec := graph.NewExecutor(res, log, cfg.GraphQLTimeout)
	exec.Use(audit.Extension{})
	adapter, err := rest.New(exec, graph.Schema(), rest.Routes, cfg.Media)
	if err != nil {
		return nil, err
	}
	res.Render = renderer(adapter)

	authn := auth.NewAuthenticator(db, now)
	limiter, err := ratelimit.New(ratelimit.Config{Limit: cfg.RateLimit, RedisURL: cfg.RedisURL, Key: rateKey(cfg.Audit), Fail: writeFailure, Log: log})
	if err != nil {
		return nil, err
	}

	r := chi.NewRouter()
	r.Use(middleware.RequestID, logCancelled(log), recoverer(log), corsPolicy())
	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := db.PingContext(r.Context()); err != nil {
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	pg := playground.Handler("storeadmin GraphQL", "/graphql", "/graphql/assets/")
	r.Get("/graphql", pg.ServeHTTP)
	r.Get("/graphql/assets/*", pg.ServeHTTP)
	if cfg.Media != nil {
		// Signed URLs: the signature is the credential, not an API key.
		files := cfg.Media.Handler()
		r.Handle("/uploads/*", files)
		r.Handle("/media/*", files)
		r.Handle("/files/*", files)
	}
	r.Group(func(r chi.Router) {
		r.Use(identify(authn, log), limiter.Handler, requireKey(db))
		// Idempotency runs inside audit: a replayed or refused retry is
		// still recorded, as a request that wrote nothing.
		idem := idempotency.Config{Now: now, Log: log, Fail: writeFailure}
		r.With(audit.Middleware(db, cfg.Audit, audit.GraphQL, log), idempotency.Middleware(db, idem, audit.GraphQL)).
			Post("/graphql", outagesAnswer503(graphqlHandler(exec)))
		r.Route("/api/v1", func(r chi.Router) {
			r.Use(audit.Middleware(db, cfg.Audit, audit.REST, log), idempotency.Middleware(db, idem, audit.REST))
			adapter.Mount(r)
		})
	})
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		rest.WriteError(w, http.StatusNotFound, "there is nothing at "+r.URL.Path+"; the API lives under /api/v1 and /graphql")
	})
	return &Server{handler: r, exec: exec, limiter: limiter}, nil
}

// ServeHTTP serves the whole service.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Close releases what the service holds beyond the database: the rate
// limiter's Redis connections.
func (s *Server) Close() error { return s.limiter.Close() }

// renderer renders persisted operations for the service itself. It starts
// from a fresh context: the caller's operation, audit entry and loaders must
// not leak into it, and its loaders read through db (the caller's
// transaction) like its resolvers.
func renderer(adapter *rest.Adapter) func(bun.IDB, int64, string, map[string]any) (json.RawMessage, error) {
	return func(db bun.IDB, storeID int64, op string, vars map[string]any) (json.RawMessage, error) {
		ctx := auth.WithPrincipal(resolvers.WithDB(context.Background(), db), auth.System(storeID))
		ctx = loaders.With(ctx, loaders.New(db, storeID))
		return adapter.Render(ctx, op, vars)
	}
}

// corsPolicy lets browser dashboards on any origin call the API. Keys travel
// in the Authorization header, never in cookies, so no origin gains anything
// it could not do without a browser.
func corsPolicy() func(http.Handler) http.Handler {
	return cors.Handler(cors.Options{
		AllowedOrigins: []string{"*"},
		AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
		AllowedHeaders: []string{"Authorization", "Content-Type", "Idempotency-Key"},
		ExposedHeaders: []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "Content-Disposition", idempotency.ReplayedHeader},
		MaxAge:         600,
	})
}

// graphqlHandler serves POST /graphql (JSON and GraphQL multipart bodies).
func graphqlHandler(exec *executor.Executor) http.HandlerFunc {
	post := transport.POST{}
	multipart := transport.MultipartForm{MaxUploadSize: 64 << 20, MaxMemory: 32 << 20}
	return func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(graphql.StartOperationTrace(r.Context()))
		w = badRequestWriter{w}
		switch {
		case multipart.Supports(r):
			multipart.Do(w, r, exec)
		case post.Supports(r):
			post.Do(w, r, exec)
		default:
			writeFailure(w, r, http.StatusUnsupportedMediaType, apperr.Invalid, "send a JSON body with Content-Type: application/json")
		}
	}
}

// badRequestWriter answers 400 where gqlgen's transports answer 422 (a
// document that does not parse, validate or keep within the limits, a
// malformed multipart request): what the REST surface answers for the
// same errors.
type badRequestWriter struct{ http.ResponseWriter }

func (w badRequestWriter) WriteHeader(status int) {
	if status == http.StatusUnprocessableEntity {
		status = http.StatusBadRequest
	}
	w.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection.
func (w badRequestWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type authErrKey struct{}

// identify resolves the bearer key into a principal. It does not refuse
// anything yet: the rate limiter must count refused requests too.
func identify(authn *auth.Authenticator, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, err := authn.Authenticate(r.Context(), r.Header.Get("Authorization"))
			ctx := r.Context()
			if err != nil {
				if ctx.Err() != nil {
					return // the client hung up: nobody reads an answer
				}
				if database.Unavailable(err) {
					log.WarnContext(ctx, "authenticate", "error", err)
					writeFailure(w, r, http.StatusServiceUnavailable, apperr.Unavailable, apperr.UnavailableMessage)
					return
				}
				if apperr.CodeOf(err) == apperr.Internal {
					log.ErrorContext(ctx, "authenticate", "error", err)
					writeFailure(w, r, http.StatusInternalServerError, apperr.Internal, "internal server error")
					return
				}
				ctx = context.WithValue(ctx, authErrKey{}, err)
			} else {
				ctx = auth.WithPrincipal(ctx, p)
			}
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// requireKey answers 401 for requests without a valid key and gives the
// others their per-request loaders.
func requireKey(db bun.IDB) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := auth.PrincipalFrom(r.Context())
			if p == nil {
				msg := "an API key is required: send Authorization: Bearer <key>"
				if err, ok := r.Context().Value(authErrKey{}).(error); ok {
					msg = err.Error()
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="storeadmin"`)
				writeFailure(w, r, http.StatusUnauthorized, apperr.Unauthenticated, msg)
				return
			}
			ctx := loaders.With(r.Context(), loaders.New(db, p.StoreID))
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// rateKey counts requests per key, and per client address for requests
// without a valid key.
func rateKey(cfg audit.Config) func(*http.Request) string {
	return func(r *http.Request) string {
		if p := auth.PrincipalFrom(r.Context()); p != nil {
			return string(p.Kind) + ":" + strconv.FormatInt(p.ActorID, 10)
		}
		return "ip:" + cfg.ClientIP(r)
	}
}

// writeFailure answers in the shape of the surface: a REST envelope, or a
// GraphQL response with one error.
func writeFailure(w http.ResponseWriter, r *http.Request, status int, code apperr.Code, message string) {
	if !strings.HasPrefix(r.URL.Path, "/graphql") {
		rest.WriteError(w, status, message)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", apperr.RetryAfter)
	}
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]any{ //nolint:errchkjson // the client went away: nothing to do
		"errors": []map[string]any{{"message": message, "extensions": map[string]any{"code": code}}},
		"data":   nil,
	})
}

// outagesAnswer503 answers a GraphQL operation that failed because the
// database was unreachable with 503 and Retry-After instead of 200, so
// clients and proxies retry it like any other outage.
func outagesAnswer503(next http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := graph.WithUnavailableFlag(r.Context())
		next.ServeHTTP(&outageWriter{ResponseWriter: w, ctx: ctx}, r.WithContext(ctx))
	}
}

// outageWriter turns the status of an answer into 503 when the operation
// met an unreachable database; gqlgen writes the answer after resolving
// every field, so the flag is set by then.
type outageWriter struct {
	http.ResponseWriter
	ctx         context.Context
	wroteHeader bool
}

func (w *outageWriter) WriteHeader(status int) {
	if !w.wroteHeader {
		w.wroteHeader = true
		if status == http.StatusOK && graph.Unavailable(w.ctx) {
			w.Header().Set("Retry-After", apperr.RetryAfter)
			status = http.StatusServiceUnavailable
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *outageWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// logCancelled logs, once and at debug level, a request whose client went
// away before its answer: it is no failure of the service, and the
// resolvers it interrupted log nothing of it.
func logCancelled(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			if err := r.Context().Err(); err != nil {
				log.DebugContext(r.Context(), "client closed the request", "method", r.Method, "path", r.URL.Path,
					"request_id", middleware.GetReqID(r.Context()))
			}
		})
	}
}

// recoverer turns a panic outside the executor into a logged 500.
func recoverer(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if v := recover(); v != nil {
					if v == http.ErrAbortHandler {
						panic(v)
					}
					log.ErrorContext(r.Context(), "panic", "panic", v, "stack", string(debug.Stack()))
					writeFailure(w, r, http.StatusInternalServerError, apperr.Internal, "internal server error")
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}
