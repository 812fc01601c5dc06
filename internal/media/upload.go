package media

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/gif"  // registers GIF for image.Decode
	_ "image/jpeg" // registers JPEG
	_ "image/png"  // registers PNG
	"io"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"time"

	_ "golang.org/x/image/webp" // registers WebP

	"storeadmin/internal/base/apperr"
)

// Limits on the pixels of an accepted image. A compressed file of a few
// kilobytes can declare a canvas that takes gigabytes to decode; the size is
// read from the header (image.DecodeConfig) and refused before any decoding.
const (
	maxImageSide   = 12000
	maxImagePixels = 50_000_000
)

// imageCacheControl is sent with finalised images: their keys are random and
// never rewritten, so they can be cached for good.
const imageCacheControl = "public, max-age=31536000, immutable"

// imageType is an accepted image type.
type imageType struct {
	contentType string
	format      string   // the name image.DecodeConfig reports
	extensions  []string // the first is the one given to files of this type
}

var imageTypes = []imageType{
	{"image/png", "png", []string{".png"}},
	{"image/jpeg", "jpeg", []string{".jpg", ".jpeg", ".jpe", ".jfif"}},
	{"image/gif", "gif", []string{".gif"}},
	{"image/webp", "webp", []string{".webp"}},
}

// acceptedTypes is what people are told when a type is refused.
const acceptedTypes = "images must be PNG, JPEG, GIF or WebP (image/png, image/jpeg, image/gif or image/webp)"

func typeByContentType(ct string) (imageType, bool) {
	for _, t := range imageTypes {
		if t.contentType == ct {
			return t, true
		}
	}
	return imageType{}, false
}

func typeByFormat(format string) (imageType, bool) {
	for _, t := range imageTypes {
		if t.format == format {
			return t, true
		}
	}
	return imageType{}, false
}

func typeByExtension(ext string) (imageType, bool) {
	for _, t := range imageTypes {
		for _, e := range t.extensions {
			if strings.EqualFold(e, ext) {
				return t, true
			}
		}
	}
	return imageType{}, false
}

// UploadTicket is what POST /store/uploads/request answers: where and how to
// send the bytes. The client PUTs the file to URL with Headers; the upload is
// then finalised with Key.
type UploadTicket struct {
	// URL is the absolute signed URL:
	// {PublicURL}/uploads/{key}?expires=<unix>&max=<bytes>&ct=<type>&sig=<hex>.
	URL string
	// Method is always "PUT".
	Method string
	// Headers must be sent with the PUT: the Content-Type is signed.
	Headers map[string]string
	// Key is "pending/{storeID}/{random}/{filename}", what FinalizeUpload
	// takes.
	Key string
	// MaxBytes is the largest body the URL accepts.
	MaxBytes int64
	// ExpiresAt is when the URL stops working (whole seconds).
	ExpiresAt time.Time
}

// RequestUpload signs a URL through which the store storeID may PUT one image.
//
// filename is sanitised (see the key format); contentType must be image/png,
// image/jpeg, image/gif or image/webp, and is derived from the filename's
// extension when empty. size, when the client knows it, is checked against
// the limit now rather than after a wasted upload. Errors are apperr.Invalid.
//
// The type is only what the client says: FinalizeUpload sniffs the bytes and
// trusts nothing else.
func (m *Media) RequestUpload(storeID int64, filename, contentType string, size int64) (UploadTicket, error) {
	if storeID <= 0 {
		return UploadTicket{}, fmt.Errorf("media: invalid store id %d", storeID)
	}
	name, err := cleanFilename(filename)
	if err != nil {
		return UploadTicket{}, err
	}
	t, err := requestedType(name, contentType)
	if err != nil {
		return UploadTicket{}, err
	}
	switch {
	case size < 0:
		return UploadTicket{}, apperr.Invalidf("size cannot be negative")
	case size > m.maxUpload:
		return UploadTicket{}, apperr.Invalidf("the file is %s; the largest upload accepted is %s", humanBytes(size), humanBytes(m.maxUpload))
	}

	key := imageKey{storeID: storeID, random: randomHex(), filename: name}.key(pendingPrefix)
	expires := m.now().Add(m.uploadTTL).Unix()
	exp, maxBytes := strconv.FormatInt(expires, 10), strconv.FormatInt(m.maxUpload, 10)
	sig := m.sign("PUT", key, exp, maxBytes, t.contentType)
	return UploadTicket{
		URL: m.publicURL + "/uploads/" + key +
			"?expires=" + exp + "&max=" + maxBytes + "&ct=" + url.QueryEscape(t.contentType) + "&sig=" + sig,
		Method:    "PUT",
		Headers:   map[string]string{"Content-Type": t.contentType},
		Key:       key,
		MaxBytes:  m.maxUpload,
		ExpiresAt: time.Unix(expires, 0).UTC(),
	}, nil
}

