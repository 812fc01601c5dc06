package resolvers

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/payments"
	"storeadmin/models"
)

// gateway is the payments gateway, never nil: a service built without one
// refuses every provider call and every secret, saying why.
func (r *Resolver) gateway() *payments.Gateway {
	if r.Payments == nil {
		return &payments.Gateway{}
	}
	return r.Payments
}

// paymentWebhookURL is where p's provider sends its events: the service's
// public URL and p's path; empty for a kind that sends none.
func (r *Resolver) paymentWebhookURL(p *models.PaymentProvider) string {
	if p.WebhookPath == "" {
		return ""
	}
	return r.PublicURL + p.WebhookPath
}

// sealPaymentSecrets seals the secrets sent into p. New credentials of a
// kind whose webhook the service registers (features.webhook_autoreg)
// register p's webhook URL with the provider first, with those
// credentials, and the secret it answers is sealed too: a provider that
// refuses them is a conflict, one that fails a BAD_GATEWAY, and nothing
// is saved. A webhook secret the seller sends says the seller registered
// the URL.
func (r *Resolver) sealPaymentSecrets(ctx context.Context, p *models.PaymentProvider, kind *models.ProviderKind, sec paymentSecrets) error {
	g := r.gateway()
	if sec.credentials != nil {
		sealed, err := g.SealCredentials(p.StoreID, p.Provider, sec.credentials)
		if err != nil {
			return err
		}
		p.CredentialsSealed = sealed
		if kind.Features.WebhookAutoreg {
			secret, err := g.API.RegisterWebhook(ctx, payments.Account{Kind: kind, Mode: p.Mode, Credentials: sec.credentials}, r.paymentWebhookURL(p))
			if err != nil {
				return err
			}
			if p.WebhookSecretSealed, err = g.SealWebhookSecret(p.StoreID, p.Provider, secret); err != nil {
				return err
			}
			p.WebhookRegistered = true
		}
	}
	if sec.webhookSecret != "" {
		sealed, err := g.SealWebhookSecret(p.StoreID, p.Provider, sec.webhookSecret)
		if err != nil {
			return err
		}
		p.WebhookSecretSealed, p.WebhookRegistered = sealed, true
	}
	return nil
}

// paymentProvider reads a provider of the caller's store with its kind.
func (r *Resolver) paymentProvider(ctx context.Context, id int64) (*models.PaymentProvider, *models.ProviderKind, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, nil, err
	}
	p, err := models.GetPaymentProvider(ctx, r.db(ctx), sid, id)
	if err != nil {
		return nil, nil, err
	}
	kind, err := models.ProviderKindOf(p.Provider)
	if err != nil {
		return nil, nil, fmt.Errorf("payment provider %d: %w", p.ID, err)
	}
	return p, kind, nil
}

// probeCardFields asks the provider whether p's account may serve card
// fields and keeps the answer (probed_at); an eligible account gets them
// turned on. An ineligible one keeps them off and is a conflict: the
// probe is recorded all the same, since it is what the provider said.
func (r *Resolver) probeCardFields(ctx context.Context, p *models.PaymentProvider, kind *models.ProviderKind) error {
	if !kind.CardFields {
		return apperr.Conflictf("%s providers serve no card fields", kind.Provider)
	}
	g := r.gateway()
	account, err := g.Account(p, kind)
	if err != nil {
		return err
	}
	eligible, err := g.API.CardFieldsEligible(ctx, account)
	if err != nil {
		return err
	}
	now := r.Now()
	if !eligible {
		if err := models.RecordCardFieldsProbe(ctx, r.db(ctx), p.StoreID, p.ID, false, now); err != nil {
			return err
		}
		return apperr.Conflictf("the %s provider says this account is not eligible for card fields; they stay off", kind.Provider)
	}
	return r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := models.RecordCardFieldsProbe(ctx, tx, p.StoreID, p.ID, true, now); err != nil {
			return err
		}
		return models.SetPaymentCardFields(ctx, tx, p.StoreID, p.ID, true)
	})
}

// registerWalletDomains registers every verified domain of the store with
// p's provider, one call each, and records each answer as it comes: a
// domain the provider registered is registered_at now, one it refused is
// not registered. A failure of the provider's API ends the run with its
// error; the registrations made before it stay recorded, since the
// provider made them.
func (r *Resolver) registerWalletDomains(ctx context.Context, p *models.PaymentProvider, kind *models.ProviderKind) ([]models.WalletRegistration, error) {
	if len(kind.Features.Wallets) == 0 {
		return nil, apperr.Conflictf("%s providers serve no wallets, so they register no domains", kind.Provider)
	}
	g := r.gateway()
	account, err := g.Account(p, kind)
	if err != nil {
		return nil, err
	}
	db := r.db(ctx)
	domains, err := models.WalletDomainsByProvider(ctx, db, p.StoreID, []int64{p.ID}, models.AllColumns)
	if err != nil {
		return nil, err
	}
	results := make([]models.WalletRegistration, 0, len(domains))
	for _, d := range domains {
		res := models.WalletRegistration{Host: d.Host}
		if !d.Verified {
			why := fmt.Sprintf("the domain is not verified yet: verify it (POST /store/domains/%d/verify), then register again", d.DomainID)
			res.Error = &why
			results = append(results, res)
			continue
		}
		refusal, err := g.API.RegisterWalletDomain(ctx, account, d.Host)
		if err != nil {
			return nil, err
		}
		if refusal != "" {
			res.Error = &refusal
			err = models.UnregisterWalletDomain(ctx, db, p.StoreID, p.ID, d.DomainID)
		} else {
			res.Registered = true
			err = models.RegisterWalletDomain(ctx, db, p.StoreID, p.ID, d.DomainID, r.Now())
		}
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return results, nil
}
