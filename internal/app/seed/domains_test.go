package seed

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// TestDomains seeds two domains, the primary connected and the other
// pending, and a second seed adds nothing.
func TestDomains(t *testing.T) {
	ctx := context.Background()
	db, _, storeID := newSeedStore(t)
	run := func() {
		t.Helper()
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return domains(ctx, tx, storeID, seedNow) }); err != nil {
			t.Fatal(err)
		}
	}
	run()
	list, err := models.ListDomains(ctx, db, storeID, models.Paging{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d domains", len(list))
	}
	www, shop := list[0], list[1]
	if www.Hostname != "www.demo-outfitters.example" || !www.IsPrimary || www.Status != models.DomainActive || www.SSLStatus != models.SSLReady ||
		www.VerifiedAt == nil || www.DNSCheck == nil || www.DNSCheck.State != models.DNSPointed || www.LastError != "" {
		t.Errorf("the primary: %+v", www)
	}
	if shop.Hostname != "shop.demo-outfitters.example" || shop.IsPrimary || shop.Status != models.DomainPending || shop.DNSCheck != nil || shop.VerificationToken == "" {
		t.Errorf("the pending one: %+v", shop)
	}
	run()
	if n, err := models.CountDomains(ctx, db, storeID); err != nil || n != 2 {
		t.Fatalf("after a second seed: %d domains, %v", n, err)
	}
}
