// Package media keeps the store's blobs — uploaded images and generated file
// downloads — in a folder or an S3-compatible bucket (see store), and signs
// the URLs through which clients upload and download them.
//
// Uploads go straight to this service, not through the JSON API: a client asks
// for an upload (RequestUpload, behind API-key auth), PUTs the bytes to the
// signed URL it got back, then asks for the upload to be finalised
// (FinalizeUpload), which checks that the bytes are an image of a sane size,
// measures it, computes its ThumbHash and moves it under its public key.
// Generated files (CSV, XLSX, ...) are written with PutDownload and fetched
// through a short-lived signed URL.
//
// Handler serves those URLs. It is mounted outside API-key auth: for uploads
// and downloads the HMAC signature in the URL is the authorisation, and
// finalised images are public.
//
// Bucket layout:
//
//	pending/{storeID}/{random}/{filename}            uploaded, not yet finalised
//	media/{storeID}/{random}/{filename}              verified images, public
//	downloads/{storeID}/{expires}/{random}/{filename} generated files
package media

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults for the zero values of Config.
const (
	defaultMaxUploadBytes = 20 << 20
	defaultUploadTTL      = 15 * time.Minute
	defaultDownloadTTL    = 10 * time.Minute
)

// pendingMaxAge is how long an upload may sit in pending/ without being
// finalised before Sweep deletes it.
const pendingMaxAge = 24 * time.Hour

// minKeyBytes is the shortest signing key accepted: HMAC-SHA256 gains nothing
// from longer keys, and a shorter one is guessable sooner.
const minKeyBytes = 32

// Config configures Open.
type Config struct {
	// BucketURL is where blobs live: "file:///abs/dir", a folder created
	// when missing, or "s3://bucket?endpoint=host:port&region=name", an
	// S3-compatible bucket (see openS3Store).
	BucketURL string
	// PublicURL is the base URL clients reach this service at, e.g.
	// "http://127.0.0.1:8080", used to build absolute URLs. A trailing slash
	// is dropped.
	PublicURL string
	// SigningKey is the HMAC-SHA256 key of upload and download URLs, at
	// least 32 bytes. Changing it invalidates every URL handed out.
	SigningKey []byte
	// MaxUploadBytes is the largest upload accepted; 20 MiB when 0.
	MaxUploadBytes int64
	// UploadTTL is how long an upload URL stays valid; 15 minutes when 0.
	UploadTTL time.Duration
	// DownloadTTL is how long a download URL (and its file) lives; 10
	// minutes when 0.
	DownloadTTL time.Duration
}

// Media stores and serves the blobs of every store. It is safe for concurrent
// use.
type Media struct {
	store     store
	publicURL string
	key       []byte
	maxUpload int64
	uploadTTL time.Duration
	dlTTL     time.Duration
	now       func() time.Time

	// finalizing holds the pending keys being finalised, so that two
	// concurrent finalisations of one key do not both succeed.
	mu         sync.Mutex
	finalizing map[string]chan struct{}
}

// Open opens the bucket of cfg. now is the clock used for URL expiry and for
// Sweep (tests pass a fake one); nil means time.Now.
func Open(ctx context.Context, cfg Config, now func() time.Time) (*Media, error) {
	if len(cfg.SigningKey) < minKeyBytes {
		return nil, fmt.Errorf("media: the signing key must be at least %d bytes, got %d", minKeyBytes, len(cfg.SigningKey))
	}
	public := strings.TrimRight(cfg.PublicURL, "/")
	if u, err := url.Parse(public); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("media: the public URL must be an absolute http(s) URL, got %q", cfg.PublicURL)
	}
	if cfg.MaxUploadBytes < 0 || cfg.UploadTTL < 0 || cfg.DownloadTTL < 0 {
		return nil, errors.New("media: limits and lifetimes cannot be negative")
	}
	st, err := openStore(ctx, cfg.BucketURL)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	m := &Media{
		store:      st,
		publicURL:  public,
		key:        append([]byte(nil), cfg.SigningKey...),
		maxUpload:  orDefault(cfg.MaxUploadBytes, defaultMaxUploadBytes),
		uploadTTL:  orDefault(cfg.UploadTTL, defaultUploadTTL),
		dlTTL:      orDefault(cfg.DownloadTTL, defaultDownloadTTL),
		now:        now,
		finalizing: map[string]chan struct{}{},
	}
	return m, nil
}

// orDefault is v, or def when v is zero.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// sign is the hex HMAC-SHA256 of the fields, joined by newlines. No field
// contains a newline (keys and content types are checked), so the joining is
// unambiguous.
func (m *Media) sign(fields ...string) string {
	mac := hmac.New(sha256.New, m.key)
	mac.Write([]byte(strings.Join(fields, "\n")))
	return hex.EncodeToString(mac.Sum(nil))
}

// verify reports whether sig is the signature of fields, in constant time.
func (m *Media) verify(sig string, fields ...string) bool {
	got, err := hex.DecodeString(sig)
	if err != nil {
		return false
	}
	want, _ := hex.DecodeString(m.sign(fields...))
	return hmac.Equal(got, want)
}

// randomHex is 16 random hex digits: the part of a key that makes it
// unguessable and unique.
func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// isRandomHex reports whether s is what randomHex makes.
func isRandomHex(s string) bool {
	if len(s) != 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// parseStoreID parses a store id written by FormatInt: positive, no sign, no
// leading zeros, so each store has exactly one spelling in keys.
func parseStoreID(s string) (int64, bool) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != s {
		return 0, false
	}
	return id, true
}

// imageKey is a parsed pending/ or media/ key.
type imageKey struct {
	storeID  int64
	random   string
	filename string
}

// parseImageKey parses "{prefix}/{storeID}/{random}/{filename}", accepting
// only what this package writes: anything else (traversal, extra segments,
// another spelling of the store id) is refused.
func parseImageKey(prefix, key string) (imageKey, bool) {
	rest, ok := strings.CutPrefix(key, prefix+"/")
	if !ok {
		return imageKey{}, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return imageKey{}, false
	}
	id, ok := parseStoreID(parts[0])
	if !ok || !isRandomHex(parts[1]) || !isCleanFilename(parts[2]) {
		return imageKey{}, false
	}
	return imageKey{storeID: id, random: parts[1], filename: parts[2]}, true
}

func (k imageKey) key(prefix string) string {
	return prefix + "/" + strconv.FormatInt(k.storeID, 10) + "/" + k.random + "/" + k.filename
}

// downloadKey is a parsed downloads/ key.
type downloadKey struct {
	storeID  int64
	expires  int64
	random   string
	filename string
}

// parseDownloadKey parses "downloads/{storeID}/{expires}/{random}/{filename}".
func parseDownloadKey(key string) (downloadKey, bool) {
	rest, ok := strings.CutPrefix(key, downloadsPrefix+"/")
	if !ok {
		return downloadKey{}, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 4 {
		return downloadKey{}, false
	}
	id, ok := parseStoreID(parts[0])
	if !ok {
		return downloadKey{}, false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || exp <= 0 || strconv.FormatInt(exp, 10) != parts[1] {
		return downloadKey{}, false
	}
	if !isRandomHex(parts[2]) || !isCleanFilename(parts[3]) {
		return downloadKey{}, false
	}
	return downloadKey{storeID: id, expires: exp, random: parts[2], filename: parts[3]}, true
}

// Key prefixes in the bucket.
const (
	pendingPrefix   = "pending"
	mediaPrefix     = "media"
	downloadsPrefix = "downloads"
)
