package accesslog_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"storeadmin/internal/base/accesslog"
	"storeadmin/internal/base/metrics"
)

// BenchmarkAccessLog is what the line and the count add to a request: a
// chi route that answers at once, with and without the middleware.
func BenchmarkAccessLog(b *testing.B) {
	answer := func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }
	bare := chi.NewRouter()
	bare.Get("/api/v1/store/orders/{id}", answer)
	logged := chi.NewRouter()
	logged.Use(accesslog.Middleware(slog.New(slog.NewTextHandler(io.Discard, nil)), metrics.New()))
	logged.Get("/api/v1/store/orders/{id}", answer)
	for name, h := range map[string]http.Handler{"bare": bare, "logged": logged} {
		b.Run(name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, "/api/v1/store/orders/42", nil)
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), r)
			}
		})
	}
}
