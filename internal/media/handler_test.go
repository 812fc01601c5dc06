package media

import (
	"bytes"
	"context"
	"encoding/json"
	"image/color"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestUploadFlow(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tests := []struct {
		name, filename, contentType string
		data                        []byte
		w, h                        int
	}{
		{"png", "shirt front.png", "image/png", pngBytes(t, 120, 80), 120, 80},
		{"jpeg", "shirt.jpg", "image/jpeg", jpegBytes(t, 64, 128), 64, 128},
		{"gif", "anim.gif", "image/gif", gifBytes(t, 31, 30), 31, 30},
		{"webp", "pic.webp", "image/webp", webpBytes(45, 15, color.NRGBA{250, 200, 0, 255}), 45, 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ticket, err := e.m.RequestUpload(77, tt.filename, "", int64(len(tt.data)))
			if err != nil {
				t.Fatal(err)
			}
			status, header, body := do(t, ticket.Method, ticket.URL, ticket.Headers["Content-Type"], bytes.NewReader(tt.data))
			if status != http.StatusCreated || header.Get("Content-Type") != "application/json; charset=utf-8" {
				t.Fatalf("PUT: %d %q %s", status, header.Get("Content-Type"), body)
			}
			var env envelope
			if err := json.Unmarshal(body, &env); err != nil || !env.Status || env.Key != ticket.Key {
				t.Fatalf("PUT answered %s", body)
			}

			img, err := e.m.FinalizeUpload(ctx, 77, ticket.Key)
			if err != nil {
				t.Fatal(err)
			}
			if img.ContentType != tt.contentType || img.Width != tt.w || img.Height != tt.h || img.Bytes != int64(len(tt.data)) {
				t.Errorf("image %+v", img)
			}
			if exists(t, e.m, ticket.Key) {
				t.Error("pending blob kept")
			}

			status, header, body = do(t, "GET", img.Src, "", nil)
			if status != 200 || !bytes.Equal(body, tt.data) {
				t.Fatalf("GET src: %d, %d bytes (want %d)", status, len(body), len(tt.data))
			}
			for name, want := range map[string]string{
				"Content-Type":           tt.contentType,
				"Cache-Control":          "public, max-age=31536000, immutable",
				"X-Content-Type-Options": "nosniff",
			} {
				if got := header.Get(name); got != want {
					t.Errorf("%s: %q, want %q", name, got, want)
				}
			}
			etag := header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}

			status, header, body = do(t, "HEAD", img.Src, "", nil)
			if status != 200 || len(body) != 0 || header.Get("Content-Type") != tt.contentType || header.Get("ETag") != etag {
				t.Errorf("HEAD: %d, %d bytes, %v", status, len(body), header)
			}

			status, _, body = do(t, "GET", img.Src, "", nil, "If-None-Match", etag)
			if status != http.StatusNotModified || len(body) != 0 {
				t.Errorf("If-None-Match: %d, %d bytes", status, len(body))
			}
			status, _, _ = do(t, "GET", img.Src, "", nil, "If-None-Match", `"other", `+etag)
			if status != http.StatusNotModified {
				t.Errorf("If-None-Match list: %d", status)
			}
			status, _, _ = do(t, "GET", img.Src, "", nil, "If-None-Match", `"other"`)
			if status != 200 {
				t.Errorf("stale If-None-Match: %d", status)
			}
		})
	}
}

func TestUploadSniffsTheType(t *testing.T) {
	// The client says PNG and sends a JPEG: the image is what the bytes are.
	e := newEnv(t)
	key := upload(t, e, 1, "photo.png", "image/png", jpegBytes(t, 20, 20))
	img, err := e.m.FinalizeUpload(context.Background(), 1, key)
	if err != nil {
		t.Fatal(err)
	}
	if img.ContentType != "image/jpeg" || img.Filename != "photo.jpg" || !strings.HasSuffix(img.Src, "/photo.jpg") {
		t.Errorf("image %+v", img)
	}
	_, header, _ := do(t, "GET", img.Src, "", nil)
	if ct := header.Get("Content-Type"); ct != "image/jpeg" {
		t.Errorf("served as %q", ct)
	}
}

