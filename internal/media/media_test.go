package media

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/color"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"storeadmin/internal/base/apperr"
)

func TestOpenValidatesConfig(t *testing.T) {
	ctx := context.Background()
	good := Config{BucketURL: "file://" + filepath.ToSlash(t.TempDir()), PublicURL: "http://127.0.0.1:8080", SigningKey: testKey}
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"short key", func(c *Config) { c.SigningKey = []byte("short") }, "at least 32 bytes"},
		{"no key", func(c *Config) { c.SigningKey = nil }, "at least 32 bytes"},
		{"relative public URL", func(c *Config) { c.PublicURL = "/media" }, "absolute http(s) URL"},
		{"ftp public URL", func(c *Config) { c.PublicURL = "ftp://example.com" }, "absolute http(s) URL"},
		{"no bucket", func(c *Config) { c.BucketURL = "" }, "bucket URL"},
		{"unknown scheme", func(c *Config) { c.BucketURL = "gs://bucket" }, "file:// or s3://"},
		{"relative folder", func(c *Config) { c.BucketURL = "file://blobs" }, "absolute path"},
		{"file unknown option", func(c *Config) { c.BucketURL = "file:///tmp/x?metadata=skip" }, `unknown option "metadata"`},
		{"S3 without a bucket", func(c *Config) { c.BucketURL = "s3:///?region=eu-west-1" }, "s3://bucket"},
		{"S3 unknown option", func(c *Config) { c.BucketURL = "s3://b?endpont=127.0.0.1:9" }, `unknown option "endpont"`},
		{"negative limit", func(c *Config) { c.MaxUploadBytes = -1 }, "negative"},
		{"negative TTL", func(c *Config) { c.UploadTTL = -time.Second }, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			tt.mutate(&cfg)
			_, err := Open(ctx, cfg, nil)
			if err == nil {
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}

	cfg := good
	cfg.PublicURL += "/"
	m, err := Open(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.publicURL != "http://127.0.0.1:8080" {
		t.Errorf("public URL %q keeps its trailing slash", m.publicURL)
	}
	if m.maxUpload != 20<<20 || m.uploadTTL != 15*time.Minute || m.dlTTL != 10*time.Minute {
		t.Errorf("defaults: max %d, upload TTL %v, download TTL %v", m.maxUpload, m.uploadTTL, m.dlTTL)
	}
	if m.now == nil {
		t.Error("nil clock not replaced by time.Now")
	}
}

func TestFileBucketCreatesDirAndServes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet", "there")
	e := newEnv(t, func(c *Config) { c.BucketURL = "file://" + filepath.ToSlash(dir) })

	data := pngBytes(t, 30, 20)
	img, err := e.m.PutImage(context.Background(), 7, "logo.png", data)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(img.Key)))
	if err != nil {
		t.Fatalf("image not on disk: %v", err)
	}
	if string(onDisk) != string(data) {
		t.Error("bytes on disk differ")
	}
	status, header, body := do(t, "GET", img.Src, "", nil)
	if status != 200 || string(body) != string(data) || header.Get("Content-Type") != "image/png" {
		t.Errorf("GET src: %d %q, %d bytes", status, header.Get("Content-Type"), len(body))
	}

	// The full upload flow, including the aborted write of a refused body.
	ticket, err := e.m.RequestUpload(7, "b.png", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if status, _, body := do(t, "PUT", ticket.URL, "image/png", strings.NewReader(string(data))); status != 201 {
		t.Fatalf("PUT: %d %s", status, body)
	}
	if _, err := e.m.FinalizeUpload(context.Background(), 7, ticket.Key); err != nil {
		t.Fatal(err)
	}
	if exists(t, e.m, ticket.Key) {
		t.Error("pending blob left after finalize")
	}
}

