package themesettings

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// MaxSettingsBytes bounds a theme's settings as stored: a theme's settings
// are a page of choices, not content.
const MaxSettingsBytes = 64 << 10

// Check checks settings (a theme's draft, a theme test's arm merged over
// its version) for the store: against a theme's settings schema (as
// stored), and that each image setting names one of the store's uploads.
// It answers them as JSON to store; a failure names the setting's path
// under at. The one check of a store's theme settings, whoever writes
// them (the API, the seed).
func Check(ctx context.Context, db bun.IDB, storeID int64, schema []byte, at string, settings any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(settings); err != nil {
		return nil, apperr.InvalidField(at, "is not a JSON value")
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(b) > MaxSettingsBytes {
		return nil, apperr.InvalidField(at, "must be at most %d bytes of JSON", MaxSettingsBytes)
	}
	s, err := Parse(schema)
	if err != nil {
		return nil, err // a stored schema is checked when released: this is ours
	}
	if err := s.Validate(at, b); err != nil {
		return nil, err
	}
	images, err := s.Images(at, b)
	if err != nil {
		return nil, err
	}
	srcs := make([]string, len(images))
	for i, img := range images {
		srcs[i] = img.Src
	}
	uploaded, err := models.MediaBySrc(ctx, db, storeID, srcs)
	if err != nil {
		return nil, err
	}
	for _, img := range images {
		if _, ok := uploaded[img.Src]; !ok {
			return nil, apperr.InvalidField(img.Path, "names no image uploaded to this store (%q): upload it first (POST /store/uploads/request) and use the src it answers", img.Src)
		}
	}
	return b, nil
}