func TestUploadRefusesTamperedURL(t *testing.T) {
	e := newEnv(t)
	ticket, err := e.m.RequestUpload(1, "a.png", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	data := pngBytes(t, 4, 4)
	u, _ := url.Parse(ticket.URL)
	q := u.Query()
	with := func(name, value string) string {
		q2 := url.Values{}
		for k, v := range q {
			q2[k] = v
		}
		if value == "" {
			q2.Del(name)
		} else {
			q2.Set(name, value)
		}
		u2 := *u
		u2.RawQuery = q2.Encode()
		return u2.String()
	}
	sig := q.Get("sig")
	flipped := string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", sig[0])+1)%16]) + sig[1:]
	otherKey := strings.Replace(ticket.URL, "/pending/1/", "/pending/2/", 1)
	tests := map[string]string{
		"signature":     with("sig", flipped),
		"no signature":  with("sig", ""),
		"not hex":       with("sig", "zz"+sig[2:]),
		"expiry":        with("expires", "99999999999"),
		"limit":         with("max", "999999999"),
		"content type":  with("ct", "image/gif"),
		"another store": otherKey,
		"another name":  strings.Replace(ticket.URL, "/a.png?", "/b.png?", 1),
	}
	for name, target := range tests {
		t.Run(name, func(t *testing.T) {
			ct := "image/png"
			if name == "content type" {
				ct = "image/gif"
			}
			status, header, body := do(t, "PUT", target, ct, bytes.NewReader(data))
			wantFailure(t, status, header, body, http.StatusForbidden, "not valid")
		})
	}
	if stored := blobKeys(t, e.m); len(stored) > 0 {
		t.Errorf("something was stored: %v", stored)
	}
}

func TestUploadExpired(t *testing.T) {
	e := newEnv(t)
	ticket, err := e.m.RequestUpload(1, "a.png", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.advance(14*time.Minute + 58*time.Second)
	if status, _, body := do(t, "PUT", ticket.URL, "image/png", bytes.NewReader(pngBytes(t, 2, 2))); status != 201 {
		t.Fatalf("just before expiry: %d %s", status, body)
	}
	e.clock.advance(2 * time.Second)
	status, header, body := do(t, "PUT", ticket.URL, "image/png", bytes.NewReader(pngBytes(t, 2, 2)))
	wantFailure(t, status, header, body, http.StatusForbidden, "this upload URL has expired")
}

func TestUploadWrongContentType(t *testing.T) {
	e := newEnv(t)
	ticket, err := e.m.RequestUpload(1, "a.png", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range []string{"image/jpeg", "", "application/octet-stream", "image/png/x"} {
		status, header, body := do(t, "PUT", ticket.URL, ct, bytes.NewReader(pngBytes(t, 2, 2)))
		wantFailure(t, status, header, body, http.StatusBadRequest, "Content-Type", "image/png")
	}
	// Parameters and case do not matter.
	if status, _, body := do(t, "PUT", ticket.URL, "Image/PNG; charset=binary", bytes.NewReader(pngBytes(t, 2, 2))); status != 201 {
		t.Errorf("PUT with parameters: %d %s", status, body)
	}
}

// onlyReader hides the length of a body, so the client sends it chunked and
// the server learns the size only by reading.
type onlyReader struct{ io.Reader }

func TestUploadTooLarge(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxUploadBytes = 1000 })
	for name, body := range map[string]func() io.Reader{
		"declared length": func() io.Reader { return bytes.NewReader(make([]byte, 1001)) },
		"chunked":         func() io.Reader { return onlyReader{bytes.NewReader(make([]byte, 50_000))} },
	} {
		t.Run(name, func(t *testing.T) {
			ticket, err := e.m.RequestUpload(1, "big.png", "", 0)
			if err != nil {
				t.Fatal(err)
			}
			status, header, resp := do(t, "PUT", ticket.URL, "image/png", body())
			wantFailure(t, status, header, resp, http.StatusRequestEntityTooLarge, "1000 bytes")
			if exists(t, e.m, ticket.Key) {
				t.Error("a partial blob was left behind")
			}
		})
	}
	t.Run("exactly the limit", func(t *testing.T) {
		ticket, _ := e.m.RequestUpload(1, "edge.png", "", 0)
		status, _, resp := do(t, "PUT", ticket.URL, "image/png", onlyReader{bytes.NewReader(make([]byte, 1000))})
		if status != 201 {
			t.Errorf("%d %s", status, resp)
		}
	})
}

func TestUploadRetryOverwrites(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxUploadBytes = 100_000 })
	ticket, err := e.m.RequestUpload(1, "a.png", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	first, second := pngBytes(t, 5, 5), pngBytes(t, 9, 7)
	for _, data := range [][]byte{first, second} {
		if status, _, body := do(t, "PUT", ticket.URL, "image/png", bytes.NewReader(data)); status != 201 {
			t.Fatalf("PUT: %d %s", status, body)
		}
	}
	// A failed third attempt keeps the complete second one.
	status, _, _ := do(t, "PUT", ticket.URL, "image/png", onlyReader{bytes.NewReader(make([]byte, 200_000))})
	if status != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized retry: %d", status)
	}
	img, err := e.m.FinalizeUpload(context.Background(), 1, ticket.Key)
	if err != nil {
		t.Fatal(err)
	}
	if img.Width != 9 || img.Height != 7 {
		t.Errorf("finalised %dx%d, want the second upload's 9x7", img.Width, img.Height)
	}
}