func TestSanitizeFilename(t *testing.T) {
	long := strings.Repeat("a", 150)
	tests := []struct{ in, want string }{
		{"photo.png", "photo.png"},
		{"My Photo (1).JPG", "My-Photo-1-.JPG"},
		{"  spaces  .png", "spaces-.png"},
		{"C:\\Users\\me\\Desktop\\cat.gif", "cat.gif"},
		{"/etc/passwd", "passwd"},
		{"../../secret.png", "secret.png"},
		{"..", ""},
		{".hidden", "hidden"},
		{"a..b...c.png", "a.b.c.png"},
		{"a--b___c.png", "a-b___c.png"},
		{"café-crème.webp", "caf-cr-me.webp"},
		{"日本語.png", "png"},
		{"???", ""},
		{"", ""},
		{"-dash-.png-", "dash-.png"},
		{long + ".jpeg", strings.Repeat("a", 95) + ".jpeg"},
		{long, strings.Repeat("a", 100)},
		{"report.final.version.csv", "report.final.version.csv"},
		{"notes.attrs", "notes-attrs"},
		{"photo.png.ATTRS", "photo.png-ATTRS"},
		{"x." + strings.Repeat("e", 20), "x." + strings.Repeat("e", 20)},
		{strings.Repeat("ab-", 40) + ".png", strings.TrimRight(strings.Repeat("ab-", 40)[:96], "-") + ".png"},
	}
	for _, tt := range tests {
		got := sanitizeFilename(tt.in)
		if got != tt.want {
			t.Errorf("sanitizeFilename(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) > 100 {
			t.Errorf("sanitizeFilename(%q) is %d bytes", tt.in, len(got))
		}
		if again := sanitizeFilename(got); again != got {
			t.Errorf("not idempotent: %q -> %q -> %q", tt.in, got, again)
		}
		if got != "" && !isCleanFilename(got) {
			t.Errorf("isCleanFilename(%q) = false", got)
		}
	}
	for _, bad := range []string{"", "..", ".x", "a/b", "a b", "-a", "a..b", "a\n"} {
		if isCleanFilename(bad) {
			t.Errorf("isCleanFilename(%q) = true", bad)
		}
	}
}

func TestSanitizeFilenameIdempotent(t *testing.T) {
	// A cheap fuzz: every output is clean and a fixed point.
	alphabet := []byte("ab.-_ /\\é?Z9")
	var names []string
	var gen func(prefix []byte, n int)
	gen = func(prefix []byte, n int) {
		names = append(names, string(prefix))
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(append(prefix, c), n-1)
		}
	}
	gen(nil, 4)
	for _, n := range names {
		got := sanitizeFilename(n)
		if got == "" {
			continue
		}
		if sanitizeFilename(got) != got || strings.Contains(got, "..") || strings.ContainsAny(got, "/\\ ") ||
			strings.HasPrefix(got, ".") || strings.HasPrefix(got, "-") {
			t.Fatalf("sanitizeFilename(%q) = %q", n, got)
		}
	}
}

