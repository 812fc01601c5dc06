package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/internal/base/jsonbody"
)

// bindRouter routes requests as the adapter does and answers the status of
// what bind returned: 200 with the variables bound, or the error's status
// with its message.
func bindRouter(t testing.TB) (http.Handler, *regexp.Regexp) {
	t.Helper()
	schema := graph.Schema()
	ops, err := loadOperations(schema)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	for _, rt := range Routes {
		op := ops[rt.Op]
		r.Method(rt.Method, rt.Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := bind(r, schema, op, readOnlyView(rt, Routes, ops)); err != nil {
				if apperr.CodeOf(err) == apperr.Internal {
					t.Errorf("%s %s: an internal error: %v", rt.Method, rt.Path, err)
				}
				failure.WriteREST(w, r, err)
				return
			}
			w.WriteHeader(http.StatusOK)
		}))
	}
	return r, regexp.MustCompile(`\{\w+\}`)
}

// bindStatus sends target (a path, percent-encoded, and a query) to h.
func bindStatus(h http.Handler, method, target string, body []byte) (int, string) {
	u, err := url.Parse(target)
	if err != nil {
		return http.StatusBadRequest, err.Error() // no client can send it
	}
	req := httptest.NewRequest(method, "/", bytes.NewReader(body))
	req.URL = u
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func TestBindRefusesBadBodiesAndParameters(t *testing.T) {
	h, _ := bindRouter(t)
	for _, c := range []struct {
		method, target, body string
		status               int
		says                 string
	}{
		{"PUT", "/store", `{"name":"a"}}]]`, 400, "more follows"},
		{"PUT", "/store", `{"name":"a"} {"name":"b"}`, 400, "more follows"},
		{"PUT", "/store", `[{"name":"a"}]`, 400, "JSON object"},
		{"PUT", "/store", `{"name":`, 400, "not valid JSON"},
		{"PUT", "/store", `{"name":"` + strings.Repeat("x", jsonbody.MaxBytes) + `"}`, 413, "1 MiB"},
		{"GET", "/store/orders?q=a%00b", "", 400, "q must be plain text"},
		{"GET", "/store/orders?q=a%FFb", "", 400, "q must be plain text"},
		{"GET", "/store/products?vendor=%ED%A0%80", "", 400, "vendor must be plain text"},
		{"DELETE", "/store/webhooks/1%00", "", 400, "id must be plain text"},
		{"PUT", "/store", `{"name":"a"}` + "\n\t ", 200, ""},
		{"PUT", "/store", ``, 400, "body is required"},
	} {
		status, body := bindStatus(h, c.method, c.target, []byte(c.body))
		if status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s %s %.40q: %d %s, want %d saying %q", c.method, c.target, c.body, status, body, c.status, c.says)
		}
	}
}

// FuzzBind sends any path parameter, query and body to any route: the
// binder answers a client error or binds, never an internal error and
// never a panic. The seeds run in every go test.
func FuzzBind(f *testing.F) {
	for i, seed := range []struct{ param, query, body string }{
		{"1", "", `{"title":"a\u0000b"}`},
		{"1\x00", "q=%00", ""},
		{"%ff", "q=a%FFb&limit=1e400", "{\"title\":\"a\xffb\"}"},
		{"1", "created_at_min=0000-01-01T00:00:00Z", `{"starts_at":"0000-01-01T00:00:00Z"}`},
		{"1", "", `{"address":{"n":1e400},"value":{"k\u0000":1}}`},
		{"1", "q=" + strings.Repeat("x", 3000), `{"a":1}}]]`},
		{"-1", "status=%ED%A0%80&ids=1,,2", `{"title":"\ud800"}`},
		{"99999999999999999999", "limit=-1&offset=x", `[]`},
		{"1", "", `{"input":{"input":{}}, "id": "7"}`},
	} {
		f.Add(uint8(i*11), seed.param, seed.query, []byte(seed.body))
	}
	h, param := bindRouter(f)
	f.Fuzz(func(t *testing.T, route uint8, p, query string, body []byte) {
		rt := Routes[int(route)%len(Routes)]
		target := param.ReplaceAllLiteralString(rt.Path, url.PathEscape(p))
		if query != "" {
			target += "?" + query
		}
		if status, answer := bindStatus(h, rt.Method, target, body); status >= 500 {
			t.Fatalf("%s %s: %d %s", rt.Method, target, status, answer)
		}
	})
}

