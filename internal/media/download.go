package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"strconv"
	"strings"
	"time"

	"storeadmin/internal/base/apperr"
)

// Download is a short-lived generated file (CSV, XLSX, ...). The file and its
// URL expire together; Sweep deletes the file afterwards.
type Download struct {
	// Filename is the sanitised filename, the one the browser saves.
	Filename    string
	ContentType string
	// URL is the absolute signed URL {PublicURL}/files/{key}?expires=..&sig=..
	URL string
	// Key is "downloads/{storeID}/{expires unix}/{random}/{filename}": the
	// expiry is in the key so that Sweep needs no attribute reads.
	Key       string
	ExpiresAt time.Time
}

// PutDownload stores data as a download of store storeID and signs its URL.
// An empty contentType is derived from the extension, else
// application/octet-stream. It is WriteDownload of bytes already in hand.
func (m *Media) PutDownload(ctx context.Context, storeID int64, filename, contentType string, data []byte) (Download, error) {
	return m.WriteDownload(ctx, storeID, filename, contentType, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteDownload stores what write writes as a download of store storeID,
// as it is written (a large export never sits in memory whole), and signs
// its URL. When write fails the download is abandoned: nothing is stored.
func (m *Media) WriteDownload(ctx context.Context, storeID int64, filename, contentType string, write func(io.Writer) error) (Download, error) {
	if storeID <= 0 {
		return Download{}, fmt.Errorf("media: invalid store id %d", storeID)
	}
	name, err := cleanFilename(filename)
	if err != nil {
		return Download{}, err
	}
	ct, err := downloadType(name, contentType)
	if err != nil {
		return Download{}, err
	}
	expires := m.now().Add(m.dlTTL).Unix()
	k := downloadKey{storeID: storeID, expires: expires, random: randomHex(), filename: name}
	key := k.key()
	if err := writeTo(ctx, m.store, key, ct, write); err != nil {
		return Download{}, err
	}
	exp := strconv.FormatInt(expires, 10)
	return Download{
		Filename:    name,
		ContentType: ct,
		URL:         m.publicURL + "/files/" + key + "?expires=" + exp + "&sig=" + m.sign("GET", key, exp),
		Key:         key,
		ExpiresAt:   time.Unix(expires, 0).UTC(),
	}, nil
}

// downloadCacheControl keeps a download out of shared and browser caches: the
// URL is a credential and the content is private to the store.
const downloadCacheControl = "private, no-store"

func (k downloadKey) key() string {
	return downloadsPrefix + "/" + strconv.FormatInt(k.storeID, 10) + "/" + strconv.FormatInt(k.expires, 10) + "/" + k.random + "/" + k.filename
}

// attachment is the Content-Disposition of a download. Clean filenames need
// no escaping inside the quotes.
func attachment(name string) string { return `attachment; filename="` + name + `"` }

// downloadType is the normalised content type of a download.
func downloadType(name, contentType string) (string, error) {
	if strings.TrimSpace(contentType) == "" {
		_, ext := splitExt(name)
		if ct := mime.TypeByExtension(strings.ToLower(ext)); ct != "" {
			return ct, nil
		}
		return "application/octet-stream", nil
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", apperr.Invalidf("content type %q is not a valid media type", contentType)
	}
	return mime.FormatMediaType(mt, params), nil
}

// OpenDownload opens the download key for reading; the REST adapter streams
// it after its own auth. A missing, malformed or expired key is
// apperr.NotFound: an expired download is gone even if Sweep has not run yet.
// The caller closes the reader.
func (m *Media) OpenDownload(ctx context.Context, key string) (io.ReadCloser, error) {
	k, ok := parseDownloadKey(key)
	if !ok || m.now().Unix() >= k.expires {
		return nil, apperr.NotFoundf("no download with key %q", key)
	}
	r, _, err := m.store.open(ctx, key)
	if err != nil {
		if isNotFound(err) {
			return nil, apperr.NotFoundf("no download with key %q", key)
		}
		return nil, fmt.Errorf("media: reading %s: %w", key, err)
	}
	return r, nil
}

// Sweep deletes expired downloads and pending uploads older than a day, and
// returns how many blobs it deleted. The server calls it every few minutes; it
// goes on past a failed delete and reports the failures together.
func (m *Media) Sweep(ctx context.Context) (int, error) {
	now := m.now()
	deleted := 0
	var errs []error
	sweep := func(prefix string, expired func(key string, modTime time.Time) bool) {
		err := m.store.list(ctx, prefix+"/", func(key string, modTime time.Time) error {
			if !expired(key, modTime) {
				return nil
			}
			if err := m.store.remove(ctx, key); err != nil {
				errs = append(errs, fmt.Errorf("media: deleting %s: %w", key, err))
				return nil
			}
			deleted++
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("media: listing %s: %w", prefix, err))
		}
	}
	sweep(downloadsPrefix, func(key string, _ time.Time) bool {
		k, ok := parseDownloadKey(key)
		return ok && now.Unix() >= k.expires
	})
	sweep(pendingPrefix, func(_ string, modTime time.Time) bool {
		return now.Sub(modTime) > pendingMaxAge
	})
	return deleted, errors.Join(errs...)
}