func TestRequestUpload(t *testing.T) {
	e := newEnv(t)
	ticket, err := e.m.RequestUpload(42, "Summer Sale!.png", "", 1234)
	if err != nil {
		t.Fatal(err)
	}
	if ticket.Method != "PUT" {
		t.Errorf("method %q", ticket.Method)
	}
	if ticket.Headers["Content-Type"] != "image/png" || len(ticket.Headers) != 1 {
		t.Errorf("headers %v", ticket.Headers)
	}
	parts := strings.Split(ticket.Key, "/")
	if len(parts) != 4 || parts[0] != "pending" || parts[1] != "42" || !isRandomHex(parts[2]) || parts[3] != "Summer-Sale-.png" {
		t.Errorf("key %q", ticket.Key)
	}
	if ticket.MaxBytes != 20<<20 {
		t.Errorf("max bytes %d", ticket.MaxBytes)
	}
	wantExp := e.clock.now().Add(15 * time.Minute).Truncate(time.Second)
	if d := ticket.ExpiresAt.Sub(wantExp); d < -time.Second || d > time.Second {
		t.Errorf("expires at %v, want about %v", ticket.ExpiresAt, wantExp)
	}
	u, err := url.Parse(ticket.URL)
	if err != nil {
		t.Fatal(err)
	}
	if base := e.srv.URL + "/uploads/" + ticket.Key; !strings.HasPrefix(ticket.URL, base+"?") {
		t.Errorf("URL %q does not start with %q", ticket.URL, base)
	}
	q := u.Query()
	if q.Get("expires") != strconv.FormatInt(ticket.ExpiresAt.Unix(), 10) || q.Get("max") != "20971520" ||
		q.Get("ct") != "image/png" || len(q.Get("sig")) != 64 {
		t.Errorf("query %v", q)
	}

	// Two tickets for one filename get different keys.
	other, err := e.m.RequestUpload(42, "Summer Sale!.png", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if other.Key == ticket.Key {
		t.Error("two uploads share a key")
	}
}

func TestRequestUploadContentType(t *testing.T) {
	e := newEnv(t)
	tests := []struct{ filename, contentType, want string }{
		{"a.png", "", "image/png"},
		{"a.PNG", "", "image/png"},
		{"a.jpg", "", "image/jpeg"},
		{"a.jpeg", "", "image/jpeg"},
		{"a.gif", "", "image/gif"},
		{"a.webp", "", "image/webp"},
		{"a.png", "image/jpeg", "image/jpeg"}, // the bytes decide later
		{"noext", "image/gif", "image/gif"},
		{"a.heic", "image/webp", "image/webp"},
		{"a.jpg", "image/jpg", "image/jpeg"},
		{"a.png", "IMAGE/PNG; charset=binary", "image/png"},
	}
	for _, tt := range tests {
		ticket, err := e.m.RequestUpload(1, tt.filename, tt.contentType, 0)
		if err != nil {
			t.Errorf("%q %q: %v", tt.filename, tt.contentType, err)
			continue
		}
		if got := ticket.Headers["Content-Type"]; got != tt.want {
			t.Errorf("%q %q: content type %q, want %q", tt.filename, tt.contentType, got, tt.want)
		}
	}
}

func TestRequestUploadRefuses(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxUploadBytes = 5 << 20 })
	tests := []struct {
		name, filename, contentType string
		size                        int64
		contains                    []string
	}{
		{"unsupported type", "a.png", "image/bmp", 0, []string{`"image/bmp" is not accepted`, "PNG, JPEG, GIF or WebP", "image/webp"}},
		{"not a type", "a.png", "png", 0, []string{`"png" is not accepted`, "image/png"}},
		{"not a media type", "a.png", "image/png;;", 0, []string{"not a valid media type", "image/png"}},
		{"svg", "a.svg", "image/svg+xml", 0, []string{"not accepted"}},
		{"unknown extension", "a.bmp", "", 0, []string{"cannot tell the image type", ".png, .jpg, .gif or .webp"}},
		{"no extension", "photo", "", 0, []string{"cannot tell the image type"}},
		{"too large", "a.png", "", 5<<20 + 1, []string{"5.0 MiB", "largest upload accepted is 5 MiB"}},
		{"negative size", "a.png", "", -1, []string{"negative"}},
		{"empty filename", "", "image/png", 0, []string{"no usable characters"}},
		{"unusable filename", "???", "image/png", 0, []string{"no usable characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.m.RequestUpload(1, tt.filename, tt.contentType, tt.size)
			wantCode(t, err, apperr.Invalid, tt.contains...)
		})
	}
	// Exactly the limit is fine.
	if _, err := e.m.RequestUpload(1, "a.png", "", 5<<20); err != nil {
		t.Errorf("size at the limit: %v", err)
	}
	if _, err := e.m.RequestUpload(0, "a.png", "", 0); err == nil {
		t.Error("store 0 accepted")
	}
}

