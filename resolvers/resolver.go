// Package resolvers is the one way into the domain: the GraphQL resolvers
// that both surfaces run. They check input, apply domain rules and call the
// storage functions of models; they never build SQL themselves.
package resolvers

import (
	"time"

	"github.com/uptrace/bun"

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
}
