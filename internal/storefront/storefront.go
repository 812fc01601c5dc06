// Package storefront is the storefront surface, /storefront/v1: what
// shoppers' browsers send the service. It is separate from the admin API
// and ingests only: browsing events, carts and checkouts by token, payment
// attempts, checkout completion and form submissions. Its credential is a
// publishable storefront key (sa_pub_...), which anyone can read from a
// store's pages, so nothing here answers admin data: a call answers at most
// what the browser itself sent and the prices the service worked out.
// Beside the keyed calls are the links of recovery emails (recover.go),
// which take no key: the signature in the link is their credential.
//
// The admin API never accepts a publishable key, and this surface never
// accepts a secret one (auth.Authenticator refuses both ways round).
package storefront

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/uptrace/bun"

	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/internal/base/geoip"
	"storeadmin/internal/placement"
	"storeadmin/internal/previews"
	"storeadmin/internal/recovery"
	"storeadmin/models"
)

// KeyHeader carries the publishable key. A browser's navigator.sendBeacon
// cannot set headers, so the key may come as the query parameter key
// instead.
const KeyHeader = "X-Storefront-Key"

// Config is what the surface needs.
type Config struct {
	DB    *bun.DB
	Now   func() time.Time
	Log   *slog.Logger
	Authn *auth.Authenticator
	// ClientIP is the shopper's address: the connection's, or a trusted
	// proxy's header's (audit.Config.ClientIP, the one rule of the service).
	ClientIP func(*http.Request) string
	// GeoIP resolves addresses to places; nil resolves nothing.
	GeoIP *geoip.DB
	// IPPolicy is how much of the address sessions keep.
	IPPolicy IPPolicy
	// Origins (scheme://host[:port]) may call the surface for every store,
	// besides each store's active domains (--storefront-origins).
	Origins []string
	// Limit is the per-address rate limit (a ratelimit.Limiter keyed by
	// ClientIP); nil: none.
	Limit func(http.Handler) http.Handler
	// Announce places a completed checkout's order and emits its events,
	// as mark-as-paid does.
	Announce placement.Announcer
	// Recovery serves the links of recovery emails (signedRoutes).
	Recovery *recovery.Service
	// Previews checks the preview tokens of themes (signedRoutes).
	Previews *previews.Signer
	// Platform is what the deployment allows every store: checkouts carry
	// the handling surcharge only when it allows surcharges.
	Platform models.Platform
}

// service is the surface's state, shared by its handlers.
type service struct {
	Config
}

// Handler serves the storefront surface; the server mounts it at
// /storefront/v1.
func Handler(cfg Config) http.Handler {
	s := &service{Config: cfg}
	if s.Limit == nil {
		s.Limit = func(next http.Handler) http.Handler { return next }
	}
	if s.IPPolicy == "" {
		s.IPPolicy = IPTruncated
	}
	r := chi.NewRouter()
	// The preflight comes first: it carries no key. The limiter counts
	// every other request, refused ones too, before the key is looked up.
	// The links of recovery emails carry a signature instead of a key.
	r.Use(failure.Mark(failure.REST), preflight, s.Limit)
	r.Group(func(r chi.Router) {
		r.Use(s.requireKey, s.admit)
		s.routes(r)
	})
	s.signedRoutes(r)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		failure.WriteREST(w, r, apperr.NotFoundf("there is nothing at %s on the storefront surface", r.URL.Path))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		failure.WriteREST(w, r, apperr.New(apperr.MethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path))
	})
	return r
}

// requireKey answers 401 unless the request carries an active publishable
// key, and puts its principal (the store) in the context.
func (s *service) requireKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret := r.Header.Get(KeyHeader)
		if secret == "" {
			secret = r.URL.Query().Get("key")
		}
		p, err := s.Authn.AuthenticateStorefront(r.Context(), secret)
		if err != nil {
			if r.Context().Err() != nil {
				return // the client hung up
			}
			failure.WriteREST(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), p)))
	})
}
