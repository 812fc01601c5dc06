package server

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
)

// serveMultipart runs a GraphQL multipart request (file uploads) through
// gqlgen's transport, whose own refusals of a body that is not one (no
// operations part, operations or map not JSON, a part the map does not
// name) carry no extensions.code, and which answers a body over its limit
// with 200. Those become failures like every other body the service cannot
// read: 413 over the limit, else 400, both BAD_REQUEST on this surface.
func serveMultipart(w http.ResponseWriter, r *http.Request, t transport.MultipartForm, exec graphql.GraphExecutor) {
	if r.ContentLength > t.MaxUploadSize {
		failure.Write(w, r, apperr.New(apperr.TooLarge, "the multipart body is larger than %d bytes (%d MiB)", t.MaxUploadSize, t.MaxUploadSize>>20))
		return
	}
	rw := &multipartRefusals{ResponseWriter: w}
	t.Do(rw, r, exec)
	if !rw.held {
		return
	}
	if msg, ok := transportRefusal(rw.body.Bytes()); ok {
		failure.Write(w, r, apperr.New(apperr.BadRequest, "the body is not a GraphQL multipart request: %s", msg))
		return
	}
	w.WriteHeader(http.StatusUnprocessableEntity)
	w.Write(rw.body.Bytes()) //nolint:errcheck // the client went away: nothing to do
}

// multipartRefusals holds back an answer written with 422, the status of
// every refusal of the multipart transport, for serveMultipart to judge;
// other answers pass as they are written.
type multipartRefusals struct {
	http.ResponseWriter
	held bool
	body bytes.Buffer
}

func (w *multipartRefusals) WriteHeader(status int) {
	if status == http.StatusUnprocessableEntity {
		w.held = true
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *multipartRefusals) Write(b []byte) (int, error) {
	if w.held {
		return w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *multipartRefusals) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// transportRefusal is the message of a GraphQL answer whose first error
// has no extensions.code: one the transport wrote itself, since the
// executor's error presenter gives every error a code (a document that
// does not validate, also a 422, keeps its answer).
func transportRefusal(answer []byte) (string, bool) {
	var resp struct {
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil || len(resp.Errors) == 0 {
		return "", false
	}
	first := resp.Errors[0]
	return first.Message, first.Extensions["code"] == nil
}
