package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/media"
	"storeadmin/models"
)

// mediaFlags say where blobs (uploaded images, generated files) live.
type mediaFlags struct {
	blobURL string
}

func (f *mediaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.blobURL, "blob-url", os.Getenv("STOREADMIN_BLOB_URL"),
		"where images and files live: file:///abs/dir, or s3://bucket?endpoint=host:port&region=name for S3 or an S3-compatible server (credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); default a blobs folder next to --data-dir (env STOREADMIN_BLOB_URL)")
}

// open opens the blob store; links it hands out start with publicURL. The
// signing key lives in the database, so every replica signs alike.
func (f *mediaFlags) open(ctx context.Context, db *bun.DB, dataDir, publicURL string) (*media.Media, error) {
	bucket := f.blobURL
	if bucket == "" {
		abs, err := filepath.Abs(filepath.Join(filepath.Dir(dataDir), "blobs"))
		if err != nil {
			return nil, err
		}
		bucket = "file://" + abs
	}
	key, err := models.ServiceSecret(ctx, db, "media-signing-key")
	if err != nil {
		return nil, err
	}
	return media.Open(ctx, media.Config{BucketURL: bucket, PublicURL: publicURL, SigningKey: key}, time.Now)
}
