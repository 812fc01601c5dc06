package storefront

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/models"
)

// The surface's CORS policy, its own (the admin API's lets every origin
// in). A preflight carries no key, so it cannot name a store: it is
// granted to any origin, for the methods and headers the surface takes and
// nothing else. The real request then carries the key, and its Origin must
// be one of the key's store's active domains or a configured origin (admit).
const (
	corsMethods = "GET, POST"
	corsHeaders = "Content-Type, " + KeyHeader
	corsExposed = "Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset"
	corsMaxAge  = "600"
)

// preflight answers a CORS preflight (OPTIONS with Origin and
// Access-Control-Request-Method) with 204.
func preflight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodOptions || r.Header.Get("Origin") == "" || r.Header.Get("Access-Control-Request-Method") == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
		h.Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		h.Set("Access-Control-Allow-Methods", corsMethods)
		h.Set("Access-Control-Allow-Headers", corsHeaders)
		h.Set("Access-Control-Max-Age", corsMaxAge)
		w.WriteHeader(http.StatusNoContent)
	})
}

// admit lets a keyed request in when the store takes storefront calls (not
// closed, storefront on: 403 otherwise) and its Origin, when it has one,
// may call for the store (403 otherwise). A request without Origin is no
// browser's cross-origin call: CORS does not apply to it.
func (s *service) admit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		host, known := s.originHost(origin)
		gate, err := models.StorefrontGate(r.Context(), s.DB, auth.PrincipalFrom(r.Context()).StoreID, host)
		if err != nil {
			failure.WriteREST(w, r, err)
			return
		}
		if origin != "" {
			w.Header().Add("Vary", "Origin")
			if !known && !gate.DomainActive {
				failure.WriteREST(w, r, apperr.Forbiddenf("the origin %s may not call this store's storefront surface: it is not one of the store's active domains nor a configured origin", strconv.Quote(origin)))
				return
			}
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Set("Access-Control-Expose-Headers", corsExposed)
		}
		if !gate.Open {
			failure.WriteREST(w, r, apperr.Forbiddenf("this store's storefront is switched off (or the store is closed): it takes no storefront calls"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originHost is the host name of origin to look up among the store's
// domains, and whether origin is a configured one already.
func (s *service) originHost(origin string) (host string, configured bool) {
	if origin == "" {
		return "", false
	}
	norm := strings.TrimSuffix(strings.ToLower(origin), "/")
	for _, o := range s.Origins {
		if strings.TrimSuffix(strings.ToLower(o), "/") == norm {
			return "", true
		}
	}
	u, err := url.Parse(norm)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Port() != "" {
		return "", false // a store's domains serve on the standard ports
	}
	return u.Hostname(), false
}
