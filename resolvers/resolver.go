// Package resolvers is the one way into the domain: the GraphQL resolvers
// that both surfaces run. They check input, apply domain rules and call the
// storage functions of models; they never build SQL themselves.
package resolvers

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/events"
	"storeadmin/internal/media"
)

// Resolver holds what every resolver needs. It is built once, in
// cmd/storeadmin (through internal/server), with explicit dependencies.
type Resolver struct {
	DB  *bun.DB
	Now func() time.Time
	// AllowPrivateWebhooks lets subscriptions target loopback and private
	// addresses (tests and local development).
	AllowPrivateWebhooks bool
	// MCPEndpoint is the URL AI assistants connect to.
	MCPEndpoint string
	// Media keeps uploaded images and generated downloads.
	Media *media.Media
	// Events records the events of changes, in their transactions, for
	// delivery to webhook subscribers.
	Events *events.Engine
	// Render runs a persisted REST operation (rest/operations) through db
	// for the service itself acting in storeID, and returns its data: the
	// payload of an event is what the REST read of its record answers.
	Render func(db bun.IDB, storeID int64, op string, vars map[string]any) (json.RawMessage, error)
}
