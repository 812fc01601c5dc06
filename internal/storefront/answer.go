package storefront

import (
	"encoding/json"
	"net/http"

	"storeadmin/internal/base/failure"
)

// answer writes a success in the admin API's envelope: {"status": true}
// and fields, each a top-level key.
func answer(w http.ResponseWriter, r *http.Request, status int, fields map[string]any) {
	body := map[string]any{"status": true}
	for k, v := range fields {
		body[k] = v
	}
	buf, err := json.Marshal(body)
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf)
}
