package server

import (
	"net/http"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/migrations"
)

// The probes answer without a key: an orchestrator or load balancer has
// none, and they tell nothing of any store.

// alive answers GET /healthz: the process serves HTTP. It reads nothing,
// so a database outage does not make an orchestrator restart replicas that
// would recover by themselves when it ends (see README, Outages).
func alive(w http.ResponseWriter, _ *http.Request) { ok(w) }

// ready answers GET /readyz: 200 when the database answers and every
// migration is applied, else 503 saying which, so that a load balancer
// sends no traffic to a replica that could not serve it.
func ready(db *bun.DB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := db.PingContext(r.Context()); err != nil {
			failure.WriteREST(w, r, apperr.New(apperr.Unavailable, "not ready: the database is unreachable"))
			return
		}
		current, err := migrations.Current(r.Context(), db)
		if err != nil {
			failure.WriteREST(w, r, apperr.New(apperr.Unavailable, "not ready: the database's migrations could not be read"))
			return
		}
		if !current {
			failure.WriteREST(w, r, apperr.New(apperr.Unavailable, "not ready: the database lacks migrations; run storeadmin migrate (or start serve, which applies them)"))
			return
		}
		ok(w)
	}
}

// ok is the bare success envelope.
func ok(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(`{"status":true}` + "\n")) //nolint:errcheck // the client may be gone
}
