package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/testkit/testdb"
	"storeadmin/internal/testkit/testlog"
)

// TestServeMetricsAddrAndJSONLog: serve --log-format json writes one JSON
// object a line, an access line per request among them, and
// --metrics-addr serves GET /metrics on a listener of its own, leaving it
// off the main address.
func TestServeMetricsAddrAndJSONLog(t *testing.T) {
	out := &testlog.Buffer{}
	prev := stderr
	stderr = out
	t.Cleanup(func() { stderr = prev })
	_, url := testdb.New(t)
	ctx, stop := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"serve", "--database-url=" + url, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0",
			"--log-format", "json", "--blob-url", "file://" + t.TempDir()}, io.Discard, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() {
		stop()
		if err := <-errc; err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	var serving map[string]any
	for deadline := time.Now().Add(2 * time.Minute); serving == nil; time.Sleep(20 * time.Millisecond) {
		for _, rec := range out.JSONLines(t) {
			if rec["msg"] == "serving" {
				serving = rec
			}
		}
		select {
		case err := <-errc:
			t.Fatalf("serve stopped: %v\n%s", err, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", out)
		}
	}
	base := strings.TrimSuffix(serving["rest"].(string), "/api/v1")
	metricsURL := serving["metrics"].(string)
	if strings.HasPrefix(metricsURL, base+"/") {
		t.Fatalf("metrics at %s, on the main address %s", metricsURL, base)
	}

	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, _ := get(base + "/healthz"); code != http.StatusOK {
		t.Fatalf("GET /healthz: %d", code)
	}
	if code, _ := get(base + "/metrics"); code != http.StatusNotFound {
		t.Fatalf("GET /metrics on the main address with --metrics-addr: %d, want 404", code)
	}
	code, body := get(metricsURL)
	if code != http.StatusOK || !strings.Contains(body, `storeadmin_http_requests_total{method="GET",route="/healthz",status="200"} 1`) {
		t.Fatalf("GET %s: %d\n%s", metricsURL, code, body)
	}

	var access []map[string]any
	for _, rec := range out.JSONLines(t) {
		if rec["msg"] == "request" {
			access = append(access, rec)
		}
	}
	if len(access) != 2 || access[0]["route"] != "/healthz" || access[0]["status"] != float64(200) ||
		access[1]["route"] != "unmatched" || access[1]["status"] != float64(404) {
		t.Fatalf("access lines %v, want /healthz 200 and unmatched 404", access)
	}
}

// TestServeRefusesUnknownLogFormat: a format other than text or json stops
// serve before it opens anything, saying which formats there are.
func TestServeRefusesUnknownLogFormat(t *testing.T) {
	_, err := runCmd(t, "serve", "--log-format", "yaml")
	if err == nil || !strings.Contains(err.Error(), "text or json") {
		t.Fatalf("serve --log-format yaml: %v", err)
	}
}

// TestServeRefusesHalfABillingConfiguration: one of the billing provider's
// keys without the other, or a URL that is not http(s), stops serve before
// it opens anything, and the message never holds the secret key.
func TestServeRefusesHalfABillingConfiguration(t *testing.T) {
	const secret = "sk_test_serveNeverPrintsThis"
	for name, c := range map[string]struct {
		secret string
		args   []string
		want   string
	}{
		"a publishable key alone": {"", []string{"--billing-publishable-key", "pk_test_x"}, "set both"},
		"a secret key alone":      {secret, nil, "set both"},
		"an ftp URL":              {secret, []string{"--billing-publishable-key", "pk_test_x", "--billing-api-url", "ftp://billing.example"}, "http(s) URL"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("STOREADMIN_BILLING_SECRET_KEY", c.secret)
			out, err := runCmd(t, append([]string{"serve"}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error()+out, secret) {
				t.Fatalf("serve %v: %v (output %q)", c.args, err, out)
			}
		})
	}
}
