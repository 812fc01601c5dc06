package storefront

import (
	"github.com/go-chi/chi/v5"

	"storeadmin/internal/recovery"
)

// routes is the surface's route table: every call of /storefront/v1, each
// with the handler that serves it. Add a call here and to the README's
// "Storefront surface" table.
func (s *service) routes(r chi.Router) {
	r.Get("/config", s.config)
}

// signedRoutes are the calls a link in an email makes: no key, the
// signature in the link is the credential (recovery reminders' links).
func (s *service) signedRoutes(r chi.Router) {
	r.Get(recovery.RecoverPath+"{token}", s.recover)
	r.Get(recovery.OptOutPath+"{token}", s.confirmOptOut)
	r.Post(recovery.OptOutPath+"{token}", s.optOut)
}

// The surface's limits, which GET /config tells a tracker.
const (
	// SessionIdleMinutes ends a visit: a visitor's event after this long without
	// one starts a new session.
	SessionIdleMinutes = 30
)