func TestPutImage(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tests := []struct {
		name, filename string
		data           []byte
		wantType       string
		wantFilename   string
		w, h           int
	}{
		{"png", "a.png", pngBytes(t, 64, 32), "image/png", "a.png", 64, 32},
		{"jpeg", "b.jpeg", jpegBytes(t, 40, 90), "image/jpeg", "b.jpeg", 40, 90},
		{"gif", "c.gif", gifBytes(t, 17, 17), "image/gif", "c.gif", 17, 17},
		{"webp", "d.webp", webpBytes(33, 21, color.NRGBA{200, 30, 90, 255}), "image/webp", "d.webp", 33, 21},
		{"jpeg named png", "e.png", jpegBytes(t, 10, 10), "image/jpeg", "e.jpg", 10, 10},
		{"no extension", "f", gifBytes(t, 5, 6), "image/gif", "f.gif", 5, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := e.m.PutImage(ctx, 3, tt.filename, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if img.ContentType != tt.wantType || img.Filename != tt.wantFilename || img.Width != tt.w || img.Height != tt.h ||
				img.Bytes != int64(len(tt.data)) {
				t.Errorf("image %+v", img)
			}
			k, ok := parseImageKey("media", img.Key)
			if !ok || k.storeID != 3 || k.filename != tt.wantFilename {
				t.Errorf("key %q", img.Key)
			}
			if img.Src != e.srv.URL+"/"+img.Key {
				t.Errorf("src %q", img.Src)
			}
			hash, err := base64.StdEncoding.DecodeString(img.Thumbhash)
			if err != nil || len(hash) < 5 || len(hash) > 25 {
				t.Errorf("thumbhash %q: %v", img.Thumbhash, err)
			}
			if !e.m.Owns(3, img.Src) {
				t.Errorf("Owns(3, %q) = false", img.Src)
			}
			attrs, err := e.m.store.stat(ctx, img.Key)
			if err != nil {
				t.Fatal(err)
			}
			if attrs.contentType != tt.wantType {
				t.Errorf("stored as %q", attrs.contentType)
			}
		})
	}

	t.Run("webp colour", func(t *testing.T) {
		// The hand-made WebP decodes to its colour.
		img, err := e.m.PutImage(ctx, 3, "w.webp", webpBytes(8, 8, color.NRGBA{10, 200, 60, 255}))
		if err != nil {
			t.Fatal(err)
		}
		hash, _ := base64.StdEncoding.DecodeString(img.Thumbhash)
		r, g, b, _ := thumbhashAverage(hash)
		if r > 0.1 || g < 0.7 || b > 0.3 {
			t.Errorf("average %.2f %.2f %.2f, want green", r, g, b)
		}
	})
}

func TestPutImageRefuses(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxUploadBytes = 64 << 10 })
	ctx := context.Background()
	bmp := []byte("BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00")
	tests := []struct {
		name     string
		filename string
		data     []byte
		code     apperr.Code
		contains []string
	}{
		{"text", "a.png", []byte("hello, world"), apperr.Invalid, []string{"not an image", "PNG, JPEG, GIF or WebP"}},
		{"empty", "a.png", nil, apperr.Invalid, []string{"not an image"}},
		{"bmp", "a.bmp", bmp, apperr.Invalid, []string{"not an image"}},
		{"truncated png", "a.png", pngBytes(t, 50, 50)[:60], apperr.Invalid, []string{"not an image"}},
		{"too wide", "a.png", pngClaiming(t, 12001, 1), apperr.Invalid, []string{"12001x1", "12000x12000"}},
		{"too tall", "a.png", pngClaiming(t, 1, 20000), apperr.Invalid, []string{"1x20000"}},
		{"too many pixels", "a.png", pngClaiming(t, 8000, 7000), apperr.Invalid, []string{"56.0 megapixels", "50 megapixels"}},
		{"too many bytes", "a.png", make([]byte, 64<<10+1), apperr.Invalid, []string{"largest upload accepted is 64.0 KiB"}},
		{"bad filename", "///", pngBytes(t, 2, 2), apperr.Invalid, []string{"no usable characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.m.PutImage(ctx, 1, tt.filename, tt.data)
			wantCode(t, err, tt.code, tt.contains...)
		})
	}
	// Nothing was stored.
	if stored := blobKeys(t, e.m); len(stored) > 0 {
		t.Errorf("bucket not empty: %v", stored)
	}
	// At the limits is fine (the pixels are checked, the data is a 4x4 PNG
	// that claims 12000x1: it fails to decode, not the size check).
	_, err := e.m.PutImage(ctx, 1, "a.png", pngClaiming(t, 12000, 1))
	wantCode(t, err, apperr.Invalid, "not an image")
}

