package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"

	"storeadmin/internal/base/secretbox"
	"storeadmin/internal/payments"
)

// secretsKeyEnv holds the key that seals payment credentials.
const secretsKeyEnv = "STOREADMIN_SECRETS_KEY"

// paymentFlags say where the payment providers' API is and which key seals
// the credentials stores save for them.
type paymentFlags struct {
	apiURL     string
	secretsKey string
}

func (f *paymentFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.apiURL, "payments-api-url", os.Getenv("STOREADMIN_PAYMENTS_API_URL"),
		"base URL of the payment providers' API, which credential checks, webhook and wallet domain registrations and card field probes call; default none: those are refused (env STOREADMIN_PAYMENTS_API_URL)")
	// The default is not the variable's value: --help prints defaults.
	fs.StringVar(&f.secretsKey, "secrets-key", "",
		"32 random bytes in base64 or hex (openssl rand -base64 32) sealing payment credentials with AES-256-GCM; prefer the variable, a flag shows in the process list; default none: credentials cannot be saved (env "+secretsKeyEnv+")")
}

// gateway builds the payments gateway. Without a key it has no box, and
// every credential write is refused: never a secret in clear.
func (f *paymentFlags) gateway(log *slog.Logger) (*payments.Gateway, error) {
	if err := payments.CheckBaseURL(f.apiURL); err != nil {
		return nil, fmt.Errorf("--payments-api-url: %w", err)
	}
	g := &payments.Gateway{API: payments.NewClient(f.apiURL)}
	text := f.secretsKey
	if text == "" {
		text = os.Getenv(secretsKeyEnv)
	}
	if text == "" {
		log.Warn("no secrets key (--secrets-key, " + secretsKeyEnv + "): payment credentials cannot be saved")
		return g, nil
	}
	key, err := secretbox.ParseKey(text)
	if err != nil {
		return nil, fmt.Errorf("--secrets-key (%s): %w", secretsKeyEnv, err)
	}
	if g.Box, err = secretbox.New(key); err != nil {
		return nil, err
	}
	return g, nil
}
