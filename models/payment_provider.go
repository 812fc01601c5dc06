package models

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Payment provider modes: live takes real payments, test takes the
// provider's test cards and wallets only.
const (
	PaymentModeLive = "live"
	PaymentModeTest = "test"
)

// PaymentProvider is a payment gateway of a store: one of ProviderKinds,
// with its settings. Its credentials and webhook secret are kept sealed
// (the resolvers seal them with the service's secrets key); the record
// holds no secret in clear and its JSON names none.
type PaymentProvider struct {
	bun.BaseModel `bun:"table:payment_providers,alias:pp"`

	ID           int64  `bun:"id,pk,autoincrement" json:"id"`
	StoreID      int64  `bun:"store_id" json:"-"`
	Provider     string `bun:"provider" json:"provider"`
	DisplayName  string `bun:"display_name" json:"display_name"`
	Mode         string `bun:"mode" json:"mode"`
	Enabled      bool   `bun:"enabled" json:"enabled"`
	PublicID     string `bun:"public_id" json:"public_id"`
	PublicConfig any    `bun:"public_config,type:jsonb" json:"public_config"`
	// CredentialsSealed is the credentials' JSON object, sealed; nil: none
	// saved.
	CredentialsSealed []byte `bun:"credentials_sealed" json:"-"`
	// WebhookSecretSealed is the secret the provider signs its events
	// with, sealed; nil: none saved.
	WebhookSecretSealed []byte `bun:"webhook_secret_sealed" json:"-"`
	// WebhookPath is where, under the service's public URL, the provider
	// sends its events; empty for a kind that sends none.
	WebhookPath        string     `bun:"webhook_path" json:"webhook_path"`
	WebhookRegistered  bool       `bun:"webhook_registered" json:"webhook_registered"`
	CardFieldsEnabled  bool       `bun:"card_fields_enabled" json:"-"`
	CardFieldsEligible bool       `bun:"card_fields_eligible" json:"-"`
	CardFieldsProbedAt *time.Time `bun:"card_fields_probed_at" json:"-"`
	CreatedAt          time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt          time.Time  `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// PaymentWebhookPrefix starts every provider's webhook path.
const PaymentWebhookPrefix = "/payments/webhooks/"

// NewWebhookPath is the webhook path of a new provider of the kind: 24
// random bytes, so that nobody can guess where a store's provider sends
// its events; empty for a kind that sends none.
func (k *ProviderKind) NewWebhookPath() string {
	if !k.Webhooks {
		return ""
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic("no randomness: " + err.Error()) // crypto/rand does not fail on supported systems
	}
	return PaymentWebhookPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// CardFields is a provider's card fields: whether its kind serves them,
// whether the account is eligible (as its last probe said) and whether
// the checkout shows them.
type CardFields struct {
	Eligible  bool   `json:"eligible"`
	Enabled   bool   `json:"enabled"`
	Probed    bool   `json:"probed"`
	ProbedAt  string `json:"probed_at"`
	Supported bool   `json:"supported"`
}

// CardFieldsOf is p's card fields; probed_at is RFC 3339 in UTC, empty
// before the first probe.
func CardFieldsOf(p *PaymentProvider, kind *ProviderKind) CardFields {
	c := CardFields{Eligible: p.CardFieldsEligible, Enabled: p.CardFieldsEnabled, Supported: kind.CardFields}
	if p.CardFieldsProbedAt != nil {
		c.Probed, c.ProbedAt = true, p.CardFieldsProbedAt.UTC().Format(time.RFC3339)
	}
	return c
}

// WalletDomain is one of the store's domains as a provider sees it: whether
// it is registered with the provider for wallet payments.
type WalletDomain struct {
	ProviderID int64  `bun:"provider_id" json:"-"`
	DomainID   int64  `bun:"domain_id" json:"-"`
	Host       string `bun:"host" json:"host"`
	// Verified: the domain's DNS points at the store (its status is
	// active); only such a domain can be registered.
	Verified       bool       `bun:"verified" json:"-"`
	RegisteredTime *time.Time `bun:"registered_at" json:"-"`
}

// Registered says whether the domain is registered with the provider.
func (w *WalletDomain) Registered() bool { return w.RegisteredTime != nil }

// RegisteredAt is when it was registered, RFC 3339 in UTC; empty when it
// is not.
func (w *WalletDomain) RegisteredAt() string {
	if w.RegisteredTime == nil {
		return ""
	}
	return w.RegisteredTime.UTC().Format(time.RFC3339)
}

// WalletRegistration is what registering one domain came to.
type WalletRegistration struct {
	Host       string `json:"host"`
	Registered bool   `json:"registered"`
	// Error says why it is not registered; nil when it is.
	Error *string `json:"error"`
}

// ListPaymentProviders lists the store's providers, oldest first. A store
// has at most one of each kind, so the list is never long.
func ListPaymentProviders(ctx context.Context, db bun.IDB, storeID int64) ([]PaymentProvider, error) {
	var out []PaymentProvider
	err := db.NewSelect().Model(&out).Where("store_id = ?", storeID).Order("id").Scan(ctx)
	return out, err
}

// PaymentTestGateway says whether the store's checkout takes test
// payments: an enabled provider is in test mode.
func PaymentTestGateway(ctx context.Context, db bun.IDB, storeID int64) (bool, error) {
	return db.NewSelect().Model((*PaymentProvider)(nil)).
		Where("store_id = ? AND enabled AND mode = ?", storeID, PaymentModeTest).Exists(ctx)
}

// GetPaymentProvider reads one provider of the store.
func GetPaymentProvider(ctx context.Context, db bun.IDB, storeID, id int64) (*PaymentProvider, error) {
	p := new(PaymentProvider)
	err := db.NewSelect().Model(p).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return p, classify(err, "the payment provider")
}

// InsertPaymentProvider stores a new provider; it receives its id and
// times. A second provider of a kind is a conflict.
func InsertPaymentProvider(ctx context.Context, db bun.IDB, p *PaymentProvider) error {
	if p.PublicConfig == nil {
		p.PublicConfig = map[string]any{}
	}
	_, err := db.NewInsert().Model(p).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "a payment provider of kind "+p.Provider)
}

// UpdatePaymentProvider writes p's settings and secrets and bumps
// updated_at; not whether it is on, nor its card fields, which have writes
// of their own (SetPaymentProviderEnabled, SetPaymentCardFields), so a
// change of settings never undoes one of those made meanwhile.
func UpdatePaymentProvider(ctx context.Context, db bun.IDB, p *PaymentProvider) error {
	if p.PublicConfig == nil {
		p.PublicConfig = map[string]any{}
	}
	res, err := db.NewUpdate().Model(p).
		Column("display_name", "mode", "public_id", "public_config", "credentials_sealed", "webhook_secret_sealed", "webhook_registered").
		Set("updated_at = now()").Where("store_id = ? AND id = ?", p.StoreID, p.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the payment provider")
}

// SetPaymentProviderEnabled turns the provider on or off.
func SetPaymentProviderEnabled(ctx context.Context, db bun.IDB, storeID, id int64, enabled bool) error {
	res, err := db.NewUpdate().Model((*PaymentProvider)(nil)).Set("enabled = ?, updated_at = now()", enabled).
		Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the payment provider")
}

// RecordCardFieldsProbe keeps what a probe of the provider's account said
// of card fields, at when; an ineligible account has them turned off.
func RecordCardFieldsProbe(ctx context.Context, db bun.IDB, storeID, id int64, eligible bool, when time.Time) error {
	res, err := db.NewUpdate().Model((*PaymentProvider)(nil)).
		Set("card_fields_eligible = ?, card_fields_probed_at = ?", eligible, when).
		Set("card_fields_enabled = card_fields_enabled AND ?", eligible).
		Set("updated_at = now()").Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the payment provider")
}

// SetPaymentCardFields turns the provider's card fields on or off.
func SetPaymentCardFields(ctx context.Context, db bun.IDB, storeID, id int64, enabled bool) error {
	res, err := db.NewUpdate().Model((*PaymentProvider)(nil)).Set("card_fields_enabled = ?, updated_at = now()", enabled).
		Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the payment provider")
}

// DeletePaymentProvider removes a provider, with its wallet registrations.
func DeletePaymentProvider(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*PaymentProvider)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the payment provider")
}

// WalletDomainsByProvider is every domain of the store for each of the
// providers ids, hosts in order, with its registration with that provider.
func WalletDomainsByProvider(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]WalletDomain, error) {
	var out []WalletDomain
	err := db.NewSelect().TableExpr("payment_providers AS pp").
		Join("JOIN domains AS d ON d.store_id = pp.store_id").
		Join("LEFT JOIN payment_wallet_domains AS w ON w.provider_id = pp.id AND w.domain_id = d.id").
		ColumnExpr("pp.id AS provider_id, d.id AS domain_id, d.hostname AS host, d.status = 'active' AS verified, w.registered_at").
		Where("pp.store_id = ? AND pp.id IN (?)", storeID, bun.List(ids)).
		OrderExpr("pp.id, d.hostname").Scan(ctx, &out)
	return out, err
}

// RegisterWalletDomain records that the provider registered the domain,
// at when.
func RegisterWalletDomain(ctx context.Context, db bun.IDB, storeID, providerID, domainID int64, when time.Time) error {
	_, err := db.NewRaw(`INSERT INTO payment_wallet_domains (store_id, provider_id, domain_id, registered_at)
		SELECT d.store_id, ?, d.id, ? FROM domains AS d WHERE d.store_id = ? AND d.id = ?
		ON CONFLICT (provider_id, domain_id) DO UPDATE SET registered_at = EXCLUDED.registered_at`,
		providerID, when, storeID, domainID).Exec(ctx)
	return classify(err, "the wallet domain")
}

// UnregisterWalletDomain records that the provider refused the domain: it
// is not registered.
func UnregisterWalletDomain(ctx context.Context, db bun.IDB, storeID, providerID, domainID int64) error {
	_, err := db.NewRaw("DELETE FROM payment_wallet_domains WHERE store_id = ? AND provider_id = ? AND domain_id = ?",
		storeID, providerID, domainID).Exec(ctx)
	return err
}

// PaymentKindFree refuses a second provider of a kind in the store,
// before anything is asked of the provider.
func PaymentKindFree(ctx context.Context, db bun.IDB, storeID int64, provider string) error {
	var id int64
	err := db.NewSelect().Model((*PaymentProvider)(nil)).Column("id").
		Where("store_id = ? AND provider = ?", storeID, provider).Scan(ctx, &id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	return apperr.Conflictf("the store has a %s provider already (id %d): change it, or delete it first", provider, id)
}
