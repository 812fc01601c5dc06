package seed

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// demoPaymentProviders are the demo store's gateways: a card processor in
// test mode, a digital wallet, and manual payments, the one turned on. No
// credentials: the seed has no secrets key and calls no provider, and a
// provider that takes credentials is turned on only once they are saved
// (the API's rule), so the card and wallet providers wait, off, for a
// person's keys.
var demoPaymentProviders = []models.PaymentProvider{
	{
		Provider: models.PaymentCard, DisplayName: "Credit and debit cards", Mode: models.PaymentModeTest,
		PublicID: "pk_test_demo_outfitters", PublicConfig: map[string]any{"statement_descriptor": "DEMO OUTFITTERS"},
	},
	{
		Provider: models.PaymentWallet, DisplayName: "Digital wallet", Mode: models.PaymentModeLive,
		PublicID: "client-demo-outfitters", PublicConfig: map[string]any{"button_color": "gold"},
	},
	{
		Provider: models.PaymentManual, DisplayName: "Bank transfer", Mode: models.PaymentModeLive, Enabled: true,
		PublicConfig: map[string]any{"instructions": "Pay to IBAN DE89 3704 0044 0532 0130 00 within 7 days, quoting your order number."},
	},
}

func paymentProviders(ctx context.Context, tx bun.Tx, storeID int64, _ time.Time) error {
	have, err := models.ListPaymentProviders(ctx, tx, storeID)
	if err != nil || len(have) > 0 {
		return err // set up by a person or an earlier seed: left as it is
	}
	for _, p := range demoPaymentProviders {
		kind, err := models.ProviderKindOf(p.Provider)
		if err != nil {
			return err
		}
		p.StoreID = storeID
		p.WebhookPath = kind.NewWebhookPath()
		if err := models.InsertPaymentProvider(ctx, tx, &p); err != nil {
			return err
		}
	}
	return nil
}
