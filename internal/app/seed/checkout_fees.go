package seed

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// The demo store's handling surcharge and tipping, written by the
// functions the API's PUTs call (models.SetStorePP15, SetStoreTipping):
// a 1.5% handling surcharge of at most 5.00, and tips of 10, 15 (chosen
// at first) or 20% of the goods, or the shopper's own up to 30%. The
// storefront checkouts seeded after it are priced with both.
var (
	demoPP15    = models.PP15Config{Active: true, ValueBps: 150, CapCents: 500}
	demoTipping = models.TippingConfig{
		Enabled: true, Mode: ptr(models.TipPercentage), Label: ptr("Thank the team"),
		Description: ptr("Every tip goes to the people who pick, pack and ship your order."),
		Presets:     []int64{10, 15, 20}, DefaultPreset: ptr(int64(15)), AllowCustom: true, MaxPercent: ptr(int64(30)),
	}
)

// checkoutFees sets the demo surcharge and tipping, unless the store has
// its own (a person's, or an earlier seed's: left as they are). The
// surcharge is set for the default deployment, which allows surcharges.
func checkoutFees(ctx context.Context, tx bun.Tx, storeID int64, _ time.Time) error {
	set, err := tx.NewSelect().Table("checkout_settings").Where("store_id = ?", storeID).Exists(ctx)
	if err != nil || set {
		return err
	}
	if err := models.SetStorePP15(ctx, tx, storeID, demoPP15, models.Platform{}); err != nil {
		return err
	}
	_, err = models.SetStoreTipping(ctx, tx, storeID, demoTipping)
	return err
}