func TestInspectImageChecksSizeBeforeDecoding(t *testing.T) {
	// A 4x4 PNG claiming 12000x12000: were it decoded first, the answer would
	// be "not an image" (or a 576 MB allocation); the size check comes first.
	_, err := inspectImage(pngClaiming(t, 12000, 12000))
	wantCode(t, err, apperr.Invalid, "144.0 megapixels")
}

func TestOwns(t *testing.T) {
	e := newEnv(t)
	img, err := e.m.PutImage(context.Background(), 5, "x.png", pngBytes(t, 3, 3))
	if err != nil {
		t.Fatal(err)
	}
	base := e.srv.URL
	tests := []struct {
		store int64
		src   string
		want  bool
	}{
		{5, img.Src, true},
		{6, img.Src, false},
		{5, strings.Replace(img.Src, "/media/", "/pending/", 1), false},
		{5, "https://cdn.example.com/" + img.Key, false},
		{5, base + "/media/5/0123456789abcdef/y.png", true}, // the shape is ours; the caller looks it up
		{5, base + "/media/5/0123456789abcdef/../../x.png", false},
		{5, base + "/media/05/0123456789abcdef/y.png", false},
		{5, base + "/media/5/0123456789ABCDEF/y.png", false},
		{5, base + "/media/5/0123456789abcdef/y.png?x=1", false},
		{5, base + "/media/5/0123456789abcdef/a/y.png", false},
		{5, base + "/media/5/", false},
		{5, base + "media/5/0123456789abcdef/y.png", false},
		{5, "", false},
	}
	for _, tt := range tests {
		if got := e.m.Owns(tt.store, tt.src); got != tt.want {
			t.Errorf("Owns(%d, %q) = %v, want %v", tt.store, tt.src, got, tt.want)
		}
	}
}

func TestFinalizeRefusesOtherStoresAndMalformedKeys(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ticket, err := e.m.RequestUpload(1, "a.png", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if status, _, body := do(t, "PUT", ticket.URL, "image/png", strings.NewReader(string(pngBytes(t, 4, 4)))); status != 201 {
		t.Fatalf("PUT: %d %s", status, body)
	}

	_, err = e.m.FinalizeUpload(ctx, 2, ticket.Key)
	wantCode(t, err, apperr.NotFound)
	if !exists(t, e.m, ticket.Key) {
		t.Fatal("another store's finalize deleted the pending upload")
	}

	rnd := strings.Split(ticket.Key, "/")[2]
	for _, key := range []string{
		"",
		"a.png",
		"media/1/" + rnd + "/a.png",
		"pending/1/" + rnd,
		"pending/1/" + rnd + "/a.png/x",
		"pending/01/" + rnd + "/a.png",
		"pending/+1/" + rnd + "/a.png",
		"pending/1/" + strings.ToUpper(rnd) + "/a.png",
		"pending/1/" + rnd + "/../a.png",
		"pending/1/" + rnd + "/a b.png",
		"/pending/1/" + rnd + "/a.png",
		"pending/1/../1/" + rnd + "/a.png",
	} {
		_, err := e.m.FinalizeUpload(ctx, 1, key)
		wantCode(t, err, apperr.NotFound)
	}

	// Nothing uploaded to a well-formed key.
	fresh, _ := e.m.RequestUpload(1, "b.png", "", 0)
	_, err = e.m.FinalizeUpload(ctx, 1, fresh.Key)
	wantCode(t, err, apperr.NotFound, "nothing was uploaded to this key yet")

	// The owner still can.
	if _, err := e.m.FinalizeUpload(ctx, 1, ticket.Key); err != nil {
		t.Fatal(err)
	}
}

func TestFinalizeTwice(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	key := upload(t, e, 9, "twice.gif", "image/gif", gifBytes(t, 8, 8))
	if _, err := e.m.FinalizeUpload(ctx, 9, key); err != nil {
		t.Fatal(err)
	}
	_, err := e.m.FinalizeUpload(ctx, 9, key)
	wantCode(t, err, apperr.NotFound, "nothing was uploaded")
}

func TestFinalizeConcurrently(t *testing.T) {
	e := newEnv(t)
	key := upload(t, e, 9, "race.png", "image/png", pngBytes(t, 50, 50))
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { _, errs[i] = e.m.FinalizeUpload(context.Background(), 9, key) })
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case apperr.CodeOf(err) != apperr.NotFound:
			t.Errorf("unexpected error %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d finalisations succeeded, want 1", ok)
	}
	if len(e.m.finalizing) != 0 {
		t.Errorf("locks left: %v", e.m.finalizing)
	}
}

