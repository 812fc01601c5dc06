package media

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
)

// Handler serves the URLs this package hands out:
//
//	PUT  /uploads/{key...}  a signed upload: 201 {"status":true,"key":...}
//	GET  /media/{key...}    a finalised image, public and immutable (and HEAD)
//	GET  /files/{key...}    a signed download (and HEAD)
//
// Failures answer the API's failure envelope (code and request_id too) with 400,
// 403, 404, 405 or 413. The handler needs no API key: the signature is the
// authorisation, and it is mounted at the root of the router.
func (m *Media) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /uploads/{key...}", m.serveUpload)
	mux.HandleFunc("GET /media/{key...}", m.serveMedia)
	mux.HandleFunc("GET /files/{key...}", m.serveFile)
	// Without these the mux would answer a wrong method or an unknown path
	// in plain text.
	mux.HandleFunc("/uploads/", methodNotAllowed("PUT"))
	mux.HandleFunc("/media/", methodNotAllowed("GET, HEAD"))
	mux.HandleFunc("/files/", methodNotAllowed("GET, HEAD"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, apperr.NotFound, "not found")
	})
	return mux
}

func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, r, apperr.MethodNotAllowed, "method "+r.Method+" is not allowed here; use "+allow)
	}
}

// serveUpload receives the body of a signed upload URL. The body goes
// straight into the store, which keeps nothing of a body that fails, so a
// refused or broken upload never leaves a partial blob behind; a PUT that succeeds
// replaces an earlier one, so a client may simply retry.
func (m *Media) serveUpload(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	q := r.URL.Query()
	exp, maxBytes, ct, sig := q.Get("expires"), q.Get("max"), q.Get("ct"), q.Get("sig")
	if sig == "" || !m.verify(sig, "PUT", key, exp, maxBytes, ct) {
		writeError(w, r, apperr.Forbidden, "this upload URL is not valid: request a new one")
		return
	}
	expires, err1 := strconv.ParseInt(exp, 10, 64)
	limit, err2 := strconv.ParseInt(maxBytes, 10, 64)
	if _, ok := parseImageKey(pendingPrefix, key); !ok || err1 != nil || err2 != nil || limit <= 0 {
		// Signed by this key but not as this package signs: refuse.
		writeError(w, r, apperr.BadRequest, "this upload URL is malformed: request a new one")
		return
	}
	if m.now().Unix() >= expires {
		writeError(w, r, apperr.Forbidden, "this upload URL has expired: request a new one")
		return
	}
	if got, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || got != ct {
		writeError(w, r, apperr.BadRequest, "the Content-Type header must be "+ct+", the type this upload URL was signed for")
		return
	}
	switch {
	case r.ContentLength > limit:
		writeError(w, r, apperr.TooLarge, "the file is larger than the "+humanBytes(limit)+" this upload URL accepts")
		return
	case r.ContentLength == 0:
		// A store given size 0 need not read the body at all.
		writeError(w, r, apperr.Invalid, "the upload is empty")
		return
	}

	// put stores nothing unless the whole body arrives: a refused or broken
	// upload leaves no partial blob. The length, when the client sent it,
	// lets S3 take the file in one request.
	body := &nonEmpty{r: http.MaxBytesReader(w, r.Body, limit)}
	if err := m.store.put(r.Context(), key, body, r.ContentLength, ct); err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeError(w, r, apperr.TooLarge, "the file is larger than the "+humanBytes(limit)+" this upload URL accepts")
		case errors.Is(err, errEmptyUpload):
			writeError(w, r, apperr.Invalid, "the upload is empty")
		case body.failed != nil:
			writeError(w, r, apperr.BadRequest, "the upload was interrupted: send the file again")
		default:
			writeInternal(w, r, "writing "+key, err)
		}
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"status": true, "key": key})
}

var errEmptyUpload = errors.New("empty upload")

// nonEmpty reads r, failing with errEmptyUpload at an EOF before any byte,
// and remembers r's own failure: that one is the client's doing.
type nonEmpty struct {
	r      io.Reader
	n      int64
	failed error
}

