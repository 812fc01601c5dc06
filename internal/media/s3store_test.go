package media

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// newS3Env is an env whose bucket is "blobs" on an in-process S3-compatible
// server on loopback.
func newS3Env(t *testing.T) *env {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("blobs"); err != nil {
		t.Fatal(err)
	}
	s3 := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(s3.Close)
	// What a deployment sets; the fake server accepts any key, but the
	// client signs every request with it.
	t.Setenv("AWS_ACCESS_KEY_ID", "storeadmin-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "storeadmin-test-secret")
	return newEnv(t, func(c *Config) {
		c.BucketURL = "s3://blobs?endpoint=" + s3.URL + "&region=us-east-1"
	})
}

// TestS3Bucket goes through what the service does with blobs, on an S3
// bucket: signed upload, finalise, public image with its ETag, generated
// downloads (streamed, abandoned), expiry and sweeping.
func TestS3Bucket(t *testing.T) {
	e := newS3Env(t)
	ctx := context.Background()

	// Upload and finalise an image; the pending blob goes.
	data := pngBytes(t, 30, 20)
	pending := upload(t, e, 7, "logo.png", "image/png", data)
	if !exists(t, e.m, pending) {
		t.Fatal("the upload is not in the bucket")
	}
	img, err := e.m.FinalizeUpload(ctx, 7, pending)
	if err != nil {
		t.Fatal(err)
	}
	if exists(t, e.m, pending) {
		t.Error("pending blob left after finalize")
	}
	status, header, body := do(t, "GET", img.Src, "", nil)
	if status != 200 || !bytes.Equal(body, data) || header.Get("Content-Type") != "image/png" || header.Get("ETag") == "" {
		t.Fatalf("GET image: %d %v, %d bytes", status, header, len(body))
	}
	if status, _, _ := do(t, "GET", img.Src, "", nil, "If-None-Match", header.Get("ETag")); status != http.StatusNotModified {
		t.Errorf("GET with its ETag: %d, want 304", status)
	}
	status, header, _ = do(t, "HEAD", img.Src, "", nil)
	if status != 200 || header.Get("Content-Length") != strconv.Itoa(len(data)) {
		t.Errorf("HEAD image: %d %v", status, header)
	}

	// A refused upload stores nothing.
	ticket, err := e.m.RequestUpload(7, "big.png", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	tooBig := strings.NewReader(strings.Repeat("x", int(ticket.MaxBytes)+1))
	status, header, body = do(t, "PUT", ticket.URL, "image/png", io.MultiReader(tooBig)) // no Content-Length: read to the limit
	wantFailure(t, status, header, body, http.StatusRequestEntityTooLarge, "larger than")
	if exists(t, e.m, ticket.Key) {
		t.Error("a refused upload was stored")
	}
	for _, empty := range []io.Reader{http.NoBody, io.MultiReader()} { // with Content-Length 0, and chunked
		status, header, body = do(t, "PUT", ticket.URL, "image/png", empty)
		wantFailure(t, status, header, body, http.StatusBadRequest, "empty")
		if exists(t, e.m, ticket.Key) {
			t.Error("an empty upload was stored")
		}
	}

	// A download written as it is made, larger than one part of a
	// multipart upload.
	big := bytes.Repeat([]byte("sku,stock\n"), (s3PartSize+s3PartSize/2)/10)
	d, err := e.m.WriteDownload(ctx, 8, "stock.csv", "", func(w io.Writer) error {
		for chunk := range chunks(big, 64<<10) {
			if _, err := w.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	status, header, body = do(t, "GET", d.URL, "", nil)
	if status != 200 || !bytes.Equal(body, big) || header.Get("Content-Disposition") != `attachment; filename="stock.csv"` {
		t.Fatalf("GET download: %d %v, %d bytes of %d", status, header, len(body), len(big))
	}

	// An export that fails half way stores nothing and says why.
	broken := errors.New("the database went away")
	_, err = e.m.WriteDownload(ctx, 8, "half.csv", "", func(w io.Writer) error {
		if _, err := w.Write([]byte("sku,stock\nA-1,3\n")); err != nil {
			return err
		}
		return broken
	})
	if !errors.Is(err, broken) {
		t.Errorf("WriteDownload = %v, want the writer's error", err)
	}
	if stored := blobKeys(t, e.m); len(stored) != 2 {
		t.Errorf("bucket holds %v, want the image and one download", stored)
	}

	// Expired downloads and stale uploads are swept; images stay.
	stale := upload(t, e, 7, "stale.png", "image/png", data)
	e.clock.advance(25 * time.Hour)
	if n, err := e.m.Sweep(ctx); err != nil || n != 2 {
		t.Fatalf("Sweep = %d, %v; want 2", n, err)
	}
	if exists(t, e.m, d.Key) || exists(t, e.m, stale) || !exists(t, e.m, img.Key) {
		t.Errorf("after Sweep the bucket holds %v", blobKeys(t, e.m))
	}
	status, header, body = do(t, "GET", e.srv.URL+"/media/7/0123456789abcdef/gone.png", "", nil)
	wantFailure(t, status, header, body, http.StatusNotFound, "no image")
}

func TestS3BucketMustExist(t *testing.T) {
	s3 := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	defer s3.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "storeadmin-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "storeadmin-test-secret")
	cfg := Config{BucketURL: "s3://nope?endpoint=" + s3.URL, PublicURL: "http://127.0.0.1:8080", SigningKey: testKey}
	_, err := Open(context.Background(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), `there is no bucket "nope"`) {
		t.Fatalf("Open = %v, want a missing bucket", err)
	}
}

// chunks yields b in pieces of n bytes.
func chunks(b []byte, n int) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(b) > 0 {
			k := min(n, len(b))
			if !yield(b[:k]) {
				return
			}
			b = b[k:]
		}
	}
}
