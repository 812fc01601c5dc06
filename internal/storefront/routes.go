package storefront

import (
	"github.com/go-chi/chi/v5"

	"storeadmin/internal/previews"
	"storeadmin/internal/recovery"
	"storeadmin/models"
)

// routes is the surface's route table: every call of /storefront/v1, each
// with the handler that serves it. Add a call here and to the README's
// "Storefront surface" table.
func (s *service) routes(r chi.Router) {
	r.Get("/config", s.config)
	r.Post("/events", s.events)

	// Carts, checkouts, payment attempts, completion and forms.
	r.Post("/carts", s.createCart)
	r.Get("/carts/{token}", s.getCart)
	r.Put("/carts/{token}", s.updateCart)
	r.Post("/checkouts", s.createCheckout)
	r.Get("/checkouts/{token}", s.getCheckout)
	r.Put("/checkouts/{token}", s.updateCheckout)
	r.Get("/checkouts/{token}/shipping-rates", s.checkoutRates)
	r.Post("/checkouts/{token}/payment-attempts", s.createPaymentAttempt)
	r.Post("/checkouts/{token}/complete", s.completeCheckout)
	r.Post("/forms/{type}", s.submitForm)

	// A/B tests: the visitor's arms (experiments.go).
	r.Get(previews.ArmPath, s.experiments)

	// The post-purchase funnel a completed checkout runs (upsell.go).
	r.Get("/checkouts/{token}/upsell", s.getUpsell)
	r.Post("/checkouts/{token}/upsell/{position}/shown", s.answerUpsell(models.AnswerShown))
	r.Post("/checkouts/{token}/upsell/{position}/accept", s.answerUpsell(models.AnswerAccept))
	r.Post("/checkouts/{token}/upsell/{position}/decline", s.answerUpsell(models.AnswerDecline))
}

// signedRoutes are the calls whose signed token is the credential, not a
// key: the links of recovery reminders' emails, and preview tokens.
func (s *service) signedRoutes(r chi.Router) {
	r.Get(recovery.RecoverPath+"{token}", s.recover)
	r.Get(recovery.OptOutPath+"{token}", s.confirmOptOut)
	r.Post(recovery.OptOutPath+"{token}", s.optOut)
	r.Get(previews.ThemePath+"{token}", s.themePreview)
}

// The surface's limits, which GET /config tells a tracker.
const (
	// SessionIdleMinutes ends a visit: a visitor's event after this long without
	// one starts a new session.
	SessionIdleMinutes = 30
)
