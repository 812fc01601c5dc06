package seed

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

func TestPaymentProviders(t *testing.T) {
	ctx := context.Background()
	db, _, storeID := newSeedStore(t)
	run := func() {
		t.Helper()
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return paymentProviders(ctx, tx, storeID, seedNow) }); err != nil {
			t.Fatal(err)
		}
	}
	run()
	got, err := models.ListPaymentProviders(ctx, db, storeID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Provider != models.PaymentCard || got[1].Provider != models.PaymentWallet || got[2].Provider != models.PaymentManual {
		t.Fatalf("providers: %+v", got)
	}
	testMode := 0
	for _, p := range got {
		if p.Mode == models.PaymentModeTest {
			testMode++
		}
		// No secret is seeded, and only what may be on without one is on.
		if p.CredentialsSealed != nil || p.WebhookSecretSealed != nil || p.WebhookRegistered {
			t.Errorf("%s: seeded with a secret", p.Provider)
		}
		kind, _ := models.ProviderKindOf(p.Provider)
		if p.Enabled && kind.HasAPI() {
			t.Errorf("%s is on without credentials", p.Provider)
		}
		if (p.WebhookPath != "") != kind.Webhooks {
			t.Errorf("%s: webhook path %q", p.Provider, p.WebhookPath)
		}
	}
	if testMode != 1 {
		t.Errorf("%d providers in test mode, want 1", testMode)
	}
	if got[0].WebhookPath == got[1].WebhookPath {
		t.Error("two providers share a webhook path")
	}

	// A second run adds nothing and changes nothing.
	run()
	again, err := models.ListPaymentProviders(ctx, db, storeID)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 3 || again[0].WebhookPath != got[0].WebhookPath {
		t.Errorf("second run: %+v", again)
	}
}