func TestFinalizeNotAnImageDeletesPending(t *testing.T) {
	e := newEnv(t)
	key := upload(t, e, 4, "fake.png", "image/png", []byte("<html>not a png</html>"))
	_, err := e.m.FinalizeUpload(context.Background(), 4, key)
	wantCode(t, err, apperr.Invalid, "the uploaded file is not an image")
	if exists(t, e.m, key) {
		t.Error("pending blob of a non-image kept")
	}
	if status := apperr.CodeOf(err).HTTPStatus(); status != 400 {
		t.Errorf("HTTP status %d", status)
	}
}

func TestFinalizeOversizedPending(t *testing.T) {
	// Only a writer other than Handler can put more than the limit there.
	e := newEnv(t, func(c *Config) { c.MaxUploadBytes = 100 })
	ctx := context.Background()
	ticket, _ := e.m.RequestUpload(4, "big.png", "", 0)
	data := pngBytes(t, 40, 40)
	if err := e.m.store.put(ctx, ticket.Key, bytes.NewReader(data), int64(len(data)), "image/png"); err != nil {
		t.Fatal(err)
	}
	_, err := e.m.FinalizeUpload(ctx, 4, ticket.Key)
	wantCode(t, err, apperr.Invalid, "larger than 100 bytes")
	if exists(t, e.m, ticket.Key) {
		t.Error("oversized pending blob kept")
	}
}

