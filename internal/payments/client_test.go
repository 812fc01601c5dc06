package payments

import (
	"strings"
	"testing"

	"storeadmin/models"
)

func TestReasonCutsCredentials(t *testing.T) {
	kind, _ := models.ProviderKindOf(models.PaymentWallet)
	a := Account{Kind: kind, Credentials: map[string]string{"client_id": "cid-42", "client_secret": "s3cr3t-value"}}
	for body, want := range map[string]string{
		`{"error":"bad secret s3cr3t-value for cid-42"}`: "bad secret [redacted] for [redacted]",
		`{"error":"  "}`:            "HTTP 400",
		`not json s3cr3t-value`:     "HTTP 400",
		`{"error":"nul\u0000byte"}`: "nulbyte",
	} {
		if got := a.reason(400, []byte(body)); got != want {
			t.Errorf("%s: %q, want %q", body, got, want)
		}
	}
	long := a.reason(400, []byte(`{"error":"`+strings.Repeat("é", 400)+`"}`))
	if n := len([]rune(long)); n != maxReason+1 || !strings.HasSuffix(long, "…") {
		t.Errorf("a long reason keeps %d characters", n)
	}
}

func TestCheckBaseURL(t *testing.T) {
	for _, ok := range []string{"", "http://127.0.0.1:8090", "https://payments.example.com/api"} {
		if err := CheckBaseURL(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"payments.example.com", "ftp://payments.example.com", "https://", "https://p.example/?k=v"} {
		if CheckBaseURL(bad) == nil {
			t.Errorf("%q was taken", bad)
		}
	}
}