// binderSchema is a small schema with each kind of variable bind handles.
const binderSchema = `
scalar Upload
enum Status { ACTIVE DRAFT }
input Address { city: String, zip: String }
input ItemInput { title: String!, address: Address, tags: [String!] }
input Filter { status: Status, limit: Int, ids: [Int!], q: String }
type Query { item(id: Int!, filter: Filter, flag: Boolean, ratio: Float): Int }
type Mutation {
  save(input: ItemInput!): Int
  put(id: Int!, title: String, count: Int): Int
  override(id: Int!, input: ItemInput): Int
  upload(file: Upload!, dryRun: Boolean): Int
}
`

// bindRequest runs bind for the operation src on a request of method to
// target with body, the path parameters params as the router sets them.
func bindRequest(t *testing.T, src, method, target, body string, params map[string]string) (map[string]any, error) {
	t.Helper()
	schema, op := binderOperation(t, src)
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	rctx := chi.NewRouteContext()
	for k, v := range params {
		rctx.URLParams.Add(k, v)
	}
	req = req.WithContext(context.WithValue(req.Context(), chi.RouteCtxKey, rctx))
	return bind(req, schema, op, testView)
}

// testView is the view the binder tests' writes take back: an id and a
// time that no input declares, and an address's country.
var testView = view{"id": view{}, "created_at": view{}, "address": view{"country": view{}}}

// binderOperation is the operation src, validated against binderSchema.
func binderOperation(t *testing.T, src string) (*ast.Schema, *operation) {
	t.Helper()
	schema := gqlparser.MustLoadSchema(&ast.Source{Name: "binder.graphqls", Input: binderSchema})
	doc, errs := gqlparser.LoadQueryWithRules(schema, src, nil)
	if len(errs) > 0 {
		t.Fatalf("operation %s: %v", src, errs)
	}
	return schema, &operation{text: src, def: doc.Operations[0]}
}

const (
	itemOp   = `query($id: Int!, $filter: Filter, $flag: Boolean, $ratio: Float) { item(id: $id, filter: $filter, flag: $flag, ratio: $ratio) }`
	saveOp   = `mutation($input: ItemInput!) { save(input: $input) }`
	putOp    = `mutation($id: Int!, $title: String, $count: Int) { put(id: $id, title: $title, count: $count) }`
	uploadOp = `mutation($file: Upload!, $dryRun: Boolean) { upload(file: $file, dryRun: $dryRun) }`
	// overrideOp takes a nullable $input: null resets what it overrides.
	overrideOp = `mutation($id: Int!, $input: ItemInput) { override(id: $id, input: $input) }`
)

// TestBindCoercesPathAndQuery: path and query values take the variables'
// types; an input object's fields come from query parameters named like
// them; lists take repeated and comma-separated values; enums are upper
// case; the last of a repeated scalar wins.
func TestBindCoercesPathAndQuery(t *testing.T) {
	cases := []struct {
		name, target string
		want         map[string]any
	}{
		{"path only", "/items/7", map[string]any{"id": int64(7)}},
		{"scalars", "/items/7?flag=true&ratio=0.5", map[string]any{"id": int64(7), "flag": true, "ratio": 0.5}},
		{"the last of a repeated scalar", "/items/7?flag=false&flag=1", map[string]any{"id": int64(7), "flag": true}},
		{"filter fields", "/items/7?status=draft&limit=%2010%20&q=hat",
			map[string]any{"id": int64(7), "filter": map[string]any{"status": "DRAFT", "limit": int64(10), "q": "hat"}}},
		{"a list, comma-separated and repeated, blanks skipped", "/items/7?ids=1,,2&ids=%203",
			map[string]any{"id": int64(7), "filter": map[string]any{"ids": []any{int64(1), int64(2), int64(3)}}}},
		{"an empty list", "/items/7?ids=,",
			map[string]any{"id": int64(7), "filter": map[string]any{"ids": []any(nil)}}},
	}
	for _, c := range cases {
		vars, err := bindRequest(t, itemOp, http.MethodGet, c.target, "", map[string]string{"id": strings.TrimPrefix(strings.SplitN(c.target, "?", 2)[0], "/items/")})
		if err != nil || !reflect.DeepEqual(vars, c.want) {
			t.Errorf("%s: %#v %v, want %#v", c.name, vars, err, c.want)
		}
	}
	// a query parameter named like the variable fills it when the path does not
	vars, err := bindRequest(t, itemOp, http.MethodGet, "/items?id=8", "", nil)
	if err != nil || !reflect.DeepEqual(vars, map[string]any{"id": int64(8)}) {
		t.Errorf("id from the query: %#v %v", vars, err)
	}
}

