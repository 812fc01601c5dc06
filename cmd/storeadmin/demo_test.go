package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/testkit/testdb"
	"storeadmin/internal/testkit/testlog"
)

// serving is a serve started by startServe.
type serving struct {
	out  *testlog.Buffer
	logs *testlog.Records
	stop func() error
}

// startServe runs serve with args in this process and returns once it serves.
func startServe(t *testing.T, args ...string) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{out: &testlog.Buffer{}, logs: &testlog.Records{}}
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"serve"}, args...), s.out, s.logs.Logger()) }()
	s.stop = func() error { cancel(); return <-done }
	t.Cleanup(func() { cancel() })
	deadline := time.Now().Add(3 * time.Minute)
	for s.logs.Count(slog.LevelInfo, "serving") == 0 {
		select {
		case err := <-done:
			t.Fatalf("serve stopped before serving: %v\n%s", err, s.logs)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", s.logs)
		}
	}
	return s
}

// get sends GET url with key and returns the status and body.
func get(t *testing.T, url, key string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

var (
	demoKeyLine  = regexp.MustCompile(`Admin key: (\S+)`)
	demoRESTLine = regexp.MustCompile(`REST: +(\S+)`)
)

// TestServeDemoTwice starts the demo twice on one database: the second start
// revokes the key the first printed, and the demo store's webhook
// subscriptions are paused, so a demo sends nothing to the internet.
func TestServeDemoTwice(t *testing.T) {
	_, url := testdb.New(t)
	args := []string{"--database-url=" + url, "--addr", "127.0.0.1:0", "--blob-url", "file://" + t.TempDir(), "--demo"}
	demo := func() (api, key string, s *serving) {
		t.Helper()
		s = startServe(t, args...)
		out := s.out.String()
		k, a := demoKeyLine.FindStringSubmatch(out), demoRESTLine.FindStringSubmatch(out)
		if k == nil || a == nil {
			t.Fatalf("serve --demo printed no key or address:\n%s", out)
		}
		return a[1], k[1], s
	}

	api, first, s := demo()
	if status, body := get(t, api+"/store/webhooks", first); status != 200 || !strings.Contains(body, `"active":false`) || strings.Contains(body, `"active":true`) {
		t.Fatalf("GET /store/webhooks: %d %s; want the demo's subscriptions, all paused", status, body)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}

	api, second, s := demo()
	defer s.stop()
	if second == first {
		t.Fatal("the second start printed the same key")
	}
	if !strings.Contains(s.out.String(), "printed last time is revoked") {
		t.Errorf("the second start does not say the old key is revoked:\n%s", s.out)
	}
	if status, body := get(t, api+"/store", first); status != http.StatusUnauthorized {
		t.Errorf("the first demo key after the second start: %d %s, want 401", status, body)
	}
	if status, body := get(t, api+"/store", second); status != 200 {
		t.Errorf("the second demo key: %d %s", status, body)
	}
}
