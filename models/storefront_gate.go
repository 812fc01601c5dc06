package models

import (
	"context"

	"github.com/uptrace/bun"
)

// Gate is what the storefront surface checks of a store before it takes
// a call.
type Gate struct {
	// Open: the store is not closed and its storefront is on.
	Open bool `bun:"open"`
	// DomainActive: the host asked about is one of its active domains.
	DomainActive bool `bun:"domain_active"`
}

// StorefrontGate reads the gate of the store for host (empty: no host), in
// one statement.
func StorefrontGate(ctx context.Context, db bun.IDB, storeID int64, host string) (Gate, error) {
	var g Gate
	err := db.NewRaw(`SELECT s.status <> ? AND s.storefront_enabled AS open,
       ? <> '' AND EXISTS (SELECT 1 FROM domains d WHERE d.store_id = s.id AND d.hostname = ? AND d.status = 'active') AS domain_active
FROM stores s WHERE s.id = ?`, StoreClosed, host, host, storeID).Scan(ctx, &g)
	return g, err
}
