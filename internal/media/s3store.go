package media

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// s3Store keeps blobs in a bucket of Amazon S3 or of any S3-compatible
// server (MinIO, Ceph, Garage, Cloudflare R2, ...), through minio-go: a
// maintained client a fraction of the size of the AWS SDK.
type s3Store struct {
	client *minio.Client
	bucket string
}

// s3PartSize is the part of a blob of unknown length (a streamed export)
// that is held in memory and sent at a time; it caps such a blob at 10,000
// parts, 80 GB.
const s3PartSize = 8 << 20

// openS3Store opens s3://bucket?endpoint=...&region=..., and checks that the
// bucket is there so that a wrong name or key fails at start, not at the
// first upload.
//
//	endpoint  host[:port] of an S3-compatible server, https unless written
//	          http://host:port; default s3.amazonaws.com
//	region    the bucket's region, e.g. eu-west-1; default: asked of the server
//
// Credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or
// MINIO_ROOT_USER and MINIO_ROOT_PASSWORD), else ~/.aws/credentials, else the
// instance's IAM role.
func openS3Store(ctx context.Context, u *url.URL) (*s3Store, error) {
	bucket := u.Host
	if bucket == "" || strings.Trim(u.Path, "/") != "" {
		return nil, fmt.Errorf("media: an S3 bucket URL is s3://bucket?endpoint=host:port&region=name, got %q", u.Redacted())
	}
	q := u.Query()
	for name := range q {
		if name != "endpoint" && name != "region" {
			return nil, fmt.Errorf("media: unknown option %q in the bucket URL %q: the options are endpoint and region", name, u.Redacted())
		}
	}
	endpoint, secure := q.Get("endpoint"), true
	switch {
	case endpoint == "":
		endpoint = "s3.amazonaws.com"
	case strings.HasPrefix(endpoint, "http://"):
		endpoint, secure = strings.TrimPrefix(endpoint, "http://"), false
	case strings.HasPrefix(endpoint, "https://"):
		endpoint = strings.TrimPrefix(endpoint, "https://")
	}
	client, err := minio.New(strings.TrimRight(endpoint, "/"), &minio.Options{
		Creds: credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{},
			&credentials.EnvMinio{},
			&credentials.FileAWSCredentials{},
			&credentials.IAM{},
		}),
		Secure: secure,
		Region: q.Get("region"),
	})
	if err != nil {
		return nil, fmt.Errorf("media: opening bucket %q: %w", u.Redacted(), err)
	}
	ok, err := client.BucketExists(ctx, bucket)
	if err != nil {
		return nil, fmt.Errorf("media: opening bucket %q: %w", u.Redacted(), err)
	}
	if !ok {
		return nil, fmt.Errorf("media: opening bucket %q: there is no bucket %q at %s: create it first", u.Redacted(), bucket, endpoint)
	}
	return &s3Store{client: client, bucket: bucket}, nil
}

func (s *s3Store) put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	// A blob of known size under the part size goes up in one PUT; any other
	// as a multipart upload that minio-go aborts on failure. Either way S3
	// shows the blob only once it is whole.
	//
	// Each request carries the Content-MD5 of its bytes instead of the
	// aws-chunked streaming signature minio-go uses over plain http: the
	// server still refuses corrupted bytes, and servers that implement only
	// part of S3 (the test's among them) store the bytes, not the framing.
	_, err := s.client.PutObject(ctx, s.bucket, key, r, size, minio.PutObjectOptions{
		ContentType:          contentType,
		PartSize:             s3PartSize,
		SendContentMd5:       true,
		DisableContentSha256: true,
	})
	return err
}

func (s *s3Store) open(ctx context.Context, key string) (io.ReadCloser, blobAttrs, error) {
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, blobAttrs{}, s3Error(err)
	}
	// GetObject sends nothing until asked: Stat makes the request.
	info, err := obj.Stat()
	if err != nil {
		obj.Close()
		return nil, blobAttrs{}, s3Error(err)
	}
	return obj, s3Attrs(info), nil
}

func (s *s3Store) stat(ctx context.Context, key string) (blobAttrs, error) {
	info, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return blobAttrs{}, s3Error(err)
	}
	return s3Attrs(info), nil
}

func (s *s3Store) remove(ctx context.Context, key string) error {
	// S3 answers a delete of a missing key with success.
	return s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{})
}

func (s *s3Store) list(ctx context.Context, prefix string, fn func(key string, modTime time.Time) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the listing when fn fails
	for obj := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if obj.Err != nil {
			return obj.Err
		}
		if err := fn(obj.Key, obj.LastModified); err != nil {
			return err
		}
	}
	return nil
}

func s3Attrs(info minio.ObjectInfo) blobAttrs {
	etag := info.ETag
	if etag != "" && !strings.HasPrefix(etag, `"`) {
		etag = `"` + etag + `"`
	}
	return blobAttrs{contentType: info.ContentType, size: info.Size, etag: etag, modTime: info.LastModified}
}

// s3Error maps S3's missing key to errBlobNotFound.
func s3Error(err error) error {
	if code := minio.ToErrorResponse(err).Code; code == minio.NoSuchKey || code == "NotFound" {
		return errBlobNotFound
	}
	return err
}
