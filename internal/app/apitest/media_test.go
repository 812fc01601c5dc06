package apitest_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/graph"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/rest"
)

// The fields of an upload ticket and of a finalised image (see checkObject).
var (
	mdTicketSpec = map[string]string{"expires_at": "ts", "headers": "obj", "key": "s", "max_bytes": "i", "method": "s", "upload_url": "s"}
	mdImageSpec  = map[string]string{"bytes": "i", "content_type": "s", "filename": "s", "height": "i", "src": "s", "thumbhash": "s", "width": "i"}
)

// mdPNG is a w x h PNG with a gradient, so its ThumbHash is not trivial.
func mdPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{R: uint8(255 * x / w), G: uint8(255 * y / h), B: 128, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// mdWithStatus is spec plus the envelope's status, for spread payloads.
func mdWithStatus(spec map[string]string) map[string]string {
	m := map[string]string{"status": "b"}
	for k, v := range spec {
		m[k] = v
	}
	return m
}

// mdRequest asks for an upload over REST and returns the ticket.
func mdRequest(t *testing.T, e *apitest.Env, key string, body any) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPost, "/store/uploads/request", key, body).Expect(t, 200)
	return checkObject(t, "upload ticket", r.Body, mdWithStatus(mdTicketSpec))
}

// mdPut sends data to the ticket's upload_url with its method and headers
// and returns the status.
func mdPut(t *testing.T, ticket map[string]any, data []byte, headers map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(ticket["method"].(string), ticket["upload_url"].(string), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range ticket["headers"].(map[string]any) {
		req.Header.Set(k, v.(string))
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("PUT upload: %v", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// mdFinalize finalises an upload over REST and returns the image.
func mdFinalize(t *testing.T, e *apitest.Env, key, uploadKey string) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPost, "/store/uploads/finalize", key, map[string]any{"key": uploadKey}).Expect(t, 200)
	return checkObject(t, "image", r.Body, mdWithStatus(mdImageSpec))
}

func mdGet(t *testing.T, url string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body
}

// TestMediaUploadFlow: request an upload, PUT the PNG to the signed URL
// with the headers given, finalise, and use the image on a product.
func TestMediaUploadFlow(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	data := mdPNG(t, 40, 30)

	ticket := mdRequest(t, e, admin, map[string]any{"filename": "Red Shoe.png", "size": len(data)})
	if ticket["method"] != "PUT" || !reflect.DeepEqual(ticket["headers"], map[string]any{"Content-Type": "image/png"}) {
		t.Fatalf("ticket %v", ticket)
	}
	uploadKey := ticket["key"].(string)
	if !strings.HasPrefix(uploadKey, "pending/"+strconv.FormatInt(s.ID, 10)+"/") || !strings.HasSuffix(uploadKey, "/Red-Shoe.png") {
		t.Fatalf("key %q", uploadKey)
	}
	if u := ticket["upload_url"].(string); !strings.HasPrefix(u, e.URL+"/uploads/"+uploadKey+"?") {
		t.Fatalf("upload_url %q", u)
	}
	if n := wholeNumber(t, ticket["max_bytes"]); n < int64(len(data)) {
		t.Fatalf("max_bytes %d", n)
	}
	exp, _ := time.Parse(time.RFC3339, ticket["expires_at"].(string))
	if now := time.Now(); !exp.After(now) || exp.After(now.Add(time.Hour)) {
		t.Fatalf("expires_at %v", exp)
	}

	if st := mdPut(t, ticket, data, nil); st != http.StatusCreated {
		t.Fatalf("PUT upload: status %d", st)
	}
	img := mdFinalize(t, e, admin, uploadKey)
	if img["width"] != float64(40) || img["height"] != float64(30) || img["content_type"] != "image/png" || img["filename"] != "Red-Shoe.png" ||
		img["bytes"] != float64(len(data)) {
		t.Fatalf("image %v", img)
	}
	th := img["thumbhash"].(string)
	if raw, err := base64.StdEncoding.DecodeString(th); th == "" || err != nil || len(raw) < 5 {
		t.Fatalf("thumbhash %q (%v)", th, err)
	}
	src := img["src"].(string)
	if !strings.HasPrefix(src, e.URL+"/media/"+strconv.FormatInt(s.ID, 10)+"/") || !strings.HasSuffix(src, "/Red-Shoe.png") {
		t.Fatalf("src %q", src)
	}
	// The image is public, with its bytes and type.
	st, h, body := mdGet(t, src)
	if st != 200 || !bytes.Equal(body, data) || h.Get("Content-Type") != "image/png" {
		t.Fatalf("GET src: %d %s, %d bytes", st, h.Get("Content-Type"), len(body))
	}
	// A key is finalised once.
	e.Do(http.MethodPost, "/store/uploads/finalize", admin, map[string]any{"key": uploadKey}).Expect(t, 404)

	// A product image with that src carries the size and ThumbHash.
	p := createProduct(t, e, admin, map[string]any{"title": "Red Shoe", "images": []any{
		map[string]any{"src": src, "alt": "Red shoe"}, map[string]any{"src": "https://cdn.example.com/other.png"},
	}})
	imgs := productImages(p)
	if imgs[0]["src"] != src || imgs[0]["width"] != float64(40) || imgs[0]["height"] != float64(30) || imgs[0]["thumbhash"] != th || imgs[0]["alt"] != "Red shoe" {
		t.Fatalf("product image %v", imgs[0])
	}
	if imgs[1]["width"] != float64(0) || imgs[1]["thumbhash"] != "" {
		t.Fatalf("foreign image %v", imgs[1])
	}
	// Another store cannot borrow the facts of this store's upload.
	other := e.Store("Bolt")
	op := createProduct(t, e, e.Key(other.ID, auth.RoleAdmin), map[string]any{"title": "Copycat", "images": []any{map[string]any{"src": src}}})
	if oi := productImages(op)[0]; oi["width"] != float64(0) || oi["thumbhash"] != "" {
		t.Fatalf("another store's product image %v", oi)
	}

	// A JPEG ticket with PNG bytes: the type and extension come from the
	// bytes, not the client.
	jt := mdRequest(t, e, admin, map[string]any{"filename": "photo.jpg"})
	if !reflect.DeepEqual(jt["headers"], map[string]any{"Content-Type": "image/jpeg"}) {
		t.Fatalf("jpeg ticket headers %v", jt["headers"])
	}
	if st := mdPut(t, jt, data, map[string]string{"Content-Type": "image/png"}); st != http.StatusBadRequest {
		t.Fatalf("PUT with a Content-Type other than the signed one: %d", st)
	}
	if st := mdPut(t, jt, data, nil); st != http.StatusCreated {
		t.Fatalf("PUT: %d", st)
	}
	ji := mdFinalize(t, e, admin, jt["key"].(string))
	if ji["content_type"] != "image/png" || ji["filename"] != "photo.png" {
		t.Fatalf("sniffed image %v", ji)
	}

	// GraphQL runs the same flow with the same fields.
	op2 := func(name string) string {
		text, err := rest.OperationText(graph.Schema(), name)
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	g := e.GraphQL(admin, op2("RequestUpload"), map[string]any{"input": map[string]any{"filename": "g.png", "content_type": "image/png"}})
	if g.Body["errors"] != nil {
		t.Fatalf("GraphQL requestUpload: %s", g.Raw)
	}
	gt := checkObject(t, "GraphQL ticket", g.Data()["ticket"], mdTicketSpec)
	if st := mdPut(t, gt, data, nil); st != http.StatusCreated {
		t.Fatalf("PUT: %d", st)
	}
	g = e.GraphQL(admin, op2("FinalizeUpload"), map[string]any{"input": map[string]any{"key": gt["key"]}})
	if g.Body["errors"] != nil {
		t.Fatalf("GraphQL finalizeUpload: %s", g.Raw)
	}
	gi := checkObject(t, "GraphQL image", g.Data()["image"], mdImageSpec)
	if gi["thumbhash"] != th || gi["width"] != float64(40) || gi["filename"] != "g.png" || gi["src"] == src {
		t.Fatalf("GraphQL image %v", gi)
	}
}

// TestMediaRefusals: what is not an image, not this store's, or not
// uploaded is refused.
func TestMediaRefusals(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Acme"), e.Store("Bolt")
	aKey, bKey := e.Key(a.ID, auth.RoleAdmin), e.Key(b.ID, auth.RoleAdmin)
	data := mdPNG(t, 8, 8)

	// Bytes that are not an image: 400, and the upload is gone.
	ticket := mdRequest(t, e, aKey, map[string]any{"filename": "fake.png"})
	if st := mdPut(t, ticket, []byte("%PDF-1.4 this is not an image"), nil); st != http.StatusCreated {
		t.Fatalf("PUT: %d", st)
	}
	e.Do(http.MethodPost, "/store/uploads/finalize", aKey, map[string]any{"key": ticket["key"]}).Expect(t, 400)
	e.Do(http.MethodPost, "/store/uploads/finalize", aKey, map[string]any{"key": ticket["key"]}).Expect(t, 404)

	// Another store's key is a 404 and stays finalisable by its owner.
	ticket = mdRequest(t, e, aKey, map[string]any{"filename": "mine.png"})
	if st := mdPut(t, ticket, data, nil); st != http.StatusCreated {
		t.Fatalf("PUT: %d", st)
	}
	e.Do(http.MethodPost, "/store/uploads/finalize", bKey, map[string]any{"key": ticket["key"]}).Expect(t, 404)
	if g := e.GraphQL(bKey, `mutation($k: String!) { finalizeUpload(input: {key: $k}) { src } }`, map[string]any{"k": ticket["key"]}); g.ErrorCode() != "NOT_FOUND" {
		t.Fatalf("GraphQL finalize of another store's key: %s", g.Raw)
	}
	mdFinalize(t, e, aKey, ticket["key"].(string))

	// Nothing uploaded yet, or no such key: 404.
	ticket = mdRequest(t, e, aKey, map[string]any{"filename": "later.png"})
	e.Do(http.MethodPost, "/store/uploads/finalize", aKey, map[string]any{"key": ticket["key"]}).Expect(t, 404)
	for _, k := range []string{"nonsense", "pending/" + strconv.FormatInt(a.ID, 10) + "/0123456789abcdef0123456789abcdef/x.png", "media/" + strconv.FormatInt(a.ID, 10) + "/x/y.png"} {
		e.Do(http.MethodPost, "/store/uploads/finalize", aKey, map[string]any{"key": k}).Expect(t, 404)
	}
	e.Do(http.MethodPost, "/store/uploads/finalize", aKey, map[string]any{}).Expect(t, 400)
	e.Do(http.MethodPost, "/store/uploads/finalize", aKey, map[string]any{"key": 5}).Expect(t, 400)

	// Requests: only the four image types, a usable name, a sane size.
	for _, body := range []any{
		map[string]any{"filename": "doc.pdf", "content_type": "application/pdf"},
		map[string]any{"filename": "doc.png", "content_type": "application/pdf"},
		map[string]any{"filename": "doc.pdf"},
		map[string]any{"filename": "noext"},
		map[string]any{"filename": "a.png", "content_type": "image/svg+xml"},
		map[string]any{"filename": "a.png", "content_type": "not a type"},
		map[string]any{"filename": "???"},
		map[string]any{"filename": ""},
		map[string]any{},
		map[string]any{"filename": "a.png", "size": 0},
		map[string]any{"filename": "a.png", "size": -1},
		map[string]any{"filename": "a.png", "size": ticket["max_bytes"].(float64) + 1},
	} {
		e.Do(http.MethodPost, "/store/uploads/request", aKey, body).Expect(t, 400)
	}
	for _, ct := range []string{"image/jpeg", "image/gif", "image/webp"} {
		tk := mdRequest(t, e, aKey, map[string]any{"filename": "x", "content_type": ct})
		if !reflect.DeepEqual(tk["headers"], map[string]any{"Content-Type": ct}) {
			t.Fatalf("%s ticket headers %v", ct, tk["headers"])
		}
	}

	// A tampered upload URL is refused.
	ticket = mdRequest(t, e, aKey, map[string]any{"filename": "t.png"})
	ticket["upload_url"] = strings.Replace(ticket["upload_url"].(string), "/t.png?", "/u.png?", 1)
	if st := mdPut(t, ticket, data, nil); st != http.StatusForbidden {
		t.Fatalf("PUT to a tampered URL: %d", st)
	}
}

// TestMediaAccess: uploads need media:write, any role; no key is a 401.
func TestMediaAccess(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	ticket := mdRequest(t, e, admin, map[string]any{"filename": "a.png"})
	calls := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/uploads/request", Body: map[string]any{"filename": "a.png"}},
		{Method: http.MethodPost, Path: "/store/uploads/request", Body: map[string]any{"filename": 5}}, // 401/403 before 400
		{Method: http.MethodPost, Path: "/store/uploads/finalize", Body: map[string]any{"key": ticket["key"]}},
		{Method: http.MethodPost, Path: "/store/uploads/finalize", Body: "{"},
	}
	e.ExpectEach(t, 401, map[string]string{"no key": "", "unknown key": "sa_api_nope"}, calls)
	e.ExpectEach(t, 403, map[string]string{
		"products:write":     e.Key(s.ID, auth.RoleAdmin, "products:write"),
		"collections:write":  e.Key(s.ID, auth.RoleAdmin, "collections:write"),
		"media:read":         e.Key(s.ID, auth.RoleAdmin, "media:read"),
		"staff products:all": e.Key(s.ID, auth.RoleStaff, "products:write", "collections:write"),
	}, calls)
	if g := e.GraphQL(e.Key(s.ID, auth.RoleAdmin, "products:write"), `mutation { requestUpload(input: {filename: "a.png"}) { key } }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("GraphQL requestUpload without media:write: %s", g.Raw)
	}
	// Uploads need the admin role (w in the spec), whatever the scopes.
	for _, k := range []string{e.Key(s.ID, auth.RoleStaff, "media:write"), e.Key(s.ID, auth.RoleStaff)} {
		e.Do(http.MethodPost, "/store/uploads/request", k, map[string]any{"filename": "staff.png"}).Expect(t, 403)
	}
}