// TestBindRefusesBadValues: each coercion failure names the parameter and
// what it must be, as a 400 (BAD_USER_INPUT), and so does a parameter the
// operation does not take, with those it does.
func TestBindRefusesBadValues(t *testing.T) {
	cases := []struct {
		target string
		params map[string]string
		says   string
	}{
		{"/items/x", map[string]string{"id": "x"}, `id must be an integer, not "x"`},
		{"/items/1?limit=1e3", map[string]string{"id": "1"}, `limit must be an integer, not "1e3"`},
		{"/items/1?ids=1,b", map[string]string{"id": "1"}, `ids must be an integer, not "b"`},
		{"/items/1?stauts=draft&limit=2", map[string]string{"id": "1"},
			"stauts is not a query parameter of this call (it takes flag, id, ids, limit, q, ratio, status)"},
		{"/items/1?ratio=half", map[string]string{"id": "1"}, `ratio must be a number, not "half"`},
		{"/items/1?flag=yes", map[string]string{"id": "1"}, `flag must be true or false, not "yes"`},
		{"/items/1?q=a%00", map[string]string{"id": "1"}, "q must be plain text"},
		{"/items", nil, "id is required"},
	}
	for _, c := range cases {
		_, err := bindRequest(t, itemOp, http.MethodGet, c.target, "", c.params)
		if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), c.says) || !strings.HasPrefix(err.Error(), apperr.FieldOf(err)+" ") {
			t.Errorf("%s: %v (%s, field %q), want %s saying %q", c.target, err, apperr.CodeOf(err), apperr.FieldOf(err), apperr.Invalid, c.says)
		}
	}
}

