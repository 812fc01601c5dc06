package models

import (
	"time"

	"github.com/uptrace/bun"
)

// Post-purchase funnels at run time (migration 20261124190000): a run is
// one shopper's pass through an upsell funnel between the authorization of
// a checkout's payment and its capture; an offer is one step the run
// reached and what the shopper did with it.

// The states of a run.
const (
	RunRunning   = "running"
	RunCompleted = "completed" // the shopper reached the end of the funnel
	RunTimedOut  = "timed_out" // no answer within the funnel's timeout
	RunCancelled = "cancelled" // the order was cancelled while it ran
)

// The states of an offer.
const (
	OfferPending     = "pending" // reached, not yet reported shown
	OfferShown       = "shown"   // shown and, so far, unanswered: undecided
	OfferAccepted    = "accepted"
	OfferDeclined    = "declined"
	OfferUnavailable = "unavailable" // its product could not be sold when reached
)

// FunnelRun is one run of a funnel, behind one order.
type FunnelRun struct {
	bun.BaseModel `bun:"table:funnel_runs,alias:fr"`

	ID            int64  `bun:"id,pk,autoincrement"`
	StoreID       int64  `bun:"store_id"`
	OrderID       int64  `bun:"order_id"`
	CheckoutID    *int64 `bun:"checkout_id"`
	TransactionID int64  `bun:"transaction_id"`
	// The funnel and zone as they were when the run entered; the ids go
	// null when they are deleted, the names stay.
	FunnelID        *int64     `bun:"funnel_id"`
	FunnelName      string     `bun:"funnel_name"`
	ZoneID          *int64     `bun:"zone_id"`
	ZoneName        string     `bun:"zone_name"`
	Status          string     `bun:"status"`
	CurrentPosition *int64     `bun:"current_position"`
	EnteredAt       time.Time  `bun:"entered_at"`
	ExpiresAt       time.Time  `bun:"expires_at"`
	EndedAt         *time.Time `bun:"ended_at"`
	SurchargeCents  int64      `bun:"surcharge_cents"`
}

// FunnelRunOffer is one step a run reached.
type FunnelRunOffer struct {
	bun.BaseModel `bun:"table:funnel_offers,alias:fo"`

	ID          int64      `bun:"id,pk,autoincrement"`
	StoreID     int64      `bun:"store_id"`
	RunID       int64      `bun:"run_id"`
	StepID      *int64     `bun:"step_id"`
	Position    int64      `bun:"position"`
	StepName    string     `bun:"step_name"`
	ProductID   *int64     `bun:"product_id"`
	VariantID   *int64     `bun:"variant_id"`
	Status      string     `bun:"status"`
	ReachedAt   time.Time  `bun:"reached_at"`
	ShownAt     *time.Time `bun:"shown_at"`
	DecidedAt   *time.Time `bun:"decided_at"`
	LineItemID  *int64     `bun:"line_item_id"`
	Quantity    int64      `bun:"quantity"`
	AmountCents int64      `bun:"amount_cents"`
	ChargedAt   *time.Time `bun:"charged_at"`
}