func (b *nonEmpty) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF && b.n == 0:
		b.failed = errEmptyUpload
		return n, errEmptyUpload
	case err != nil && err != io.EOF:
		b.failed = err
	}
	return n, err
}

// serveMedia serves a finalised image to anyone. Its key never changes
// content, so it is cached for a year and revalidation is by ETag.
func (m *Media) serveMedia(w http.ResponseWriter, r *http.Request) {
	key := mediaPrefix + "/" + r.PathValue("key")
	// Only keys this package makes: no "..", no extra segments.
	if _, ok := parseImageKey(mediaPrefix, key); !ok {
		writeError(w, r, apperr.NotFound, "no image at this URL")
		return
	}
	m.serveBlob(w, r, key, func(h http.Header) {
		h.Set("Cache-Control", imageCacheControl)
	}, "no image at this URL")
}

// serveFile serves a download to whoever holds its signed URL, as an
// attachment that no cache keeps.
func (m *Media) serveFile(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	exp, sig := r.URL.Query().Get("expires"), r.URL.Query().Get("sig")
	if sig == "" || !m.verify(sig, "GET", key, exp) {
		writeError(w, r, apperr.Forbidden, "this download URL is not valid")
		return
	}
	k, ok := parseDownloadKey(key)
	if !ok || strconv.FormatInt(k.expires, 10) != exp {
		writeError(w, r, apperr.BadRequest, "this download URL is malformed")
		return
	}
	if m.now().Unix() >= k.expires {
		writeError(w, r, apperr.Forbidden, "this download URL has expired: export the file again")
		return
	}
	m.serveBlob(w, r, key, func(h http.Header) {
		h.Set("Content-Disposition", attachment(k.filename))
		h.Set("Cache-Control", downloadCacheControl)
	}, "this file no longer exists: export it again")
}

// serveBlob writes the blob key with its content type, length and ETag
// (answering 304 to a matching If-None-Match), and no body to HEAD. headers
// adds the route's own headers.
func (m *Media) serveBlob(w http.ResponseWriter, r *http.Request, key string, headers func(http.Header), missing string) {
	ctx := r.Context()
	attrs, err := m.store.stat(ctx, key)
	if err != nil {
		if isNotFound(err) {
			writeError(w, r, apperr.NotFound, missing)
		} else {
			writeInternal(w, r, "reading "+key, err)
		}
		return
	}
	h := w.Header()
	if attrs.etag != "" {
		h.Set("ETag", attrs.etag)
	}
	headers(h)
	h.Set("X-Content-Type-Options", "nosniff")
	if etagMatches(r.Header.Get("If-None-Match"), attrs.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", attrs.contentType)
	if r.Method == http.MethodHead {
		h.Set("Content-Length", strconv.FormatInt(attrs.size, 10))
		w.WriteHeader(http.StatusOK)
		return
	}
	br, battrs, err := m.store.open(ctx, key)
	if err != nil {
		for _, name := range []string{"ETag", "Cache-Control", "Content-Disposition", "Content-Type"} {
			h.Del(name)
		}
		if isNotFound(err) {
			writeError(w, r, apperr.NotFound, missing) // deleted since Attributes
		} else {
			writeInternal(w, r, "reading "+key, err)
		}
		return
	}
	defer br.Close()
	h.Set("Content-Length", strconv.FormatInt(battrs.size, 10))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, br); err != nil && ctx.Err() == nil {
		logError("sending "+key, err)
	}
}

// etagMatches reports whether an If-None-Match header names etag (weak
// comparison, as RFC 9110 asks of If-None-Match).
func etagMatches(header, etag string) bool {
	if header == "" || etag == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}

// writeError answers the API's failure envelope (failure.WriteREST: the
// status of code, and the request's id).
func writeError(w http.ResponseWriter, r *http.Request, code apperr.Code, message string) {
	failure.WriteREST(w, r, apperr.New(code, "%s", message))
}

// writeInternal logs err and answers a generic 500: what went wrong in the
// bucket is not the client's business.
func writeInternal(w http.ResponseWriter, r *http.Request, what string, err error) {
	logError(what, err)
	writeError(w, r, apperr.Internal, "internal error")
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func logError(what string, err error) {
	slog.Error("media: "+what, "error", err)
}