// TestBindBody: a body goes whole into $input when the operation has one,
// less the read-only fields of the route's view at every depth (its other
// undeclared fields are left for the executor's variable check to refuse,
// naming them); otherwise its top-level keys (numbers kept as json.Number,
// exact until the executor coerces them) are variables, a read-only one is
// ignored and an unknown one refused, and the path's record cannot be
// re-pointed; GET bodies and blank bodies bind nothing.
func TestBindBody(t *testing.T) {
	cases := []struct {
		name, op, method, body string
		params                 map[string]string
		want                   map[string]any
		says                   string
	}{
		{name: "read-only fields dropped", op: saveOp, method: http.MethodPost,
			body: `{"title":"Hat","id":5,"extra":1,"address":{"city":"Paris","country":"FR","planet":"Earth"},"tags":["a"]}`,
			want: map[string]any{"input": map[string]any{"title": "Hat", "extra": json.Number("1"),
				"address": map[string]any{"city": "Paris", "planet": "Earth"}, "tags": []any{"a"}}}},
		{name: "a list of the wrong shape is left to validation", op: saveOp, method: http.MethodPost,
			body: `{"title":"Hat","tags":"a","address":"nowhere"}`,
			want: map[string]any{"input": map[string]any{"title": "Hat", "tags": "a", "address": "nowhere"}}},
		{name: "no body for $input", op: saveOp, method: http.MethodPost, body: " \n", says: "a JSON object body is required"},
		{name: "top-level keys", op: putOp, method: http.MethodPut, params: map[string]string{"id": "3"},
			body: `{"title":"Cap","count":2,"created_at":"2026-01-01T00:00:00Z"}`,
			want: map[string]any{"id": int64(3), "title": "Cap", "count": json.Number("2")}},
		{name: "an unknown top-level key", op: putOp, method: http.MethodPut, params: map[string]string{"id": "3"},
			body: `{"title":"Cap","other":true,"another":1}`, says: "another is not a field this input takes"},
		{name: "the body cannot re-point the path's record", op: putOp, method: http.MethodPut, params: map[string]string{"id": "3"},
			body: `{"id":4}`, want: map[string]any{"id": int64(3)}},
		{name: "an id from the body when the path has none", op: putOp, method: http.MethodPut,
			body: `{"id":4}`, want: map[string]any{"id": json.Number("4")}},
		{name: "a GET body is not read", op: putOp, method: http.MethodGet, params: map[string]string{"id": "3"},
			body: `{"title":"Cap"}`, want: map[string]any{"id": int64(3)}},
		{name: "a body that is not an object", op: putOp, method: http.MethodPut, params: map[string]string{"id": "3"},
			body: `"Cap"`, says: "must be a JSON object"},
		{name: "null for a nullable $input", op: overrideOp, method: http.MethodPut, params: map[string]string{"id": "3"},
			body: ` null `, want: map[string]any{"id": int64(3), "input": nil}},
		{name: "an object for a nullable $input", op: overrideOp, method: http.MethodPut, params: map[string]string{"id": "3"},
			body: `{"title":"Hat"}`, want: map[string]any{"id": int64(3), "input": map[string]any{"title": "Hat"}}},
		{name: "null for a required $input", op: saveOp, method: http.MethodPost, body: `null`, says: "must be a JSON object"},
		{name: "null for top-level keys", op: putOp, method: http.MethodPut, params: map[string]string{"id": "3"},
			body: `null`, says: "must be a JSON object"},
	}
	for _, c := range cases {
		vars, err := bindRequest(t, c.op, c.method, "/x", c.body, c.params)
		if c.says != "" {
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("%s: %#v %v, want an error saying %q", c.name, vars, err, c.says)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(vars, c.want) {
			t.Errorf("%s: %#v %v, want %#v", c.name, vars, err, c.want)
		}
	}
}

// TestBindUpload: an upload route takes the file from a multipart part
// named file, or else the raw body named by ?filename=, and refuses a
// multipart body without that part, an empty file and one too large.
func TestBindUpload(t *testing.T) {
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	_ = mw.WriteField("note", "skipped")
	fw, _ := mw.CreateFormFile("file", "sheet.csv")
	_, _ = fw.Write([]byte("Handle,Title\nhat,Hat\n"))
	_ = mw.Close()
	var noFile bytes.Buffer
	nw := multipart.NewWriter(&noFile)
	_ = nw.WriteField("note", "no file")
	_ = nw.Close()

	read := func(t *testing.T, target, contentType string, body []byte) (graphql.Upload, string, error) {
		t.Helper()
		schema, op := binderOperation(t, uploadOp)
		req := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		vars, err := bind(req, schema, op, nil)
		if err != nil {
			return graphql.Upload{}, "", err
		}
		up := vars["file"].(graphql.Upload)
		data, _ := io.ReadAll(up.File)
		return up, string(data), nil
	}

	up, data, err := read(t, "/import", mw.FormDataContentType(), form.Bytes())
	if err != nil || up.Filename != "sheet.csv" || data != "Handle,Title\nhat,Hat\n" || up.Size != int64(len(data)) {
		t.Errorf("multipart: %+v %q %v", up, data, err)
	}
	up, data, err = read(t, "/import?filename=raw.csv&dryRun=true", "text/csv", []byte("a,b\n"))
	if err != nil || up.Filename != "raw.csv" || up.ContentType != "text/csv" || data != "a,b\n" {
		t.Errorf("raw body: %+v %q %v", up, data, err)
	}
	for name, c := range map[string]struct {
		contentType string
		body        []byte
		says        string
	}{
		"no file part":     {nw.FormDataContentType(), noFile.Bytes(), "no part named file"},
		"broken multipart": {"multipart/form-data", []byte("x"), "multipart body could not be read"},
		"empty":            {"text/csv", nil, "send the file"},
		"too large":        {"text/csv", bytes.Repeat([]byte("a"), MaxUploadBytes+1), "larger than 32 MiB"},
	} {
		if _, _, err := read(t, "/import", c.contentType, c.body); apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.says)
		}
	}
}
