package server

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/executor"
)

// The two media types of a GraphQL-over-HTTP answer.
const (
	mediaJSON            = "application/json"
	mediaGraphQLResponse = "application/graphql-response+json"
)

// serveJSON runs one GraphQL request read from a JSON body and writes its
// answer, as gqlgen's POST transport does (the same media type, the same
// statuses) but without decoding the body a second time, and without
// encoding the answer again: encoding/json would scan every byte of the
// data the executor wrote (valid JSON already) to compact it, then copy
// it, about a twentieth of a page's CPU.
func serveJSON(w http.ResponseWriter, r *http.Request, exec *executor.Executor, params *graphql.RawParams) {
	ctx := r.Context()
	media := answerMedia(r.Header.Get("Accept"))
	w.Header().Set("Content-Type", media)
	oc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		status := http.StatusOK
		if errcode.GetErrorKind(errs) == errcode.KindProtocol {
			// A document that does not parse or validate.
			status = http.StatusUnprocessableEntity
			if media == mediaGraphQLResponse {
				status = http.StatusBadRequest
			}
		}
		w.WriteHeader(status)
		writeResponse(w, exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs))
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, oc)
	writeResponse(w, responses(ctx))
}

// answerMedia is the media type of the answer for a request's Accept
// header: application/json unless the client asks for the GraphQL
// response type first, as gqlgen's transport chooses.
func answerMedia(accept string) string {
	if accept == "" {
		return mediaJSON
	}
	for part := range strings.SplitSeq(accept, ",") {
		media, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch media {
		case "*/*", "application/*", mediaJSON:
			return mediaJSON
		case mediaGraphQLResponse:
			return mediaGraphQLResponse
		}
	}
	return mediaGraphQLResponse
}

// writeResponse writes resp as encoding/json would (errors first, then
// data, then the rest), with the data's bytes as the executor wrote them,
// straight to the connection's buffer. A nil resp (the client hung up)
// writes nothing.
func writeResponse(w http.ResponseWriter, resp *graphql.Response) {
	if resp == nil {
		return
	}
	b := answerWriter{w}
	b.WriteString("{")
	if len(resp.Errors) > 0 {
		b.WriteString(`"errors":`)
		writeJSONValue(b, resp.Errors)
		b.WriteString(",")
	}
	b.WriteString(`"data":`)
	if len(resp.Data) == 0 {
		b.WriteString("null")
	} else {
		b.Write(resp.Data)
	}
	if resp.Label != "" {
		b.WriteString(`,"label":`)
		writeJSONValue(b, resp.Label)
	}
	if len(resp.Path) > 0 {
		b.WriteString(`,"path":`)
		writeJSONValue(b, resp.Path)
	}
	if resp.HasNext != nil {
		b.WriteString(`,"hasNext":`)
		writeJSONValue(b, *resp.HasNext)
	}
	if len(resp.Extensions) > 0 {
		b.WriteString(`,"extensions":`)
		writeJSONValue(b, resp.Extensions)
	}
	b.WriteString("}")
}

// answerWriter writes to an answer whose client may have gone away, which
// nothing can be done about, so its errors are dropped.
type answerWriter struct{ w http.ResponseWriter }

func (a answerWriter) Write(p []byte)       { a.w.Write(p) }           //nolint:errcheck
func (a answerWriter) WriteString(s string) { io.WriteString(a.w, s) } //nolint:errcheck

// writeJSONValue writes v as JSON. Errors, paths and extensions are
// values the service made, which encode; one that does not is a bug.
func writeJSONValue(b answerWriter, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	b.Write(raw)
}