func TestUploadEmptyBody(t *testing.T) {
	e := newEnv(t)
	ticket, _ := e.m.RequestUpload(1, "a.png", "", 0)
	status, header, body := do(t, "PUT", ticket.URL, "image/png", http.NoBody)
	wantFailure(t, status, header, body, http.StatusBadRequest, "empty")
	if exists(t, e.m, ticket.Key) {
		t.Error("empty blob stored")
	}
}

func TestMediaRefusesTraversalAndMissing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	img, err := e.m.PutImage(ctx, 1, "a.png", pngBytes(t, 3, 3))
	if err != nil {
		t.Fatal(err)
	}
	// Something worth reaching: a pending upload and a download.
	pending := upload(t, e, 1, "secret.png", "image/png", []byte("private bytes"))
	d, err := e.m.PutDownload(ctx, 1, "orders.csv", "", []byte("private"))
	if err != nil {
		t.Fatal(err)
	}
	rnd := strings.Split(img.Key, "/")[2]

	h := e.m.Handler()
	for _, target := range []string{
		"/media/1/0123456789abcdef/none.png",
		"/media/1/" + rnd + "/other.png",
		"/media/2/" + rnd + "/a.png",
		"/media/1/" + rnd + "/..%2F..%2F..%2F" + url.PathEscape(pending),
		"/media/..%2F" + url.PathEscape(pending),
		"/media/%2E%2E/" + pending,
		"/media/1/" + rnd,
		"/media/1/" + rnd + "/a.png/x",
		"/media/" + strings.TrimPrefix(pending, "pending/"),
		"/media/..%2F" + d.Key,
		"/media/",
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		res := rec.Result()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode/100 == 3 {
			// The mux cleans "..": follow, it must not land on a blob.
			loc := res.Header.Get("Location")
			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", loc, nil))
			res = rec.Result()
			body, _ = io.ReadAll(res.Body)
		}
		wantFailure(t, res.StatusCode, res.Header, body, http.StatusNotFound)
	}

	// Through a real client too, which sends ".." as is.
	status, header, body := do(t, "GET", e.srv.URL+"/media/1/"+rnd+"/../../../"+pending, "", nil)
	wantFailure(t, status, header, body, http.StatusNotFound)
	status, header, body = do(t, "HEAD", e.srv.URL+"/media/1/0123456789abcdef/none.png", "", nil)
	if status != 404 || len(body) != 0 {
		t.Errorf("HEAD missing: %d %q", status, body)
	}
	_ = header
}

func TestHandlerMethodsAndUnknownPaths(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		method, path string
		status       int
		allow        string
	}{
		{"POST", "/uploads/pending/1/0123456789abcdef/a.png", 405, "PUT"},
		{"GET", "/uploads/pending/1/0123456789abcdef/a.png", 405, "PUT"},
		{"PUT", "/media/1/0123456789abcdef/a.png", 405, "GET, HEAD"},
		{"DELETE", "/files/downloads/1/2/0123456789abcdef/a.csv", 405, "GET, HEAD"},
		{"GET", "/", 404, ""},
		{"GET", "/api/v1/store", 404, ""},
		{"PUT", "/uploads/", 403, ""},
	}
	for _, tt := range tests {
		status, header, body := do(t, tt.method, e.srv.URL+tt.path, "", nil)
		wantFailure(t, status, header, body, tt.status)
		if got := header.Get("Allow"); got != tt.allow {
			t.Errorf("%s %s: Allow %q, want %q", tt.method, tt.path, got, tt.allow)
		}
	}
}

