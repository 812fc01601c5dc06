// Package server assembles the HTTP service: middleware (request id, access
// log and metrics, recovery, principal, rate limit, audit, idempotency), POST
// /graphql, the playground and the REST adapter under /api/v1 with its
// OpenAPI document and reference page, all on one GraphQL executor, with the
// health probes and GET /metrics beside them.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/go-chi/cors"
	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/graph/playground"
	"storeadmin/internal/audit"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/accesslog"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/internal/base/geoip"
	"storeadmin/internal/base/jsonbody"
	"storeadmin/internal/base/metrics"
	"storeadmin/internal/base/requestid"
	"storeadmin/internal/billing"
	"storeadmin/internal/domains"
	"storeadmin/internal/events"
	"storeadmin/internal/idempotency"
	"storeadmin/internal/loaders"
	"storeadmin/internal/media"
	"storeadmin/internal/payments"
	"storeadmin/internal/placement"
	"storeadmin/internal/previews"
	"storeadmin/internal/ratelimit"
	"storeadmin/internal/recovery"
	"storeadmin/internal/storefront"
	"storeadmin/models"
	"storeadmin/resolvers"
	"storeadmin/rest"
	"storeadmin/rest/openapi"
	"storeadmin/rest/reference"
)

// DefaultRateLimit is the requests per key per minute when none is set.
const DefaultRateLimit = 600

// DefaultStorefrontRateLimit is the storefront surface's requests per
// shopper address per minute when none is set: a tracker sends a batch
// every few seconds at most, and a shop's visitors behind one office or
// carrier NAT share an address.
const DefaultStorefrontRateLimit = 300

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
	// Payments reaches the payment providers' API and seals their
	// credentials (--payments-api-url, --secrets-key); nil: neither.
	Payments *payments.Gateway
	// Domains checks stores' custom domains (required); its periodic
	// check runs as Work of Events, given it by whoever built both.
	Domains *domains.Service
	// Billing is the billing provider that saves the cards stores pay
	// their plan with; nil: billing is not configured.
	Billing *billing.Provider
	// Recovery sends recovery reminders (resend) and serves their links
	// on the storefront surface (required); its sequence runs as Work of
	// Events, given it by whoever built both.
	Recovery *recovery.Service
	// GraphQLTimeout bounds the execution of one GraphQL operation, on
	// both surfaces; 0 is limits.DefaultTimeout.
	GraphQLTimeout time.Duration
	// EventsRetention is how long storefront browsing events are kept
	// (retention.Work purges the older ones, given to Events by whoever
	// built both); activity logs read it to say what was purged. 0: for
	// ever.
	EventsRetention time.Duration
	// Metrics counts requests, refusals and deliveries (Events and the
	// rate limiter must count into the same one); New adds the database
	// pool and the webhook queue's depth to it. Nil: nothing is counted.
	Metrics *metrics.Metrics
	// StorefrontRateLimit is the storefront surface's requests per shopper
	// address per minute; 0 is DefaultStorefrontRateLimit.
	StorefrontRateLimit int
	// StorefrontOrigins may call the storefront surface for every store,
	// besides each store's active domains (--storefront-origins).
	StorefrontOrigins []string
	// GeoIP resolves shoppers' addresses to places (the storefront's
	// ingestion) and, when it gives coordinates, puts them on the live
	// view's map; nil resolves nothing.
	GeoIP *geoip.DB
	// StorefrontIP is how much of a shopper's address sessions keep.
	StorefrontIP storefront.IPPolicy
	// MetricsElsewhere leaves GET /metrics off this handler: the caller
	// serves Metrics.Handler() on an address of its own (--metrics-addr).
	MetricsElsewhere bool
	// Platform is what the deployment allows every store (--surcharges):
	// the pp15 endpoints answer it and storefront checkouts are priced
	// with it.
	Platform models.Platform
	// Previews signs preview tokens (the admin surface) and checks them
	// (the storefront surface); required.
	Previews *previews.Signer
}

