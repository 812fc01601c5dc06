// Package payments talks to the payment providers' API for the payment
// gateway resolvers: it checks credentials, registers the service's webhook
// URL and the store's domains for wallets, and asks whether an account may
// serve card fields. It also seals and opens the credentials a provider
// record keeps (internal/base/secretbox, under --secrets-key).
//
// The providers' API is one HTTP API under one base URL (--payments-api-url),
// each kind under its own name:
//
//	GET  {base}/v1/{provider}/account         200: the credentials are good; 401 or 403: they are not
//	POST {base}/v1/{provider}/webhooks        {"url"} → {"secret"}: events go to url, signed with secret
//	GET  {base}/v1/{provider}/card-fields     → {"eligible": bool}
//	POST {base}/v1/{provider}/wallet-domains  {"host"} → 200: registered; 4xx {"error"}: refused
//
// Every call names the mode (X-Payments-Mode: live or test) and carries the
// credentials: a bearer token, or HTTP Basic for kinds that say so. An API
// that does not answer, or answers with a fault of its own (5xx, a body
// that is not the answer) is a BAD_GATEWAY failure (502) naming the
// provider and what went wrong, never a secret; the provider's own words
// are passed on only with every credential cut out of them.
package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// DefaultTimeout bounds one call to a provider.
const DefaultTimeout = 10 * time.Second

// maxAnswer bounds what is read of a provider's answer.
const maxAnswer = 64 << 10

// Client calls the providers' API.
type Client struct {
	// BaseURL is the API's base URL; empty: no API is configured, and
	// every call is refused saying so.
	BaseURL string
	HTTP    *http.Client
}

// NewClient is a client of the API at baseURL with DefaultTimeout.
func NewClient(baseURL string) *Client {
	return &Client{BaseURL: strings.TrimSuffix(baseURL, "/"), HTTP: &http.Client{Timeout: DefaultTimeout}}
}

// CheckBaseURL checks the --payments-api-url setting: empty, or an http or
// https URL with a host.
func CheckBaseURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("the payment providers' API URL must be an http or https URL such as https://payments.example.com, not %q", s)
	}
	return nil
}

// Account is a provider account the API is called for: its kind, its mode
// and its credentials (the opened JSON object of CredentialFields).
type Account struct {
	Kind        *models.ProviderKind
	Mode        string
	Credentials map[string]string
}

// CheckCredentials reports whether the provider accepts the account's
// credentials: false when it refuses them (401, 403).
func (c *Client) CheckCredentials(ctx context.Context, a Account) (bool, error) {
	status, body, err := c.call(ctx, a, http.MethodGet, "account", nil)
	switch {
	case err != nil:
		return false, err
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return false, nil
	case status/100 == 2:
		return true, nil
	}
	return false, a.unexpected(status, body, "checking the credentials")
}

// RegisterWebhook tells the provider to send its events to url, and
// returns the secret it will sign them with.
func (c *Client) RegisterWebhook(ctx context.Context, a Account, hookURL string) (string, error) {
	status, body, err := c.call(ctx, a, http.MethodPost, "webhooks", map[string]string{"url": hookURL})
	if err != nil {
		return "", err
	}
	if status/100 != 2 {
		return "", a.refused(status, body, "registering the webhook URL")
	}
	var answer struct {
		Secret string `json:"secret"`
	}
	if json.Unmarshal(body, &answer) != nil || answer.Secret == "" || !utf8.ValidString(answer.Secret) || strings.IndexByte(answer.Secret, 0) >= 0 {
		return "", a.gatewayf("the %s provider's answer to registering the webhook URL holds no signing secret", a.Kind.Provider)
	}
	return answer.Secret, nil
}

// CardFieldsEligible asks whether the account may serve card fields.
func (c *Client) CardFieldsEligible(ctx context.Context, a Account) (bool, error) {
	status, body, err := c.call(ctx, a, http.MethodGet, "card-fields", nil)
	if err != nil {
		return false, err
	}
	if status/100 != 2 {
		return false, a.refused(status, body, "probing card fields")
	}
	var answer struct {
		Eligible *bool `json:"eligible"`
	}
	if json.Unmarshal(body, &answer) != nil || answer.Eligible == nil {
		return false, a.gatewayf("the %s provider's answer to the card fields probe does not say whether the account is eligible", a.Kind.Provider)
	}
	return *answer.Eligible, nil
}

