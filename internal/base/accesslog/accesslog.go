// Package accesslog writes one log line per request when its answer is
// done (method, route pattern, status, duration, API key, and the request
// id, which requestid.LogHandler adds to every line of a request) and
// counts the request in the metrics by the same route and status.
//
// A request whose client hung up before its answer is no failure of the
// service: its line is at debug level, with status 499 (nginx's "client
// closed request"), and it is the only line the request writes (the
// executor logs nothing for the fields it interrupted).
package accesslog

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"storeadmin/internal/base/metrics"
)

// ClientClosed is the status of a request whose client hung up first.
const ClientClosed = 499

// Message is the message of a request's line; a hung-up request's line is
// HungUp, at debug level.
const (
	Message = "request"
	HungUp  = "client closed the request"
)

type keyHolder struct{}

// SetKey records, for the request of ctx, the id of the API key it was
// made with. The key is known only inside the middleware that identifies
// it, after this one has made the request's context, so the line keeps a
// slot the identifier fills.
func SetKey(ctx context.Context, id int64) {
	if slot, ok := ctx.Value(keyHolder{}).(*atomic.Int64); ok {
		slot.Store(id)
	}
}

// Middleware logs and counts every request that passes it. It must come
// after the request id and before everything that can answer, recoverer
// included, so that each answer is seen with its final status.
func Middleware(log *slog.Logger, m *metrics.Metrics) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			key := new(atomic.Int64)
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			r = r.WithContext(context.WithValue(r.Context(), keyHolder{}, key))
			next.ServeHTTP(ww, r)
			took := time.Since(start)

			status := ww.Status()
			if status == 0 {
				status = http.StatusOK // nothing written: net/http answers 200
			}
			level, msg := slog.LevelInfo, Message
			if r.Context().Err() != nil {
				level, msg, status = slog.LevelDebug, HungUp, ClientClosed
			}
			route := routeOf(r)
			method := methodOf(r)
			m.Request(method, route, status, took)
			attrs := []slog.Attr{
				slog.String("method", method),
				slog.String("route", route),
				slog.Int("status", status),
				slog.Float64("duration_ms", float64(took.Microseconds())/1000),
			}
			if id := key.Load(); id != 0 {
				attrs = append(attrs, slog.Int64("key_id", id))
			}
			log.LogAttrs(r.Context(), level, msg, attrs...)
		})
	}
}

// routeOf is the pattern of the route of r (/api/v1/store/orders/{id}), or
// metrics.Unmatched: never the raw path, which would make a line's route,
// and a metric's label, per record or per made-up path. A request refused
// by a sub-router's middleware (401, 429) has only reached the sub-router's
// pattern (/api/v1/*), so the router is asked which route it was for.
func routeOf(r *http.Request) string {
	rc := chi.RouteContext(r.Context())
	if rc == nil {
		return metrics.Unmatched
	}
	p := rc.RoutePattern()
	if (p == "" || strings.HasSuffix(p, "/*")) && rc.Routes != nil {
		if found := rc.Routes.Find(chi.NewRouteContext(), r.Method, r.URL.Path); found != "" {
			p = found
		}
	}
	if p == "" {
		return metrics.Unmatched
	}
	return p
}

// methodOf is r's method when it is a standard one, else OTHER: a client
// may send any token as its method.
func methodOf(r *http.Request) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return r.Method
	}
	return "OTHER"
}
