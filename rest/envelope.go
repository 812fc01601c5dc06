package rest

import (
	"encoding/json"
	"net/http"
)

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