// Server is the assembled service.
type Server struct {
	handler     http.Handler
	limiter     *ratelimit.Limiter
	shopLimiter *ratelimit.Limiter
	authn       *auth.Authenticator
}

// New wires the service on db. now is the clock of every resolver.
func New(db *bun.DB, cfg Config, log *slog.Logger, now func() time.Time) (*Server, error) {
	if cfg.RateLimit <= 0 {
		cfg.RateLimit = DefaultRateLimit
	}
	if cfg.StorefrontRateLimit <= 0 {
		cfg.StorefrontRateLimit = DefaultStorefrontRateLimit
	}
	if cfg.Domains == nil {
		return nil, errors.New("server: no custom domain service (Config.Domains)")
	}
	if cfg.Recovery == nil {
		return nil, errors.New("server: no recovery service (Config.Recovery)")
	}
	if cfg.Previews == nil {
		return nil, errors.New("server: no preview token signer (Config.Previews)")
	}
	log = slog.New(requestid.LogHandler(log.Handler())) // every line of a request names it
	res := &resolvers.Resolver{
		DB:                   db,
		Now:                  now,
		AllowPrivateWebhooks: cfg.AllowPrivateWebhooks,
		MCPEndpoint:          strings.TrimSuffix(cfg.PublicURL, "/") + "/mcp",
		PublicURL:            strings.TrimSuffix(cfg.PublicURL, "/"),
		Payments:             cfg.Payments,
		Media:                cfg.Media,
		Events:               cfg.Events,
		Domains:              cfg.Domains,
		Billing:              cfg.Billing,
		EventsRetention:      cfg.EventsRetention,
		Recovery:             cfg.Recovery,
		GeoCoordinates:       cfg.GeoIP.Locates(),
		Platform:             cfg.Platform,
		Previews:             cfg.Previews,
	}
	exec := graph.NewExecutor(res, log, cfg.GraphQLTimeout)
	exec.Use(audit.Extension{})
	adapter, err := rest.New(exec, graph.Schema(), rest.Routes, cfg.Media)
	if err != nil {
		return nil, err
	}
	orderRead, err := adapter.ReadOf("/store/orders/{id}")
	if err != nil {
		return nil, err
	}
	res.OrderView = func(ctx context.Context, tx bun.IDB, storeID, orderID int64) (json.RawMessage, error) {
		return orderRead(asService(ctx, tx, storeID), map[string]any{"id": orderID})
	}

	limiter, err := ratelimit.New(ratelimit.Config{Limit: cfg.RateLimit, RedisURL: cfg.RedisURL, Key: rateKey(cfg.Audit), Log: log, Metrics: cfg.Metrics})
	if err != nil {
		return nil, err
	}
	// The storefront's budget is per shopper address, not per key: one
	// publishable key serves every visitor of a store.
	shopLimiter, err := ratelimit.New(ratelimit.Config{Limit: cfg.StorefrontRateLimit, RedisURL: cfg.RedisURL,
		Key: func(r *http.Request) string { return "storefront:" + cfg.Audit.ClientIP(r) }, Log: log, Metrics: cfg.Metrics})
	if err != nil {
		limiter.Close()
		return nil, err
	}
	authn := auth.NewAuthenticator(db, now, log)

	r := chi.NewRouter()
	// Each surface has its own CORS policy: the storefront's (its Handler)
	// lets in only its stores' domains, so the admin one skips it.
	r.Use(requestid.Middleware, accesslog.Middleware(log, cfg.Metrics), recoverer(log), except(storefrontPrefix, corsPolicy()))
	r.Get("/healthz", alive)
	r.Get("/readyz", ready(db))
	if cfg.Metrics != nil {
		// One service per Metrics: replicas in one process (tests) each
		// have their own, as replicas in their own processes do.
		if err := cfg.Metrics.Database(db.DB, "storeadmin"); err != nil {
			return nil, fmt.Errorf("metrics: the pool: %w", err)
		}
		if cfg.Events != nil {
			if err := cfg.Metrics.QueueDepth(cfg.Events.QueueDepth); err != nil {
				return nil, fmt.Errorf("metrics: the queue depth: %w", err)
			}
		}
		if !cfg.MetricsElsewhere {
			r.Get("/metrics", cfg.Metrics.Handler().ServeHTTP)
		}
	}
	// The REST surface's OpenAPI document and its reference page need no
	// key: they say what a key opens. Static routes, before /api/v1/*.
	spec, err := openapi.Handler(graph.Schema(), rest.Routes)
	if err != nil {
		return nil, err
	}
	r.Get("/api/v1"+openapi.Path, spec.ServeHTTP)
	docs := reference.Handler("storeadmin REST API", "/api/v1"+openapi.Path, "/api/v1"+openapi.DocsPath+"/assets/")
	r.Get("/api/v1"+openapi.DocsPath, docs.ServeHTTP)
	r.Get("/api/v1"+openapi.DocsPath+"/assets/*", docs.ServeHTTP)
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
	// Both surfaces: the key (a request without one is refused, after the
	// limiter has counted it), the one rate limit, the audit log and
	// idempotency (inside audit: a replayed or refused retry is still
	// recorded, as a request that wrote nothing). Each surface marks its
	// requests first, so that every refusal on the way is written in its
	// shape.
	idem := idempotency.Config{Now: now, Log: log}
	keyed := func(r chi.Router, surface failure.Surface, as audit.Surface) {
		r.Use(failure.Mark(surface), identify(authn, log), limiter.Handler, requireKey(db),
			audit.Middleware(db, cfg.Audit, as, log), idempotency.Middleware(db, idem, as))
	}
	r.Group(func(r chi.Router) {
		keyed(r, failure.GraphQL, audit.GraphQL)
		r.Post("/graphql", failure.GraphQLStatus(graphqlHandler(exec)).ServeHTTP)
	})
	r.Route("/api/v1", func(r chi.Router) {
		keyed(r, failure.REST, audit.REST)
		adapter.Mount(r)
	})
	// Shoppers' browsers: publishable keys, ingestion only.
	r.Mount(storefrontPrefix, storefront.Handler(storefront.Config{DB: db, Now: now, Log: log, Authn: authn,
		ClientIP: cfg.Audit.ClientIP, GeoIP: cfg.GeoIP, IPPolicy: cfg.StorefrontIP, Origins: cfg.StorefrontOrigins,
		Limit:    shopLimiter.Handler,
		Announce: placement.Announcer{Events: res.Events, OrderView: res.OrderView},
		Recovery: cfg.Recovery, Previews: cfg.Previews, Platform: cfg.Platform}))
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		failure.WriteREST(w, r, apperr.NotFoundf("there is nothing at %s; the API lives under /api/v1 and /graphql", r.URL.Path))
	})
	return &Server{handler: r, limiter: limiter, shopLimiter: shopLimiter, authn: authn}, nil
}

