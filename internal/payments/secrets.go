package payments

import (
	"encoding/json"
	"fmt"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/secretbox"
	"storeadmin/models"
)

// Gateway is what the payment resolvers need: the providers' API, and the
// box that seals what a provider record keeps secret.
type Gateway struct {
	API *Client
	// Box seals credentials and webhook secrets; nil when the service has
	// no secrets key, and then none can be saved or used.
	Box *secretbox.Box
}

// errNoKey refuses a write or a use of a secret without a secrets key:
// secrets are never kept in clear.
var errNoKey = apperr.Conflictf("this service has no secrets key (--secrets-key, STOREADMIN_SECRETS_KEY), so it keeps no payment credentials: set one and restart, then save them")

// sealedFor is the associated data of a provider's sealed value: what it
// is, whose store and which kind (a store has one provider of a kind), so
// that it opens on no other row.
func sealedFor(what string, storeID int64, provider string) []byte {
	return fmt.Appendf(nil, "storeadmin payment %s; store %d; provider %s", what, storeID, provider)
}

// SealCredentials seals a provider's credentials for storage.
func (g *Gateway) SealCredentials(storeID int64, provider string, creds map[string]string) ([]byte, error) {
	if g == nil || g.Box == nil {
		return nil, errNoKey
	}
	b, err := json.Marshal(creds)
	if err != nil {
		return nil, err
	}
	return g.Box.Seal(b, sealedFor("credentials", storeID, provider)), nil
}

// SealWebhookSecret seals a provider's webhook signing secret for storage.
func (g *Gateway) SealWebhookSecret(storeID int64, provider, secret string) ([]byte, error) {
	if g == nil || g.Box == nil {
		return nil, errNoKey
	}
	return g.Box.Seal([]byte(secret), sealedFor("webhook secret", storeID, provider)), nil
}

// Account opens p's credentials: the account its API calls are made for.
// A provider without credentials, or whose credentials another key sealed,
// is a conflict saying what to do.
func (g *Gateway) Account(p *models.PaymentProvider, kind *models.ProviderKind) (Account, error) {
	a := Account{Kind: kind, Mode: p.Mode}
	if !kind.HasAPI() {
		return a, apperr.Conflictf("%s providers have no API to call", kind.Provider)
	}
	if p.CredentialsSealed == nil {
		return a, apperr.Conflictf("the payment provider has no credentials: save them first (PUT /store/payment-providers/%d)", p.ID)
	}
	if g == nil || g.Box == nil {
		return a, errNoKey
	}
	b, err := g.Box.Open(p.CredentialsSealed, sealedFor("credentials", p.StoreID, p.Provider))
	if err != nil {
		return a, apperr.Conflictf("the payment provider's credentials do not open with this service's secrets key (it was changed since they were saved): save them again")
	}
	if err := json.Unmarshal(b, &a.Credentials); err != nil {
		return a, fmt.Errorf("payment provider %d: opened credentials are not a JSON object", p.ID)
	}
	return a, nil
}