// RegisterWalletDomain registers host for the account's wallets. A
// refusal by the provider (4xx) is no error: it is the reason, for the
// host's result; a failure of the API is.
func (c *Client) RegisterWalletDomain(ctx context.Context, a Account, host string) (refusal string, err error) {
	status, body, err := c.call(ctx, a, http.MethodPost, "wallet-domains", map[string]string{"host": host})
	switch {
	case err != nil:
		return "", err
	case status/100 == 2:
		return "", nil
	case status/100 == 4:
		return a.reason(status, body), nil
	}
	return "", a.unexpected(status, body, "registering "+host)
}

// call sends one request to the provider's API and reads its answer.
func (c *Client) call(ctx context.Context, a Account, method, what string, payload any) (int, []byte, error) {
	if c == nil || c.BaseURL == "" {
		return 0, nil, apperr.Conflictf("no payment providers' API is configured (--payments-api-url, STOREADMIN_PAYMENTS_API_URL): the %s provider cannot be reached", a.Kind.Provider)
	}
	var body io.Reader
	if payload != nil {
		b, err := json.Marshal(payload)
		if err != nil {
			return 0, nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+"/v1/"+a.Kind.Provider+"/"+what, body)
	if err != nil {
		return 0, nil, err
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Payments-Mode", a.Mode)
	fields := a.Kind.CredentialFields
	if a.Kind.BasicAuth {
		req.SetBasicAuth(a.Credentials[fields[0]], a.Credentials[fields[1]])
	} else {
		req.Header.Set("Authorization", "Bearer "+a.Credentials[fields[0]])
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, ctx.Err()
		}
		// The error names the URL and the transport's failure; the
		// credentials travel in headers, which it never quotes.
		var ue *url.Error
		if errors.As(err, &ue) && ue.Timeout() {
			return 0, nil, a.gatewayf("the %s provider's API did not answer within %s", a.Kind.Provider, c.HTTP.Timeout)
		}
		return 0, nil, a.gatewayf("the %s provider's API could not be reached", a.Kind.Provider)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return 0, nil, a.gatewayf("the %s provider's answer was cut short", a.Kind.Provider)
	}
	return resp.StatusCode, answer, nil
}

// refused is the failure of a call the provider answered with anything but
// success: its refusal (4xx) as a conflict, saying why, or its fault.
func (a Account) refused(status int, body []byte, doing string) error {
	if status/100 == 4 {
		return apperr.Conflictf("the %s provider refused %s: %s", a.Kind.Provider, doing, a.reason(status, body))
	}
	return a.unexpected(status, body, doing)
}

// unexpected is an answer the call has no meaning for.
func (a Account) unexpected(status int, _ []byte, doing string) error {
	return a.gatewayf("the %s provider's API failed at %s: it answered %d %s", a.Kind.Provider, doing, status, http.StatusText(status))
}

func (a Account) gatewayf(format string, args ...any) error {
	return apperr.New(apperr.BadGateway, format, args...)
}

// maxReason bounds the provider's words passed on.
const maxReason = 300

// reason is why the provider refused: the error of its JSON answer, else
// the status; with every credential of the account cut out, so a provider
// that quotes the key it was sent does not put it in an answer, a log line
// or an audit entry of ours.
func (a Account) reason(status int, body []byte) string {
	var answer struct {
		Error string `json:"error"`
	}
	msg := fmt.Sprintf("HTTP %d", status)
	if json.Unmarshal(body, &answer) == nil && strings.TrimSpace(answer.Error) != "" {
		msg = strings.ToValidUTF8(strings.ReplaceAll(strings.TrimSpace(answer.Error), "\x00", ""), "")
	}
	for _, v := range a.Credentials {
		if v != "" {
			msg = strings.ReplaceAll(msg, v, "[redacted]")
		}
	}
	if utf8.RuneCountInString(msg) > maxReason {
		msg = string([]rune(msg)[:maxReason]) + "…"
	}
	return msg
}
