package rest

import (
	"storeadmin/internal/apperr"

	"bytes"
	"encoding/json"
	"net/http"
)

// WriteError answers {"status": false, "message": ...} with code.
func WriteError(w http.ResponseWriter, code int, message string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // messages are read by people: keep < and > as they are
	enc.Encode(struct {      //nolint:errchkjson // a bool and a string always encode
		Status  bool   `json:"status"`
		Message string `json:"message"`
	}{false, message})
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", apperr.RetryAfter)
	}
	writeJSON(w, code, bytes.TrimSpace(buf.Bytes()))
}

func writeJSON(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(body)
}

// envelope wraps a GraphQL data object as {"status": true, ...fields}
// without decoding it: the fields keep their order and bytes.
func envelope(fields json.RawMessage) []byte {
	if len(fields) < 2 || string(fields) == "{}" || string(fields) == "null" {
		return []byte(`{"status":true}`)
	}
	out := make([]byte, 0, len(fields)+16)
	out = append(out, `{"status":true,`...)
	return append(out, fields[1:]...)
}
