// Package resolvers holds the GraphQL resolvers that both surfaces (POST
// /graphql and the REST adapter) run. A resolver checks the client's input
// (lengths, required fields, allowed values, what a request must name),
// calls models in one transaction (storage, and the rules every caller
// shares: models.PlaceOrder, models.RefundOrder, ...), and emits the
// change's events, whose payload is the REST detail view. Resolvers never
// build SQL.
//
// This is the API's way into the domain, not the only one: the command
// line, the seed, the event outbox and the audit log call models directly.
// That is why a rule every caller must keep lives in models, not here.
package resolvers

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/billing"
	"storeadmin/internal/domains"
	"storeadmin/internal/events"
	"storeadmin/internal/media"
	"storeadmin/internal/payments"
	"storeadmin/internal/previews"
	"storeadmin/internal/recovery"
	"storeadmin/models"
)

// Resolver holds what every resolver needs. It is built once, in
// cmd/storeadmin (through internal/app/server), with explicit dependencies.
type Resolver struct {
	DB  *bun.DB
	Now func() time.Time
	// AllowPrivateWebhooks lets subscriptions target loopback and private
	// addresses (tests and local development).
	AllowPrivateWebhooks bool
	// MCPEndpoint is the URL AI assistants connect to.
	MCPEndpoint string
	// PublicURL is the service's public base URL, without a trailing
	// slash: payment providers' webhook URLs start with it.
	PublicURL string
	// Payments calls the payment providers' API and seals the secrets
	// their records keep; nil: no API and no secrets key.
	Payments *payments.Gateway
	// Media keeps uploaded images and generated downloads.
	Media *media.Media
	// Domains checks custom domains: the hostnames a store may add, the
	// DNS records they need, and looking those up (verifyDomain).
	Domains *domains.Service
	// Billing is the billing provider that saves the cards stores pay
	// their plan with; nil: billing is not configured.
	Billing *billing.Provider
	// Recovery sends abandoned carts' and checkouts' recovery reminders
	// (resend); the sequence runs as Work of Events.
	Recovery *recovery.Service
	// Events records the events of changes, in their transactions, for
	// delivery to webhook subscribers.
	Events *events.Engine
	// GeoCoordinates says the server's geo database places shoppers on
	// the map (geoip.DB.Locates): the live view's geo_enabled, and whether
	// it shows pins.
	GeoCoordinates bool
	// EventsRetention is how long storefront browsing events are kept
	// (serve --events-retention); activity logs say purged when a
	// session began before it. 0: kept for ever.
	EventsRetention time.Duration
	// OrderView is what GET /store/orders/{id} answers for the order,
	// read through tx (the transaction of a change, so it shows the
	// change): the payload of an order's events. It is the REST read
	// itself, run in-process (internal/app/server wires it), so the event and
	// the read cannot drift.
	OrderView func(ctx context.Context, tx bun.IDB, storeID, orderID int64) (json.RawMessage, error)
	// Platform is what the deployment allows every store (serve
	// --surcharges): the pp15 endpoints' platform and their 409.
	Platform models.Platform
	// Previews signs the preview tokens of themes, which the storefront
	// surface checks.
	Previews *previews.Signer
}
