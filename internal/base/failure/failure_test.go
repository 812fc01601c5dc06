package failure

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"storeadmin/internal/base/apperr"
)

func TestPublic(t *testing.T) {
	for _, c := range []struct {
		err  error
		code apperr.Code
		msg  string
	}{
		{apperr.NotFoundf("the order was not found"), apperr.NotFound, "the order was not found"},
		{fmt.Errorf("list orders: %w", &pgconn.PgError{Code: "57P01"}), apperr.Unavailable, apperr.UnavailableMessage},
		{errors.New("pq: secret detail"), apperr.Internal, internalMessage},
	} {
		if code, msg := Public(c.err); code != c.code || msg != c.msg {
			t.Errorf("Public(%v) = %s %q, want %s %q", c.err, code, msg, c.code, c.msg)
		}
	}
}

// TestGraphQLStatus: a code recorded inside the handler decides the status
// the handler's 200 becomes; gqlgen's 422 becomes 400; nothing recorded
// leaves the status alone.
func TestGraphQLStatus(t *testing.T) {
	for _, c := range []struct {
		record     apperr.Code
		written    int
		want       int
		retryAfter bool
	}{
		{apperr.Unavailable, http.StatusOK, http.StatusServiceUnavailable, true},
		{apperr.RateLimited, http.StatusOK, http.StatusTooManyRequests, false},
		{"", http.StatusUnprocessableEntity, http.StatusBadRequest, false},
		{"", http.StatusOK, http.StatusOK, false},
	} {
		h := GraphQLStatus(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c.record != "" {
				SetStatus(r.Context(), c.record)
				SetStatus(r.Context(), apperr.Invalid) // the first recorded wins
			}
			w.WriteHeader(c.written)
			w.Write([]byte("{}")) //nolint:errcheck
		}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/graphql", nil))
		if rec.Code != c.want || (rec.Header().Get("Retry-After") != "") != c.retryAfter {
			t.Errorf("recorded %q, written %d: status %d, Retry-After %q", c.record, c.written, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
}
