// Package billing talks to the platform's billing provider: a
// Stripe-compatible HTTP API (Stripe itself, or a server speaking its
// setup-intent endpoints) that collects the cards stores pay their plan
// with. A card's number goes from the browser to the provider's own form
// and never reaches this service: the service begins a setup intent
// (SetupIntent), the browser completes it with the client secret and the
// publishable key, and the service reads back what the provider tells of
// the card (SetupResult): brand, last four digits, expiry.
//
// The provider's secret key authenticates the service; it is sent in the
// Authorization header and nowhere else, and is taken out of any text the
// provider answers before that text is logged or shown.
package billing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"storeadmin/internal/base/apperr"
)

// DefaultAPIURL is Stripe's API.
const DefaultAPIURL = "https://api.stripe.com"

// Timeout bounds one call to the provider.
const Timeout = 10 * time.Second

// Config says which provider to call and with which keys. Without keys
// billing is not configured: the card writes answer 503 saying so.
type Config struct {
	// APIURL is the provider's base URL, without /v1 (DefaultAPIURL when
	// empty).
	APIURL string
	// SecretKey authenticates the service to the provider (sk_...).
	SecretKey string
	// PublishableKey is handed to browsers for the provider's form
	// (pk_...); not a secret.
	PublishableKey string
	// Log receives the provider's failures (never its secret); nil: none.
	Log *slog.Logger
}

// Provider calls the billing provider. A nil *Provider is billing not
// configured.
type Provider struct {
	base   *url.URL
	secret string
	pub    string
	client *http.Client
	log    *slog.Logger
}

// New checks cfg and returns its provider: nil (not configured) when it
// holds neither key, an error when it holds one without the other or its
// URL is not an http(s) URL.
func New(cfg Config) (*Provider, error) {
	if cfg.SecretKey == "" && cfg.PublishableKey == "" {
		return nil, nil
	}
	if cfg.SecretKey == "" || cfg.PublishableKey == "" {
		return nil, errors.New("billing: set both the secret key (STOREADMIN_BILLING_SECRET_KEY) and the publishable key (--billing-publishable-key), or neither")
	}
	raw := cfg.APIURL
	if raw == "" {
		raw = DefaultAPIURL
	}
	u, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("billing: the API URL must be an http(s) URL such as %s, not %q", DefaultAPIURL, raw)
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Provider{base: u, secret: cfg.SecretKey, pub: cfg.PublishableKey, client: &http.Client{Timeout: Timeout}, log: log}, nil
}

// notConfigured is the answer of every call without a provider.
var notConfigured = apperr.New(apperr.Unavailable,
	"billing is not configured on this service: cards cannot be set up or saved until its operator sets the billing provider's keys")

// unavailable is the answer when the provider fails or cannot be reached.
var unavailable = apperr.New(apperr.Unavailable, "the billing provider did not answer as expected; try again in a moment")

// Configured says whether a provider is set.
func (p *Provider) Configured() bool { return p != nil }

// Setup is a setup intent begun for a store's browser.
type Setup struct {
	ClientSecret   string
	PublishableKey string
}

// SetupIntent begins a setup intent for the store: a card saved for
// charges without the store present, tagged with the store so that only
// that store can save it (SetupResult).
func (p *Provider) SetupIntent(ctx context.Context, storeID int64) (Setup, error) {
	if p == nil {
		return Setup{}, notConfigured
	}
	form := url.Values{
		"usage":                  {"off_session"},
		"payment_method_types[]": {"card"},
		"metadata[store_id]":     {strconv.FormatInt(storeID, 10)},
	}
	var si setupIntent
	if _, err := p.call(ctx, http.MethodPost, "/v1/setup_intents", form, &si); err != nil {
		return Setup{}, err
	}
	if si.ClientSecret == "" {
		p.log.Warn("billing provider: a setup intent without a client secret", "id", si.ID)
		return Setup{}, unavailable
	}
	return Setup{ClientSecret: si.ClientSecret, PublishableKey: p.pub}, nil
}

// Card is what the provider tells of a saved card.
type Card struct {
	// PaymentMethod is the provider's id of the card, which charges it.
	PaymentMethod string
	Brand, Last4  string
	ExpMonth      int64
	ExpYear       int64
}

