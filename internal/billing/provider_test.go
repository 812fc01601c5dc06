package billing

import (
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	if p, err := New(Config{}); p != nil || err != nil || p.Configured() {
		t.Fatalf("no keys: %v, %v; want billing not configured", p, err)
	}
	for name, cfg := range map[string]Config{
		"a secret alone":      {SecretKey: "sk_x"},
		"a publishable alone": {PublishableKey: "pk_x"},
		"not http":            {SecretKey: "sk_x", PublishableKey: "pk_x", APIURL: "ftp://billing.example"},
		"no host":             {SecretKey: "sk_x", PublishableKey: "pk_x", APIURL: "https://"},
		"credentials in it":   {SecretKey: "sk_x", PublishableKey: "pk_x", APIURL: "https://u:p@billing.example"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "sk_x") {
			t.Errorf("%s: the error shows the secret: %v", name, err)
		}
	}
	p, err := New(Config{SecretKey: "sk_x", PublishableKey: "pk_x", APIURL: "http://127.0.0.1:9/"})
	if err != nil || !p.Configured() || p.base.String() != "http://127.0.0.1:9" {
		t.Fatalf("a loopback provider: %v, %v", p, err)
	}
	if p, _ := New(Config{SecretKey: "sk_x", PublishableKey: "pk_x"}); p.base.String() != DefaultAPIURL {
		t.Fatalf("default URL %s", p.base)
	}
	if got := p.redact("Invalid API Key provided: sk_x"); got != "Invalid API Key provided: [secret key]" {
		t.Fatalf("redact: %q", got)
	}
}