// ServeHTTP serves the whole service.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Close releases what the service holds beyond the pool: the API key
// listener's connection and the rate limiter's Redis connections.
func (s *Server) Close() error {
	s.authn.Close()
	return errors.Join(s.limiter.Close(), s.shopLimiter.Close())
}

// storefrontPrefix is where the storefront surface is mounted.
const storefrontPrefix = "/storefront/v1"

// except applies mw to every request but those under prefix.
func except(prefix string, mw func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		wrapped := mw(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == prefix || strings.HasPrefix(r.URL.Path, prefix+"/") {
				next.ServeHTTP(w, r)
				return
			}
			wrapped.ServeHTTP(w, r)
		})
	}
}

// asService is the context of a read the service makes for itself in
// storeID (an event's payload) through tx: the system principal, and
// resolvers and loaders reading through tx. Nothing of the request that
// caused it carries over (its operation, audit entry and loaders would
// leak into the read), only its deadline and cancellation. gqlgen passes
// resolvers nothing but a context, so this is where tx has to go.
func asService(ctx context.Context, tx bun.IDB, storeID int64) context.Context {
	c := auth.WithPrincipal(resolvers.WithDB(cancelOnly{ctx}, tx), auth.System(storeID))
	return loaders.With(c, loaders.New(tx, storeID))
}

