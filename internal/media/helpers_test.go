package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"storeadmin/internal/base/apperr"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// clock is a settable time source. It starts at the real time because
// stores stamp blobs with the time they are written, which Sweep compares
// against.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now()} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is a Media on a file:// bucket in a temporary folder, served by an httptest server whose URL is
// the public URL.
type env struct {
	m     *Media
	srv   *httptest.Server
	clock *clock
}

func newEnv(t *testing.T, mutate ...func(*Config)) *env {
	t.Helper()
	e := &env{clock: newClock()}
	// The public URL must be known before the server starts: route through
	// a handler that forwards to m once it exists.
	var h http.Handler
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(e.srv.Close)
	cfg := Config{BucketURL: "file://" + filepath.ToSlash(t.TempDir()), PublicURL: e.srv.URL, SigningKey: testKey}
	for _, f := range mutate {
		f(&cfg)
	}
	m, err := Open(context.Background(), cfg, e.clock.now)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	e.m = m
	h = m.Handler()
	return e
}

// do sends a request and returns the status, headers and body.
func do(t *testing.T, method, url, contentType string, body io.Reader, header ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data
}

// envelope is the API's JSON answer.
type envelope struct {
	Status  bool   `json:"status"`
	Message string `json:"message"`
	Code    string `json:"code"`
	Key     string `json:"key"`
}

// wantFailure checks a failure answer: the status, the JSON envelope, and a
// message containing each of contains.
func wantFailure(t *testing.T, status int, header http.Header, body []byte, wantStatus int, contains ...string) {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("status %d, want %d; body %s", status, wantStatus, body)
	}
	if ct := header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q, want application/json; charset=utf-8", ct)
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("body %q is not JSON: %v", body, err)
	}
	if env.Status || env.Message == "" || env.Code == "" {
		t.Errorf("envelope %s, want status false, a message and a code", body)
	}
	for _, c := range contains {
		if !strings.Contains(env.Message, c) {
			t.Errorf("message %q does not contain %q", env.Message, c)
		}
	}
}

// wantCode checks that err is an apperr error of code whose message contains
// each of contains.
func wantCode(t *testing.T, err error, code apperr.Code, contains ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	if got := apperr.CodeOf(err); got != code {
		t.Fatalf("error %q has code %s, want %s", err, got, code)
	}
	for _, c := range contains {
		if !strings.Contains(err.Error(), c) {
			t.Errorf("error %q does not contain %q", err, c)
		}
	}
}

// exists reports whether key is in m's bucket.
func exists(t *testing.T, m *Media, key string) bool {
	t.Helper()
	_, err := m.store.stat(context.Background(), key)
	if err != nil && !isNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// blobKeys is every key in m's bucket.
func blobKeys(t *testing.T, m *Media) []string {
	t.Helper()
	var keys []string
	err := m.store.list(context.Background(), "", func(key string, _ time.Time) error {
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// Test images, made here.

func picture(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	return img
}

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, picture(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, picture(w, h), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gifBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := gif.Encode(&b, picture(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// webpBytes builds a lossless WebP (VP8L) of w x h pixels of colour c. With
// one symbol in each prefix code the pixels take no bits at all, which keeps
// the encoder a few lines: signature, size, no transform, no colour cache, no
// meta prefix codes, then five "simple" prefix codes (green, red, blue, alpha,
// distance) of one symbol each.
func webpBytes(w, h int, c color.NRGBA) []byte {
	var bw bitWriter
	bw.write(0x2f, 8)
	bw.write(uint32(w-1), 14)
	bw.write(uint32(h-1), 14)
	bw.write(0, 1) // alpha_is_used: a hint only
	bw.write(0, 3) // version
	bw.write(0, 1) // no transform
	bw.write(0, 1) // no colour cache
	bw.write(0, 1) // no meta prefix codes
	for _, sym := range []uint8{c.G, c.R, c.B, c.A, 0} {
		bw.write(1, 1) // simple code
		bw.write(0, 1) // one symbol
		bw.write(1, 1) // 8-bit symbol
		bw.write(uint32(sym), 8)
	}
	payload := bw.bytes()
	chunk := append([]byte("VP8L"), binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))...)
	chunk = append(chunk, payload...)
	if len(payload)%2 == 1 {
		chunk = append(chunk, 0)
	}
	out := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(4+len(chunk)))...)
	out = append(out, "WEBP"...)
	return append(out, chunk...)
}

// bitWriter writes bits least significant first, as VP8L reads them.
type bitWriter struct {
	buf   []byte
	acc   uint64
	nbits uint
}

func (b *bitWriter) write(v uint32, n uint) {
	b.acc |= uint64(v) << b.nbits
	b.nbits += n
	for b.nbits >= 8 {
		b.buf = append(b.buf, byte(b.acc))
		b.acc >>= 8
		b.nbits -= 8
	}
}

func (b *bitWriter) bytes() []byte {
	if b.nbits > 0 {
		return append(b.buf, byte(b.acc))
	}
	return b.buf
}

// pngClaiming is a valid small PNG whose header claims w x h pixels (with a
// correct checksum): what a decompression bomb looks like to DecodeConfig.
func pngClaiming(t *testing.T, w, h uint32) []byte {
	t.Helper()
	data := pngBytes(t, 4, 4)
	// Signature (8), IHDR length (4), "IHDR" (4), then width and height.
	binary.BigEndian.PutUint32(data[16:], w)
	binary.BigEndian.PutUint32(data[20:], h)
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29]))
	return data
}