func TestDownloads(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	data := []byte("id,total\n1,100\n")
	d, err := e.m.PutDownload(ctx, 12, "Orders export 2024.csv", "", data)
	if err != nil {
		t.Fatal(err)
	}
	if d.Filename != "Orders-export-2024.csv" || !strings.HasPrefix(d.ContentType, "text/csv") {
		t.Errorf("download %+v", d)
	}
	k, ok := parseDownloadKey(d.Key)
	if !ok || k.storeID != 12 || k.expires != d.ExpiresAt.Unix() || k.filename != d.Filename {
		t.Errorf("key %q", d.Key)
	}
	if want := e.clock.now().Add(10 * time.Minute); d.ExpiresAt.Sub(want) > time.Second || want.Sub(d.ExpiresAt) > time.Second {
		t.Errorf("expires at %v, want about %v", d.ExpiresAt, want)
	}
	if !strings.HasPrefix(d.URL, e.srv.URL+"/files/"+d.Key+"?expires=") || !strings.Contains(d.URL, "&sig=") {
		t.Errorf("URL %q", d.URL)
	}

	r, err := e.m.OpenDownload(ctx, d.Key)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if string(got) != string(data) {
		t.Errorf("OpenDownload read %q", got)
	}

	for _, tt := range []struct{ filename, contentType, want string }{
		{"a.xlsx", "", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
		{"a.unknownext", "", "application/octet-stream"},
		{"a", "", "application/octet-stream"},
		{"a.csv", "Text/CSV; Charset=UTF-8", "text/csv; charset=UTF-8"},
	} {
		d, err := e.m.PutDownload(ctx, 12, tt.filename, tt.contentType, nil)
		if err != nil {
			t.Errorf("%q: %v", tt.filename, err)
			continue
		}
		if d.ContentType != tt.want {
			t.Errorf("%q %q: content type %q, want %q", tt.filename, tt.contentType, d.ContentType, tt.want)
		}
	}
	_, err = e.m.PutDownload(ctx, 12, "a.csv", "not a type;;", nil)
	wantCode(t, err, apperr.Invalid)
	_, err = e.m.PutDownload(ctx, 12, "%%%", "", nil)
	wantCode(t, err, apperr.Invalid)
}

func TestOpenDownloadNotFound(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	d, err := e.m.PutDownload(ctx, 1, "a.csv", "text/csv", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{
		"",
		"downloads/1/123/0123456789abcdef/a.csv", // well-formed, long expired
		strings.Replace(d.Key, "a.csv", "b.csv", 1),
		"downloads/1/../" + d.Key,
		"media/1/0123456789abcdef/a.csv",
	} {
		_, err := e.m.OpenDownload(ctx, key)
		wantCode(t, err, apperr.NotFound)
	}
	e.clock.advance(10 * time.Minute)
	_, err = e.m.OpenDownload(ctx, d.Key)
	wantCode(t, err, apperr.NotFound)
}

func TestSweep(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	expiring, err := e.m.PutDownload(ctx, 1, "old.csv", "", []byte("old"))
	if err != nil {
		t.Fatal(err)
	}
	pendingKey := upload(t, e, 1, "p.png", "image/png", pngBytes(t, 2, 2))
	img, err := e.m.PutImage(ctx, 1, "keep.png", pngBytes(t, 2, 2))
	if err != nil {
		t.Fatal(err)
	}

	// Nothing is due yet.
	if n, err := e.m.Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("Sweep = %d, %v; want 0", n, err)
	}

	e.clock.advance(10*time.Minute + time.Second)
	fresh, err := e.m.PutDownload(ctx, 1, "new.csv", "", []byte("new"))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := e.m.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1", n, err)
	}
	if exists(t, e.m, expiring.Key) || !exists(t, e.m, fresh.Key) || !exists(t, e.m, pendingKey) {
		t.Error("wrong blobs swept after the download TTL")
	}

	e.clock.advance(24 * time.Hour)
	if n, err := e.m.Sweep(ctx); err != nil || n != 2 {
		t.Fatalf("Sweep = %d, %v; want 2 (the second download and the stale upload)", n, err)
	}
	if exists(t, e.m, fresh.Key) || exists(t, e.m, pendingKey) {
		t.Error("stale blobs kept")
	}
	if !exists(t, e.m, img.Key) {
		t.Error("Sweep deleted an image")
	}
}

func TestImageHTTPStatusCodes(t *testing.T) {
	// The errors callers hand to the REST adapter map to the statuses the
	// API promises.
	e := newEnv(t)
	_, err := e.m.RequestUpload(1, "a.bmp", "", 0)
	if s := apperr.CodeOf(err).HTTPStatus(); s != 400 {
		t.Errorf("invalid request: %d", s)
	}
	_, err = e.m.FinalizeUpload(context.Background(), 1, "pending/1/0123456789abcdef/a.png")
	if s := apperr.CodeOf(err).HTTPStatus(); s != 404 {
		t.Errorf("missing upload: %d", s)
	}
}

// upload PUTs data through a signed URL and returns the pending key.
func upload(t *testing.T, e *env, storeID int64, filename, contentType string, data []byte) string {
	t.Helper()
	ticket, err := e.m.RequestUpload(storeID, filename, contentType, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	status, _, body := do(t, "PUT", ticket.URL, contentType, strings.NewReader(string(data)))
	if status != 201 {
		t.Fatalf("PUT: %d %s", status, body)
	}
	return ticket.Key
}
