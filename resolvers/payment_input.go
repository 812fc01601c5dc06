package resolvers

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Bounds of a payment provider's settings.
const (
	maxPaymentDisplayName  = 100
	maxPaymentPublicID     = 255
	maxPaymentPublicConfig = 8 << 10
	// maxPaymentSecret bounds one credential or webhook secret, in bytes.
	maxPaymentSecret = 1024
)

// publicIDPattern is an account's public identifier: a publishable key, a
// client id.
var publicIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]*$`)

// paymentSecrets are the write-only values of a provider input, checked:
// credentials (nil: not sent) and the webhook secret ("": not sent).
type paymentSecrets struct {
	credentials   map[string]string
	webhookSecret string
}

// applyPaymentProviderInput checks in and writes the settings of in into
// p, the stored provider on update (a merge: what is left out stays), and
// returns its kind and the secrets sent, checked but not sealed. On
// create the kind is required; it never changes.
func applyPaymentProviderInput(ctx context.Context, p *models.PaymentProvider, in graph.PaymentProviderInput, create bool) (*models.ProviderKind, paymentSecrets, error) {
	var sec paymentSecrets
	switch {
	case create && in.Provider == nil:
		return nil, sec, apperr.Invalidf("provider is required: one of %s", paymentKindNames())
	case create:
		p.Provider = *in.Provider
	case in.Provider != nil && *in.Provider != p.Provider:
		return nil, sec, apperr.Invalidf("provider cannot change (this one is %s); delete the provider and add one of the other kind", p.Provider)
	}
	kind, err := models.ProviderKindOf(p.Provider)
	if err != nil {
		return nil, sec, err
	}
	if in.DisplayName != nil || create {
		name := deref(in.DisplayName)
		if in.DisplayName == nil {
			name = kind.DisplayName
		}
		if p.DisplayName, err = text("display_name", name, maxPaymentDisplayName, true); err != nil {
			return nil, sec, err
		}
	}
	switch {
	case in.Mode != nil:
		if p.Mode, err = oneOf("mode", *in.Mode, models.PaymentModeLive, models.PaymentModeTest); err != nil {
			return nil, sec, err
		}
	case create:
		p.Mode = models.PaymentModeTest
	}
	if in.PublicID != nil {
		id := strings.TrimSpace(*in.PublicID)
		if len(id) > maxPaymentPublicID {
			return nil, sec, apperr.Invalidf("public_id must be at most %d characters", maxPaymentPublicID)
		}
		if p.PublicID, err = matches("public_id", id, publicIDPattern, "letters, digits and . _ : - only (a publishable key or client id)"); err != nil {
			return nil, sec, err
		}
	}
	if in.PublicConfig != nil || sentNulls(ctx, "input")["public_config"] {
		if p.PublicConfig, err = publicConfig(in.PublicConfig); err != nil {
			return nil, sec, err
		}
	}
	if in.Credentials != nil {
		if sec.credentials, err = paymentCredentials(kind, in.Credentials); err != nil {
			return nil, sec, err
		}
	}
	if in.WebhookSecret != nil {
		if !kind.Webhooks || kind.Features.WebhookAutoreg {
			return nil, sec, webhookSecretRefused(kind)
		}
		if sec.webhookSecret, err = paymentSecret("webhook_secret", *in.WebhookSecret); err != nil {
			return nil, sec, err
		}
	}
	return kind, sec, nil
}

// webhookSecretRefused says why a kind takes no webhook secret.
func webhookSecretRefused(kind *models.ProviderKind) error {
	if kind.Features.WebhookAutoreg {
		return apperr.Invalidf("webhook_secret is not taken for %s providers: the service registers their webhook itself when credentials are saved, and keeps the secret the provider gives", kind.Provider)
	}
	return apperr.Invalidf("webhook_secret is not taken for %s providers: they send no events", kind.Provider)
}

// publicConfig checks a provider's public settings: a JSON object, not too
// large; null is {}.
func publicConfig(v any) (map[string]any, error) {
	if v == nil {
		return map[string]any{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, apperr.Invalidf("public_config must be a JSON object")
	}
	if err := jsonSize("public_config", m, maxPaymentPublicConfig); err != nil {
		return nil, err
	}
	return m, nil
}

// paymentCredentials checks credentials for kind: a JSON object with
// exactly the kind's fields, each a secret. No message quotes a value.
func paymentCredentials(kind *models.ProviderKind, v any) (map[string]string, error) {
	if !kind.HasAPI() {
		return nil, apperr.Invalidf("credentials are not taken for %s providers: they have no API", kind.Provider)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, apperr.Invalidf("credentials must be a JSON object with the fields %s", strings.Join(kind.CredentialFields, ", "))
	}
	out := make(map[string]string, len(m))
	for name, val := range m {
		if !slices.Contains(kind.CredentialFields, name) {
			return nil, apperr.Invalidf("credentials of %s providers take the fields %s; not %q", kind.Provider, strings.Join(kind.CredentialFields, ", "), name)
		}
		s, ok := val.(string)
		if !ok {
			return nil, apperr.Invalidf("credentials.%s must be a string", name)
		}
		checked, err := paymentSecret("credentials."+name, s)
		if err != nil {
			return nil, err
		}
		out[name] = checked
	}
	for _, name := range kind.CredentialFields {
		if _, ok := out[name]; !ok {
			return nil, apperr.Invalidf("credentials.%s is required for %s providers (they take %s)", name, kind.Provider, strings.Join(kind.CredentialFields, ", "))
		}
	}
	return out, nil
}

// paymentSecret checks one secret value: not empty, at most
// maxPaymentSecret bytes, printable with no spaces (a key pasted with its
// line break is trimmed). The message never quotes it.
func paymentSecret(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", apperr.Invalidf("%s must not be empty", field)
	}
	if len(s) > maxPaymentSecret {
		return "", apperr.Invalidf("%s must be at most %d bytes", field, maxPaymentSecret)
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return "", apperr.Invalidf("%s must be printable characters without spaces", field)
	}
	return s, nil
}

// paymentKindNames lists the kinds for messages.
func paymentKindNames() string {
	names := make([]string, len(models.ProviderKinds))
	for i, k := range models.ProviderKinds {
		names[i] = k.Provider
	}
	return strings.Join(names, ", ")
}

// checkCredentialsInput checks the input of a credentials test: a kind
// with an API, a mode and its credentials.
func checkCredentialsInput(in graph.PaymentCredentialsInput) (*models.ProviderKind, string, map[string]string, error) {
	kind, err := models.ProviderKindOf(in.Provider)
	if err != nil {
		return nil, "", nil, err
	}
	mode := models.PaymentModeTest
	if in.Mode != nil {
		if mode, err = oneOf("mode", *in.Mode, models.PaymentModeLive, models.PaymentModeTest); err != nil {
			return nil, "", nil, err
		}
	}
	creds, err := paymentCredentials(kind, in.Credentials)
	return kind, mode, creds, err
}
