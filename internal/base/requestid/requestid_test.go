package requestid

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"storeadmin/internal/testkit/testlog"
)

func TestMiddlewareKeepsSafeIDsAndReplacesOthers(t *testing.T) {
	for _, tc := range []struct {
		sent string
		keep bool
	}{
		{"abc-123_X.y", true},
		{strings.Repeat("a", MaxLen), true},
		{strings.Repeat("a", MaxLen+1), false},
		{"", false},
		{"has space", false},
		{"line\nbreak", false},
		{"é", false},
	} {
		var seen string
		h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = FromContext(r.Context()) }))
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header[Header] = []string{tc.sent}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		got := rec.Header().Get(Header)
		if got != seen {
			t.Errorf("sent %q: header %q, context %q", tc.sent, got, seen)
		}
		if tc.keep && got != tc.sent {
			t.Errorf("sent %q: answered %q, want it kept", tc.sent, got)
		}
		if !tc.keep && (got == tc.sent || !valid(got) || len(got) != 16) {
			t.Errorf("sent %q: answered %q, want a new 16-digit id", tc.sent, got)
		}
	}
}

func TestLogHandlerAddsTheID(t *testing.T) {
	var recs testlog.Records
	log := slog.New(LogHandler(&recs))
	h := Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.InfoContext(r.Context(), "inside")
	}))
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set(Header, "req-1")
	h.ServeHTTP(httptest.NewRecorder(), req)
	log.InfoContext(context.Background(), "outside")
	want := "INFO inside request_id=req-1\nINFO outside"
	if got := recs.String(); got != want {
		t.Fatalf("logged:\n%s\nwant:\n%s", got, want)
	}
}