// requestedType is the accepted type named by contentType, or when that is
// empty by the extension of the clean filename name.
func requestedType(name, contentType string) (imageType, error) {
	if strings.TrimSpace(contentType) == "" {
		_, ext := splitExt(name)
		t, ok := typeByExtension(ext)
		if !ok {
			return imageType{}, apperr.Invalidf("cannot tell the image type of %q from its extension: name it .png, .jpg, .gif or .webp, or give its content type; %s", name, acceptedTypes)
		}
		return t, nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return imageType{}, apperr.Invalidf("content type %q is not a valid media type: %s", contentType, acceptedTypes)
	}
	if mt == "image/jpg" || mt == "image/pjpeg" {
		mt = "image/jpeg" // common misspellings of JPEG
	}
	t, ok := typeByContentType(mt)
	if !ok {
		return imageType{}, apperr.Invalidf("content type %q is not accepted: %s", contentType, acceptedTypes)
	}
	return t, nil
}

// humanBytes writes n as people read file sizes.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Image is a verified image in the bucket.
type Image struct {
	// Key is "media/{storeID}/{random}/{filename}".
	Key string
	// Src is the public URL of the image, {PublicURL}/{Key}, served by
	// Handler.
	Src string
	// Filename is the sanitised filename, its extension corrected to the
	// sniffed type when it did not match (a JPEG sent as photo.png is
	// stored as photo.jpg).
	Filename string
	// ContentType is sniffed from the bytes, never taken from the client.
	ContentType string
	Width       int
	Height      int
	// Thumbhash is the standard base64 of the image's ThumbHash, for a
	// placeholder while the image loads.
	Thumbhash string
	// Bytes is the size of the file.
	Bytes int64
}

// FinalizeUpload verifies what was PUT to the pending key and makes it an
// image of the store.
//
// A key of another store or not made by RequestUpload is apperr.NotFound,
// exactly like a key nothing was uploaded to. Bytes that are not a PNG, JPEG,
// GIF or WebP image, or an image over 12000 pixels a side or 50 megapixels,
// are apperr.Invalid, and the pending blob is deleted (a retry needs a new
// upload). On success the image is stored under a new media key and the
// pending blob is deleted, so finalising a key twice is NotFound.
func (m *Media) FinalizeUpload(ctx context.Context, storeID int64, key string) (Image, error) {
	k, ok := parseImageKey(pendingPrefix, key)
	if !ok || k.storeID != storeID {
		return Image{}, apperr.NotFoundf("no upload with key %q", key)
	}
	unlock := m.lockKey(key)
	defer unlock()

	data, err := m.readPending(ctx, key)
	if err != nil {
		return Image{}, err
	}
	img, err := m.storeImage(ctx, storeID, k.filename, data)
	if err != nil {
		if apperr.CodeOf(err) == apperr.Invalid {
			m.deleteQuietly(ctx, key)
		}
		return Image{}, err
	}
	// If this delete fails the image is stored all the same; Sweep collects
	// the pending blob within a day.
	m.deleteQuietly(ctx, key)
	return img, nil
}

// readPending reads a pending upload, refusing one over the limit (only
// possible if something other than Handler wrote it).
func (m *Media) readPending(ctx context.Context, key string) ([]byte, error) {
	r, _, err := m.store.open(ctx, key)
	if err != nil {
		if isNotFound(err) {
			return nil, apperr.NotFoundf("nothing was uploaded to this key yet: PUT the file to the upload URL first")
		}
		return nil, fmt.Errorf("media: reading %s: %w", key, err)
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, m.maxUpload+1))
	if err != nil {
		return nil, fmt.Errorf("media: reading %s: %w", key, err)
	}
	if int64(len(data)) > m.maxUpload {
		m.deleteQuietly(ctx, key)
		return nil, apperr.Invalidf("the uploaded file is larger than %s", humanBytes(m.maxUpload))
	}
	return data, nil
}