// SetupResult reads the card a completed setup intent of the store holds.
// An intent that is unknown, another store's, or not completed is the
// client's error (400 on setup_intent_id).
func (p *Provider) SetupResult(ctx context.Context, storeID int64, id string) (Card, error) {
	if p == nil {
		return Card{}, notConfigured
	}
	var si setupIntent
	status, err := p.call(ctx, http.MethodGet, "/v1/setup_intents/"+url.PathEscape(id), url.Values{"expand[]": {"payment_method"}}, &si)
	if status == http.StatusNotFound || (err == nil && si.Metadata["store_id"] != strconv.FormatInt(storeID, 10)) {
		return Card{}, apperr.InvalidField("setup_intent_id", "names no setup intent this store began (POST /store/billing/card/setup begins one)")
	}
	if err != nil {
		return Card{}, err
	}
	if si.Status != "succeeded" {
		return Card{}, apperr.InvalidField("setup_intent_id", "names a setup intent that holds no card yet (its status is %s): the provider's form must complete it first", si.Status)
	}
	pm := si.PaymentMethod
	if pm == nil || pm.Card == nil || pm.ID == "" {
		return Card{}, apperr.InvalidField("setup_intent_id", "names a setup intent that saved no card")
	}
	c := pm.Card
	if len(c.Last4) != 4 || c.ExpMonth < 1 || c.ExpMonth > 12 || c.ExpYear < 2000 || c.ExpYear > 9999 || c.Brand == "" {
		p.log.Warn("billing provider: a card without brand, last four digits or expiry", "setup_intent", si.ID)
		return Card{}, unavailable
	}
	return Card{PaymentMethod: pm.ID, Brand: c.Brand, Last4: c.Last4, ExpMonth: c.ExpMonth, ExpYear: c.ExpYear}, nil
}

// setupIntent is the provider's setup intent, as much as is read of it.
type setupIntent struct {
	ID            string            `json:"id"`
	ClientSecret  string            `json:"client_secret"`
	Status        string            `json:"status"`
	Metadata      map[string]string `json:"metadata"`
	PaymentMethod *struct {
		ID   string `json:"id"`
		Card *struct {
			Brand    string `json:"brand"`
			Last4    string `json:"last4"`
			ExpMonth int64  `json:"exp_month"`
			ExpYear  int64  `json:"exp_year"`
		} `json:"card"`
	} `json:"payment_method"`
}

// call sends one request (form: the body of a POST, the query of a GET)
// and decodes a 2xx answer into out. It returns the provider's status; a
// failure is logged without the secret and answered as unavailable, but
// for a 404, which the caller words.
func (p *Provider) call(ctx context.Context, method, path string, form url.Values, out any) (int, error) {
	u := *p.base
	u.Path += path
	var body io.Reader
	if method == http.MethodGet {
		u.RawQuery = form.Encode()
	} else {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+p.secret)
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		p.log.Warn("billing provider: no answer", "method", method, "path", path, "error", p.redact(err.Error()))
		return 0, unavailable
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		p.log.Warn("billing provider: answer cut short", "method", method, "path", path, "error", p.redact(err.Error()))
		return resp.StatusCode, unavailable
	}
	if resp.StatusCode == http.StatusNotFound {
		return resp.StatusCode, apperr.NotFoundf("the billing provider has no such record")
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		p.log.Warn("billing provider: refused", "method", method, "path", path, "status", resp.StatusCode,
			"type", p.redact(e.Error.Type), "message", p.redact(e.Error.Message))
		return resp.StatusCode, unavailable
	}
	if err := json.Unmarshal(raw, out); err != nil {
		p.log.Warn("billing provider: an answer that is not its JSON", "method", method, "path", path, "status", resp.StatusCode)
		return resp.StatusCode, unavailable
	}
	return resp.StatusCode, nil
}

// redact takes the secret key out of text the provider or the HTTP client
// wrote, which a careless server could echo.
func (p *Provider) redact(s string) string {
	return strings.ReplaceAll(s, p.secret, "[secret key]")
}
