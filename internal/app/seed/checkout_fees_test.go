package seed

import (
	"context"
	"reflect"
	"testing"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// TestCheckoutFees: the demo surcharge and tipping, as the API answers
// them; seeding again keeps what a person set since.
func TestCheckoutFees(t *testing.T) {
	ctx := context.Background()
	db, _, storeID := newSeedStore(t)
	run := func() {
		t.Helper()
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return checkoutFees(ctx, tx, storeID, seedNow) }); err != nil {
			t.Fatal(err)
		}
	}
	run()
	pp15, tipping, err := models.EffectiveFees(ctx, db, storeID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pp15 != demoPP15 || !reflect.DeepEqual(tipping, demoTipping) {
		t.Fatalf("seeded %+v %+v", pp15, tipping)
	}
	if _, err := models.CheckTipping(tipping); err != nil {
		t.Fatalf("the demo tipping does not pass the API's checks: %v", err)
	}
	// A person turns the surcharge off; the next seed leaves it off.
	if err := models.SetStorePP15(ctx, db, storeID, models.PP15Config{}, models.Platform{}); err != nil {
		t.Fatal(err)
	}
	run()
	if pp15, _, _ := models.EffectiveFees(ctx, db, storeID, nil); pp15.Active {
		t.Fatalf("seeding again changed a person's surcharge: %+v", pp15)
	}
}
