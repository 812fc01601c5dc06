package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"
)

// store is where Media keeps its blobs: a folder (fileStore) or an
// S3-compatible bucket (s3Store). Keys are what this package makes
// ("media/7/0123456789abcdef/logo.png"): slash-separated, no "..", no empty
// segment.
type store interface {
	// put stores what r yields under key, whole or not at all: when r fails
	// or ctx ends before r is drained, nothing is stored and a blob already
	// at key stays as it was. size is r's length, or -1 when unknown.
	put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// open opens key for reading; errBlobNotFound when there is none. The
	// caller closes the reader.
	open(ctx context.Context, key string) (io.ReadCloser, blobAttrs, error)
	// stat is what open tells, without the bytes.
	stat(ctx context.Context, key string) (blobAttrs, error)
	// remove deletes key; a key that is already gone is not an error.
	remove(ctx context.Context, key string) error
	// list calls fn with each blob whose key starts with prefix, in no
	// particular order, and stops at fn's first error.
	list(ctx context.Context, prefix string, fn func(key string, modTime time.Time) error) error
}

// blobAttrs is what a store knows of a blob.
type blobAttrs struct {
	contentType string
	size        int64
	// etag is a quoted HTTP entity tag that changes when the blob does.
	etag    string
	modTime time.Time
}

// errBlobNotFound is a store's "no such blob".
var errBlobNotFound = errors.New("no such blob")

// isNotFound reports whether err is the store's "no such blob".
func isNotFound(err error) bool { return errors.Is(err, errBlobNotFound) }

// openStore opens the store a bucket URL names:
//
//	file:///abs/dir                      a folder, created when missing
//	s3://bucket?endpoint=host:port&region=r  an S3-compatible bucket
//
// See openFileStore and openS3Store for their options.
func openStore(ctx context.Context, bucketURL string) (store, error) {
	u, err := url.Parse(bucketURL)
	if err != nil || u.Scheme == "" {
		return nil, fmt.Errorf("media: the bucket URL must be a URL such as file:///var/lib/storeadmin/blobs or s3://bucket?region=eu-west-1, got %q", bucketURL)
	}
	switch u.Scheme {
	case "file":
		return openFileStore(u)
	case "s3":
		return openS3Store(ctx, u)
	}
	return nil, fmt.Errorf("media: opening bucket %q: the scheme must be file:// or s3://", bucketURL)
}

// writeTo stores under key what write writes, as it is written, whole or not
// at all. write's own error is returned as it is (it says why the file could
// not be made); the store's is wrapped.
func writeTo(ctx context.Context, s store, key, contentType string, write func(io.Writer) error) error {
	pr, pw := io.Pipe()
	wrote := make(chan error, 1)
	go func() {
		err := write(pw)
		// A failure reaches put as its reader's error, so put stores nothing.
		pw.CloseWithError(err)
		wrote <- err
	}()
	err := s.put(ctx, key, pr, -1, contentType)
	// put may stop reading early (a failed bucket): unblock write.
	pr.CloseWithError(errStoreStopped)
	if werr := <-wrote; werr != nil && !errors.Is(werr, errStoreStopped) {
		return werr
	}
	if err != nil {
		return fmt.Errorf("media: writing %s: %w", key, err)
	}
	return nil
}

// errStoreStopped is what write sees when the store gave up on its bytes.
var errStoreStopped = errors.New("media: the blob store stopped reading")
