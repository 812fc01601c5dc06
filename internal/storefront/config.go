package storefront

import (
	"net/http"

	"storeadmin/internal/auth"
	"storeadmin/internal/base/failure"
	"storeadmin/internal/base/jsonbody"
	"storeadmin/models"
)

// config answers what a storefront script needs to know before it sends
// anything: the store it reports to (public facts its pages show anyway)
// and the surface's limits.
func (s *service) config(w http.ResponseWriter, r *http.Request) {
	st, err := models.GetStore(r.Context(), s.DB, auth.PrincipalFrom(r.Context()).StoreID)
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, http.StatusOK, map[string]any{
		"store": map[string]any{"handle": st.Handle, "name": st.Name, "currency": st.Currency},
		"limits": map[string]any{
			"session_idle_minutes": SessionIdleMinutes,
			"max_batch":            MaxBatch,
			"max_body_bytes":       jsonbody.MaxBytes,
		},
	})
}
