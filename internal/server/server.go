// Package server assembles the HTTP service: middleware (request id,
// recovery, principal, rate limit, audit, idempotency), POST /graphql, the playground and
// the REST adapter under /api/v1, all on one GraphQL executor.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
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
	"github.com/go-chi/httprate"
	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/graph/playground"
	"storeadmin/internal/apperr"
	"storeadmin/internal/audit"
	"storeadmin/internal/auth"
	"storeadmin/internal/events"
	"storeadmin/internal/idempotency"
	"storeadmin/internal/jsonbody"
	"storeadmin/internal/media"
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
}

// Server is the assembled service.
type Server struct {
	handler http.Handler
	exec    *executor.Executor
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
	exec := graph.NewExecutor(res, log)
	exec.Use(audit.Extension{})
	adapter, err := rest.New(exec, graph.Schema(), rest.Routes, cfg.Media)
	if err != nil {
		return nil, err
	}
	res.Render = renderer(adapter)

	authn := auth.NewAuthenticator(db, now)
	limiter := httprate.NewRateLimiter(cfg.RateLimit, time.Minute,
		httprate.WithKeyFuncs(rateKey(cfg.Audit)),
		httprate.WithLimitHandler(func(w http.ResponseWriter, r *http.Request) {
			writeFailure(w, r, http.StatusTooManyRequests, apperr.RateLimited,
				"too many requests: the limit is "+strconv.Itoa(cfg.RateLimit)+" per minute; retry after the number of seconds in Retry-After")
		}))

	r := chi.NewRouter()
	r.Use(middleware.RequestID, recoverer(log), corsPolicy())
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
			Post("/graphql", graphqlHandler(exec))
		r.Route("/api/v1", func(r chi.Router) {
			r.Use(audit.Middleware(db, cfg.Audit, audit.REST, log), idempotency.Middleware(db, idem, audit.REST))
			adapter.Mount(r)
		})
	})
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		rest.WriteError(w, http.StatusNotFound, "there is nothing at "+r.URL.Path+"; the API lives under /api/v1 and /graphql")
	})
	return &Server{handler: r, exec: exec}, nil
}

// ServeHTTP serves the whole service.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// renderer renders persisted operations for the service itself. It starts
// from a fresh context: the caller's operation, audit entry and loaders must
// not leak into it, and its loaders read through db (the caller's
// transaction) like its resolvers.
func renderer(adapter *rest.Adapter) func(bun.IDB, int64, string, map[string]any) (json.RawMessage, error) {
	return func(db bun.IDB, storeID int64, op string, vars map[string]any) (json.RawMessage, error) {
		ctx := auth.WithPrincipal(resolvers.WithDB(context.Background(), db), auth.System(storeID))
		ctx = graph.WithLoaders(ctx, graph.NewLoaders(db, storeID))
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
// A JSON body is read here, not by gqlgen's transport, which reads without
// a limit, answers a body that is not one operation (a batch array, a
// "query" that is not a string) as an internal error, and quotes the body
// in the error it logs. Multipart bodies keep their own limits.
func graphqlHandler(exec *executor.Executor) http.HandlerFunc {
	post := transport.POST{}
	multipart := transport.MultipartForm{MaxUploadSize: 64 << 20, MaxMemory: 32 << 20}
	return func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(graphql.StartOperationTrace(r.Context()))
		switch {
		case multipart.Supports(r):
			multipart.Do(w, r, exec)
		case post.Supports(r):
			raw, err := readGraphQLBody(r)
			if err != nil {
				// One code for every body that is not a request at all;
				// the status tells a too-large one apart.
				writeFailure(w, r, apperr.CodeOf(err).HTTPStatus(), apperr.BadRequest, err.Error())
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(raw))
			post.Do(w, r, exec)
		default:
			writeFailure(w, r, http.StatusUnsupportedMediaType, apperr.Invalid, "send a JSON body with Content-Type: application/json")
		}
	}
}

// readGraphQLBody reads a JSON body that holds one GraphQL request: an
// object whose query is a string, whose variables an object, ... as
// gqlgen's transport will decode it again.
func readGraphQLBody(r *http.Request) ([]byte, error) {
	raw, err := jsonbody.Read(r)
	if err != nil {
		return nil, err
	}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, apperr.New(apperr.BadRequest, "batched operations are not supported: send one JSON object per request")
	}
	var params graphql.RawParams
	if err := jsonbody.Decode(raw, &params); err != nil {
		return nil, err
	}
	if strings.TrimSpace(params.Query) == "" {
		return nil, apperr.New(apperr.BadRequest, `the request body must be a JSON object with a "query" string`)
	}
	return raw, nil
}

type authErrKey struct{}

// identify resolves the bearer key into a principal. It does not refuse
// anything yet: the rate limiter must count refused requests too.
func identify(authn *auth.Authenticator, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, err := authn.Authenticate(r.Context(), r.Header.Get("Authorization"))
			ctx := r.Context()
			if err != nil {
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
			ctx := graph.WithLoaders(r.Context(), graph.NewLoaders(db, p.StoreID))
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// rateKey counts requests per key, and per client address for requests
// without a valid key.
func rateKey(cfg audit.Config) httprate.KeyFunc {
	return func(r *http.Request) (string, error) {
		if p := auth.PrincipalFrom(r.Context()); p != nil {
			return string(p.Kind) + ":" + strconv.FormatInt(p.ActorID, 10), nil
		}
		return "ip:" + cfg.ClientIP(r), nil
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
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]any{ //nolint:errchkjson // the client went away: nothing to do
		"errors": []map[string]any{{"message": message, "extensions": map[string]any{"code": code}}},
		"data":   nil,
	})
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
