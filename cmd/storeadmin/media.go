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
		"gocloud.dev blob URL for images and files, e.g. file:///srv/storeadmin/blobs; default a blobs folder next to --data-dir (env STOREADMIN_BLOB_URL)")
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