// cancelOnly is ctx's deadline and cancellation without its values.
type cancelOnly struct{ context.Context }

func (cancelOnly) Value(any) any { return nil }

// corsPolicy lets browser dashboards on any origin call the API. Keys travel
// in the Authorization header, never in cookies, so no origin gains anything
// it could not do without a browser.
func corsPolicy() func(http.Handler) http.Handler {
	return cors.Handler(cors.Options{
		AllowedOrigins: []string{"*"},
		AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
		AllowedHeaders: []string{"Authorization", "Content-Type", "Idempotency-Key", requestid.Header},
		ExposedHeaders: []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "Content-Disposition", idempotency.ReplayedHeader, requestid.Header},
		MaxAge:         600,
	})
}

// graphqlHandler serves POST /graphql (JSON and GraphQL multipart bodies).
// A JSON body is read and answered here (serveJSON), not by gqlgen's
// transport, which reads without a limit, answers a body that is not one
// operation (a batch array, a "query" that is not a string) as an internal
// error, and quotes the body in the error it logs. Multipart bodies keep
// their own limits (serveMultipart).
func graphqlHandler(exec *executor.Executor) http.HandlerFunc {
	post := transport.POST{}
	multipart := transport.MultipartForm{MaxUploadSize: 64 << 20, MaxMemory: 32 << 20}
	return func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(graphql.StartOperationTrace(r.Context()))
		switch {
		case multipart.Supports(r):
			serveMultipart(w, r, multipart, exec)
		case post.Supports(r):
			start := graphql.Now()
			params, err := readGraphQLBody(r)
			if err != nil {
				failure.Write(w, r, err)
				return
			}
			params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
			serveJSON(w, r, exec, params)
		default:
			failure.Write(w, r, apperr.New(apperr.UnsupportedMediaType, "send a JSON body with Content-Type: application/json"))
		}
	}
}

// readGraphQLBody reads a JSON body that holds one GraphQL request: an
// object whose query is a string, whose variables an object, ...
func readGraphQLBody(r *http.Request) (*graphql.RawParams, error) {
	raw, err := jsonbody.Read(r)
	if err != nil {
		return nil, err
	}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, apperr.New(apperr.BadRequest, "batched operations are not supported: send one JSON object per request")
	}
	params := &graphql.RawParams{Headers: r.Header}
	if err := jsonbody.Decode(raw, params); err != nil {
		return nil, err
	}
	if strings.TrimSpace(params.Query) == "" {
		return nil, apperr.New(apperr.BadRequest, `the request body must be a JSON object with a "query" string`)
	}
	return params, nil
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
				if ctx.Err() != nil {
					return // the client hung up: nobody reads an answer
				}
				if apperr.CodeOf(err) == apperr.Internal {
					log.ErrorContext(ctx, "authenticate", "error", err)
					failure.Write(w, r, err)
					return
				}
				ctx = context.WithValue(ctx, authErrKey{}, err)
			} else {
				ctx = auth.WithPrincipal(ctx, p)
				if p.Kind == auth.KindAPIKey || p.Kind == auth.KindMCPKey {
					accesslog.SetKey(ctx, p.ActorID)
				}
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
				err, ok := r.Context().Value(authErrKey{}).(error)
				if !ok {
					err = apperr.New(apperr.Unauthenticated, "an API key is required: send Authorization: Bearer <key>")
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="storeadmin"`)
				failure.Write(w, r, err)
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
					failure.Write(w, r, apperr.New(apperr.Internal, "internal server error"))
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}