// PutImage stores image bytes directly, with the checks and result of
// FinalizeUpload; the seeder and tests use it.
func (m *Media) PutImage(ctx context.Context, storeID int64, filename string, data []byte) (Image, error) {
	if storeID <= 0 {
		return Image{}, fmt.Errorf("media: invalid store id %d", storeID)
	}
	name, err := cleanFilename(filename)
	if err != nil {
		return Image{}, err
	}
	if int64(len(data)) > m.maxUpload {
		return Image{}, apperr.Invalidf("the file is %s; the largest upload accepted is %s", humanBytes(int64(len(data))), humanBytes(m.maxUpload))
	}
	return m.storeImage(ctx, storeID, name, data)
}

// storeImage verifies data and writes it under a new media key.
func (m *Media) storeImage(ctx context.Context, storeID int64, name string, data []byte) (Image, error) {
	info, err := inspectImage(data)
	if err != nil {
		return Image{}, err
	}
	name = withExtension(name, info.typ.extensions[0], info.typ.extensions)
	key := imageKey{storeID: storeID, random: randomHex(), filename: name}.key(mediaPrefix)
	if err := m.store.put(ctx, key, bytes.NewReader(data), int64(len(data)), info.typ.contentType); err != nil {
		return Image{}, fmt.Errorf("media: writing %s: %w", key, err)
	}
	return Image{
		Key:         key,
		Src:         m.publicURL + "/" + key,
		Filename:    name,
		ContentType: info.typ.contentType,
		Width:       info.width,
		Height:      info.height,
		Thumbhash:   base64.StdEncoding.EncodeToString(info.thumbhash),
		Bytes:       int64(len(data)),
	}, nil
}

// imageInfo is what inspectImage learns.
type imageInfo struct {
	typ           imageType
	width, height int
	thumbhash     []byte
}

// errNotImage is the answer for bytes that do not decode as an accepted image.
var errNotImage = apperr.Invalidf("the uploaded file is not an image: %s", acceptedTypes)

// inspectImage checks that data is an accepted image of an accepted size and
// measures it. The header is read first and the size checked before the full
// decode, which is what a decompression bomb would abuse.
func inspectImage(data []byte) (imageInfo, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return imageInfo{}, errNotImage
	}
	// Other packages of the binary may register more formats (BMP, TIFF):
	// only the four a browser shows everywhere are accepted.
	t, ok := typeByFormat(format)
	if !ok {
		return imageInfo{}, errNotImage
	}
	w, h := cfg.Width, cfg.Height
	switch {
	case w <= 0 || h <= 0:
		return imageInfo{}, errNotImage
	case w > maxImageSide || h > maxImageSide:
		return imageInfo{}, apperr.Invalidf("the image is %dx%d pixels; the largest accepted is %dx%d", w, h, maxImageSide, maxImageSide)
	case int64(w)*int64(h) > maxImagePixels:
		return imageInfo{}, apperr.Invalidf("the image is %dx%d pixels (%.1f megapixels); the largest accepted is %d megapixels", w, h, float64(w)*float64(h)/1e6, maxImagePixels/1_000_000)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return imageInfo{}, errNotImage
	}
	return imageInfo{typ: t, width: w, height: h, thumbhash: Thumbhash(img)}, nil
}

// Owns reports whether src is the URL of an image of store storeID served by
// this service ({PublicURL}/media/{storeID}/...), so that a caller given an
// image URL can look up the size it recorded instead of fetching it.
func (m *Media) Owns(storeID int64, src string) bool {
	rest, ok := strings.CutPrefix(src, m.publicURL+"/")
	if !ok {
		return false
	}
	k, ok := parseImageKey(mediaPrefix, rest)
	return ok && k.storeID == storeID
}

// lockKey serialises work on one key within this process and returns the
// unlock function.
func (m *Media) lockKey(key string) func() {
	for {
		m.mu.Lock()
		busy, ok := m.finalizing[key]
		if !ok {
			done := make(chan struct{})
			m.finalizing[key] = done
			m.mu.Unlock()
			return func() {
				m.mu.Lock()
				delete(m.finalizing, key)
				m.mu.Unlock()
				close(done)
			}
		}
		m.mu.Unlock()
		<-busy
	}
}

// deleteQuietly deletes key, ignoring a blob already gone; other failures
// leave the blob to Sweep.
func (m *Media) deleteQuietly(ctx context.Context, key string) {
	// A cancelled request must not stop the clean-up.
	ctx = context.WithoutCancel(ctx)
	if err := m.store.remove(ctx, key); err != nil {
		logError("deleting "+key, err)
	}
}
