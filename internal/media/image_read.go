package media

import (
	"context"
	"fmt"
	"io"
	"strings"

	"storeadmin/internal/base/apperr"
)

// ReadImage reads the bytes of an image of store storeID by its key (the
// Key of its Image, kept in its media record), for a caller that carries
// the image elsewhere (a template bundle's export). A key of another store
// or none is apperr.NotFound.
func (m *Media) ReadImage(ctx context.Context, storeID int64, key string) ([]byte, error) {
	k, ok := parseImageKey(mediaPrefix, key)
	if !ok || k.storeID != storeID {
		return nil, apperr.NotFoundf("no image with key %q", key)
	}
	r, _, err := m.store.open(ctx, key)
	if isNotFound(err) {
		return nil, apperr.NotFoundf("no image with key %q", key)
	}
	if err != nil {
		return nil, fmt.Errorf("media: reading %s: %w", key, err)
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, m.maxUpload+1))
	if err != nil {
		return nil, fmt.Errorf("media: reading %s: %w", key, err)
	}
	if int64(len(data)) > m.maxUpload {
		return nil, fmt.Errorf("media: %s is larger than the upload limit", key)
	}
	return data, nil
}

// DeleteImages deletes images of store storeID stored by a write that then
// failed (a template bundle's import whose transaction rolled back), so
// that no image outlives the records it was stored for. Keys of other
// stores are left alone; a failed delete is logged.
func (m *Media) DeleteImages(ctx context.Context, storeID int64, keys []string) {
	for _, key := range keys {
		if k, ok := parseImageKey(mediaPrefix, key); ok && k.storeID == storeID {
			m.deleteQuietly(ctx, key)
		}
	}
}

// KeyOf is the key of the image src is the URL of, when it is an image of
// store storeID served by this service (Owns).
func (m *Media) KeyOf(storeID int64, src string) (string, bool) {
	if !m.Owns(storeID, src) {
		return "", false
	}
	return strings.TrimPrefix(src, m.publicURL+"/"), true
}
