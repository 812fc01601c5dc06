package models

import (
	"slices"
	"strings"

	"storeadmin/internal/base/apperr"
)

// ProviderKind is a kind of payment provider a store can add: what it is
// called, what its credentials are, and what it can do. The kinds are the
// service's, not the store's: a store adds at most one provider of each.
type ProviderKind struct {
	// Provider is the kind's name, the provider field of its records.
	Provider string
	// DisplayName is the name a new provider of the kind gets when none
	// is given.
	DisplayName string
	// CredentialFields are the names of its credentials, every one
	// required when credentials are saved; none: it takes no credentials
	// and has no API (manual payments).
	CredentialFields []string
	// BasicAuth: the provider's API takes the first two credentials as
	// HTTP Basic user and password; otherwise the first is a bearer token.
	BasicAuth bool
	// PaymentMethods are what shoppers pay with through it.
	PaymentMethods []string
	// CardFields: it can serve card fields embedded in the checkout, once
	// a probe of the account says it is eligible.
	CardFields bool
	// Webhooks: it sends events to the provider's webhook_url.
	Webhooks bool
	Features PaymentFeatures
}

// PaymentFeatures is what a kind of provider does with payments.
type PaymentFeatures struct {
	// DeferStoresCredential: a payment authorized later (a post-purchase
	// offer, a retried settlement) is charged to the credential the
	// provider kept at checkout, without asking the shopper again.
	DeferStoresCredential bool `json:"defer_stores_credential"`
	// HoldsFundsAtCheckout: checkout authorizes the amount and holds it
	// on the shopper's account until it is captured or released.
	HoldsFundsAtCheckout bool `json:"holds_funds_at_checkout"`
	// ManualCapture: an authorization can be captured later, by hand.
	ManualCapture bool `json:"manual_capture"`
	// Refunds: refunds go back through the provider.
	Refunds bool `json:"refunds"`
	// SettleRetryable: a failed capture can be tried again.
	SettleRetryable bool `json:"settle_retryable"`
	// Upsell: post-purchase offers can be charged through it.
	Upsell bool `json:"upsell"`
	// Wallets are the wallets it serves at checkout; each needs the
	// store's domains registered with the provider (wallet-domains).
	Wallets []string `json:"wallets"`
	// WebhookAutoreg: the service registers webhook_url with the provider
	// itself, when credentials are saved, and keeps the signing secret
	// the provider answers; other kinds are told the URL by the seller,
	// who saves the provider's secret here.
	WebhookAutoreg bool `json:"webhook_autoreg"`
}

// The payment provider kinds.
const (
	PaymentCard   = "card"
	PaymentWallet = "wallet"
	PaymentManual = "manual"
)

// ProviderKinds are the providers a store can add, in the order they are
// listed.
var ProviderKinds = []ProviderKind{
	{
		Provider: PaymentCard, DisplayName: "Credit and debit cards",
		CredentialFields: []string{"secret_key"},
		PaymentMethods:   []string{"card", "apple_pay", "google_pay"},
		CardFields:       true, Webhooks: true,
		Features: PaymentFeatures{
			DeferStoresCredential: true, HoldsFundsAtCheckout: true, ManualCapture: true, Refunds: true,
			SettleRetryable: true, Upsell: true, Wallets: []string{"apple_pay", "google_pay"}, WebhookAutoreg: true,
		},
	},
	{
		Provider: PaymentWallet, DisplayName: "Digital wallet",
		CredentialFields: []string{"client_id", "client_secret"}, BasicAuth: true,
		PaymentMethods: []string{"wallet"},
		Webhooks:       true,
		Features: PaymentFeatures{
			HoldsFundsAtCheckout: true, ManualCapture: true, Refunds: true, Wallets: []string{"wallet"},
		},
	},
	{
		Provider: PaymentManual, DisplayName: "Manual payments",
		PaymentMethods: []string{"bank_transfer", "cash_on_delivery"},
		Features:       PaymentFeatures{Wallets: []string{}},
	},
}

// ProviderKindOf is the kind named provider.
func ProviderKindOf(provider string) (*ProviderKind, error) {
	i := slices.IndexFunc(ProviderKinds, func(k ProviderKind) bool { return k.Provider == provider })
	if i < 0 {
		names := make([]string, len(ProviderKinds))
		for j, k := range ProviderKinds {
			names[j] = k.Provider
		}
		return nil, apperr.Invalidf("provider must be one of %s, not %q", strings.Join(names, ", "), provider)
	}
	return &ProviderKinds[i], nil
}

// HasAPI says whether the kind has an API the service calls (credentials
// to check, domains to register); manual payments have none.
func (k *ProviderKind) HasAPI() bool { return len(k.CredentialFields) > 0 }

// Capabilities is a provider's capabilities field: what the API does with
// a provider of the kind, for a dashboard to build its form from.
//
//	{"credential_fields": ["secret_key"],  the credentials to send
//	 "credentials_check": true,            POST /store/payment-providers/test
//	 "card_fields": true,                  PUT .../{id}/card-fields
//	 "wallet_domains": true,               POST .../{id}/wallet-domains
//	 "webhooks": true,                     it sends events to webhook_url
//	 "payment_methods": ["card", ...]}     what shoppers pay with
func (k *ProviderKind) Capabilities() map[string]any {
	return map[string]any{
		"credential_fields": append([]string{}, k.CredentialFields...),
		"credentials_check": k.HasAPI(),
		"card_fields":       k.CardFields,
		"wallet_domains":    len(k.Features.Wallets) > 0,
		"webhooks":          k.Webhooks,
		"payment_methods":   append([]string{}, k.PaymentMethods...),
	}
}
