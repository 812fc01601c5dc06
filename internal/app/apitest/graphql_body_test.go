package apitest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/testkit/testlog"
)

// bodySecret stands for what a body may hold that must not be quoted back
// or logged (a customer's address, a key pasted by mistake).
const bodySecret = "TOP-SECRET-BODY"

// multipartBody is a GraphQL multipart request of the given parts, in
// order (name, then content), and its Content-Type.
func multipartBody(parts ...string) (string, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for i := 0; i+1 < len(parts); i += 2 {
		if parts[i] == "operations" || parts[i] == "map" {
			mw.WriteField(parts[i], parts[i+1]) //nolint:errcheck // a bytes.Buffer takes everything
			continue
		}
		fw, _ := mw.CreateFormFile(parts[i], "reviews.csv")
		fw.Write([]byte(parts[i+1])) //nolint:errcheck // a bytes.Buffer takes everything
	}
	mw.Close() //nolint:errcheck // a bytes.Buffer takes everything
	return b.String(), mw.FormDataContentType()
}

// TestGraphQLBodyNotAGraphQLRequest: a body POST /graphql cannot read as a
// GraphQL request (text, JSON cut short, XML, a broken multipart form) is
// answered in the GraphQL error shape with a code a client can act on:
// BAD_REQUEST (400, 413 over the limit) for a body of a type /graphql reads,
// UNSUPPORTED_MEDIA_TYPE (415) for one it does not. It is never INTERNAL,
// never quoted back, and nothing is logged above INFO for it: the mistake is
// the client's. gqlgen's multipart transport answered its own refusals
// without extensions.code, and a body over its limit with 200.
func TestGraphQLBodyNotAGraphQLRequest(t *testing.T) {
	logs := &testlog.Records{}
	e := apitest.New(t, apitest.WithLog(logs))
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)

	const importReviews = `"query":"mutation($f: Upload!) { importReviews(file: $f) { created } }","variables":{"f":null}`
	notMultipart, notMultipartType := "hello "+bodySecret, "multipart/form-data; boundary=xyz"
	opsNotJSON, opsNotJSONType := multipartBody("operations", "hello "+bodySecret, "map", `{"0":["variables.f"]}`, "0", "x")
	mapNotJSON, mapNotJSONType := multipartBody("operations", "{"+importReviews+"}", "map", "<map>"+bodySecret+"</map>", "0", "x")
	unmapped, unmappedType := multipartBody("operations", "{"+importReviews+"}", "map", `{"0":["variables.f"]}`, "1", bodySecret)
	for _, c := range []struct {
		name, contentType, body string
		status                  int
		code                    string
	}{
		{"text", "application/json", "hello " + bodySecret, http.StatusBadRequest, "BAD_REQUEST"},
		{"JSON cut short", "application/json", `{"query":"` + bodySecret, http.StatusBadRequest, "BAD_REQUEST"},
		{"XML sent as JSON", "application/json", `<?xml version="1.0"?><query>` + bodySecret + `</query>`, http.StatusBadRequest, "BAD_REQUEST"},
		{"empty", "application/json", "", http.StatusBadRequest, "BAD_REQUEST"},
		{"XML", "application/xml", `<?xml version="1.0"?><query>` + bodySecret + `</query>`, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE"},
		{"form", "application/x-www-form-urlencoded", "query=" + url.QueryEscape(bodySecret), http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE"},
		{"no content type", "", "hello " + bodySecret, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE"},
		{"multipart without parts", notMultipartType, notMultipart, http.StatusBadRequest, "BAD_REQUEST"},
		{"multipart without boundary", "multipart/form-data", notMultipart, http.StatusBadRequest, "BAD_REQUEST"},
		{"multipart operations not JSON", opsNotJSONType, opsNotJSON, http.StatusBadRequest, "BAD_REQUEST"},
		{"multipart map not JSON", mapNotJSONType, mapNotJSON, http.StatusBadRequest, "BAD_REQUEST"},
		{"multipart file the map does not name", unmappedType, unmapped, http.StatusBadRequest, "BAD_REQUEST"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, e.URL+"/graphql", strings.NewReader(c.body))
			if c.contentType != "" {
				req.Header.Set("Content-Type", c.contentType)
			}
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			expectGraphQLFailure(t, resp, raw, c.status, c.code)
		})
	}

	// A multipart body declared over the 64 MiB limit is refused before it
	// is read: sent by hand, as a client would not send the rest.
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /graphql HTTP/1.1\r\nHost: storeadmin\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: %s\r\nContent-Length: %d\r\n\r\n%s", key, notMultipartType, 64<<20+1, notMultipart)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	expectGraphQLFailure(t, resp, raw, http.StatusRequestEntityTooLarge, "BAD_REQUEST")

	// The executor's own refusals of a multipart request keep their code.
	invalid, invalidType := multipartBody("operations", `{"query":"mutation($f: Upload!) { importReviews(file: $f) { nosuchfield } }","variables":{"f":null}}`, "map", `{"0":["variables.f"]}`, "0", "x")
	req, _ := http.NewRequest(http.MethodPost, e.URL+"/graphql", strings.NewReader(invalid))
	req.Header.Set("Content-Type", invalidType)
	req.Header.Set("Authorization", "Bearer "+key)
	vresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer vresp.Body.Close()
	raw, _ = io.ReadAll(vresp.Body)
	expectGraphQLFailure(t, vresp, raw, http.StatusBadRequest, "GRAPHQL_VALIDATION_FAILED")

	if lines := logs.Lines(slog.LevelWarn); len(lines) > 0 {
		t.Errorf("bodies that are not GraphQL requests were logged above INFO:\n%s", strings.Join(lines, "\n"))
	}
	if strings.Contains(logs.String(), bodySecret) {
		t.Errorf("the log quotes a body:\n%s", logs.String())
	}
}

// expectGraphQLFailure fails unless raw, the body of resp, is a JSON
// GraphQL failure {"errors":[{"message", "extensions":{"code"}}],
// "data":null} with status and code, whose message says something and
// quotes no body.
func expectGraphQLFailure(t *testing.T, resp *http.Response, raw []byte, status int, code string) {
	t.Helper()
	var body struct {
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
		Data *json.RawMessage `json:"data"`
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("Content-Type %q: %s", resp.Header.Get("Content-Type"), raw)
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("the answer is not JSON (%v): %s", err, raw)
	}
	if resp.StatusCode != status || len(body.Errors) != 1 || body.Errors[0].Extensions["code"] != code {
		t.Fatalf("status %d, want %d %s: %s", resp.StatusCode, status, code, raw)
	}
	if body.Data != nil || !bytes.Contains(raw, []byte(`"data":null`)) {
		t.Fatalf("data must be null: %s", raw)
	}
	if len(body.Errors[0].Message) < 10 || bytes.Contains(raw, []byte(bodySecret)) {
		t.Fatalf("the message must say what is wrong without quoting the body: %s", raw)
	}
}
