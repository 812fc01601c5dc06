package seed

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/abandonment"
)

// abandoned flags the seeded carts and checkouts their shoppers left, as
// the abandonment job would have by the seed's clock: the same domain
// function, with the store's policy. No events are emitted (the seed has
// no events engine; a subscriber hears of carts abandoned from now on).
// Flagging is once per cart, so a second run flags nothing more.
func abandoned(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	_, err := abandonment.Store(ctx, tx, nil, storeID, now)
	return err
}