func TestDownloadFlow(t *testing.T) {
	e := newEnv(t)
	data := []byte("sku,stock\nA-1,3\n")
	d, err := e.m.PutDownload(context.Background(), 8, "stock levels.csv", "text/csv", data)
	if err != nil {
		t.Fatal(err)
	}
	status, header, body := do(t, "GET", d.URL, "", nil)
	if status != 200 || !bytes.Equal(body, data) {
		t.Fatalf("GET: %d %q", status, body)
	}
	for name, want := range map[string]string{
		"Content-Type":           "text/csv",
		"Content-Disposition":    `attachment; filename="stock-levels.csv"`,
		"Cache-Control":          "private, no-store",
		"X-Content-Type-Options": "nosniff",
	} {
		if got := header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	status, header, body = do(t, "HEAD", d.URL, "", nil)
	if status != 200 || len(body) != 0 || header.Get("Content-Length") != "16" {
		t.Errorf("HEAD: %d %q %v", status, body, header)
	}

	// Deleted (swept, say) before it expired.
	if err := e.m.store.remove(context.Background(), d.Key); err != nil {
		t.Fatal(err)
	}
	status, header, body = do(t, "GET", d.URL, "", nil)
	wantFailure(t, status, header, body, http.StatusNotFound, "no longer exists")
}

func TestDownloadRefusesTamperedAndExpired(t *testing.T) {
	e := newEnv(t)
	d, err := e.m.PutDownload(context.Background(), 8, "a.csv", "", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.m.PutDownload(context.Background(), 9, "b.csv", "", []byte("y"))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(d.URL)
	exp, sig := u.Query().Get("expires"), u.Query().Get("sig")
	otherSig, _ := url.Parse(other.URL)
	for name, target := range map[string]string{
		"flipped signature":     strings.Replace(d.URL, "sig="+sig[:4], "sig="+strings.ToUpper(sig[:1])+"fff", 1),
		"no signature":          strings.Split(d.URL, "&sig=")[0],
		"later expiry":          strings.Replace(d.URL, "expires="+exp, "expires=9999999999", 1),
		"another file":          strings.Replace(d.URL, "/a.csv?", "/b.csv?", 1),
		"another file's sig":    e.srv.URL + "/files/" + d.Key + "?" + otherSig.RawQuery,
		"upload-style query":    e.srv.URL + "/files/" + d.Key + "?expires=" + exp,
		"signature of nothing":  e.srv.URL + "/files/" + d.Key + "?expires=" + exp + "&sig=",
		"signature for uploads": e.srv.URL + "/files/" + d.Key + "?expires=" + exp + "&sig=" + e.m.sign("PUT", d.Key, exp),
	} {
		t.Run(name, func(t *testing.T) {
			status, header, body := do(t, "GET", target, "", nil)
			wantFailure(t, status, header, body, http.StatusForbidden, "not valid")
		})
	}

	e.clock.advance(10 * time.Minute)
	status, header, body := do(t, "GET", d.URL, "", nil)
	wantFailure(t, status, header, body, http.StatusForbidden, "expired")
}

func TestDownloadMalformedButSigned(t *testing.T) {
	// A URL this package would never sign, signed anyway: the key is checked
	// all the same.
	e := newEnv(t)
	key := "downloads/1/9999999999/0123456789abcdef/../x.csv"
	target := e.srv.URL + "/files/" + key + "?expires=9999999999&sig=" + e.m.sign("GET", key, "9999999999")
	h := e.m.Handler()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", strings.Replace(target, e.srv.URL, "", 1), nil))
	if rec.Code != http.StatusBadRequest && rec.Code/100 != 3 {
		t.Errorf("status %d, want 400 (or the mux's redirect to a clean path)", rec.Code)
	}
	key = "downloads/1/9999999999/0123456789abcdef/x.csv"
	target = "/files/" + key + "?expires=1&sig=" + e.m.sign("GET", key, "1")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
	wantFailure(t, rec.Code, rec.Result().Header, rec.Body.Bytes(), http.StatusBadRequest, "malformed")
}
