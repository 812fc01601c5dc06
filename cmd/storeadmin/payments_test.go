package main

import (
	"bytes"
	"encoding/base64"
	"flag"
	"log/slog"
	"strings"
	"testing"
)

// TestSecretsKey: the key comes from the flag or its variable and is never
// shown (not in --help, not in an error); a bad one stops serve; none
// leaves the gateway without a box, saying so in the log.
func TestSecretsKey(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	parse := func(args ...string) (*paymentFlags, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		var help bytes.Buffer
		fs.SetOutput(&help)
		var pf paymentFlags
		pf.register(fs)
		err := fs.Parse(args)
		if strings.Contains(help.String(), key) {
			t.Fatalf("the help shows the key: %s", help.String())
		}
		return &pf, err
	}
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))

	t.Setenv(secretsKeyEnv, key)
	if _, err := parse("--help"); err != flag.ErrHelp {
		t.Fatalf("--help: %v", err)
	}
	pf, _ := parse()
	g, err := pf.gateway(logger)
	if err != nil || g.Box == nil {
		t.Fatalf("the variable's key: %v, %v", g, err)
	}

	t.Setenv(secretsKeyEnv, "")
	pf, _ = parse("--secrets-key", "not-a-key-"+key[:20])
	if _, err := pf.gateway(logger); err == nil || strings.Contains(err.Error(), key[:20]) {
		t.Fatalf("a bad key: %v", err)
	}
	pf, _ = parse("--payments-api-url", "ftp://payments.example")
	if _, err := pf.gateway(logger); err == nil {
		t.Fatal("an ftp API URL was taken")
	}
	pf, _ = parse("--payments-api-url", "http://127.0.0.1:9/")
	g, err = pf.gateway(logger)
	if err != nil || g.Box != nil || g.API.BaseURL != "http://127.0.0.1:9" || !strings.Contains(log.String(), "no secrets key") {
		t.Fatalf("no key: %+v, %v; log %s", g, err, log.String())
	}
}
