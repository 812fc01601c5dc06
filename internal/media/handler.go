package media

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"gocloud.dev/blob"
)

// Handler serves the URLs this package hands out:
//
//	PUT  /uploads/{key...}  a signed upload: 201 {"status":true,"key":...}
//	GET  /media/{key...}    a finalised image, public and immutable (and HEAD)
//	GET  /files/{key...}    a signed download (and HEAD)
//
// Failures answer the API's envelope {"status":false,"message":...} with 400,
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
		writeError(w, http.StatusNotFound, "not found")
	})
	return mux
}

func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed here; use "+allow)
	}
}

// serveUpload receives the body of a signed upload URL. The body goes
// straight into a blob writer, which is aborted on any failure, so a refused
// or broken upload never leaves a partial blob behind; a PUT that succeeds
// replaces an earlier one, so a client may simply retry.
func (m *Media) serveUpload(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	q := r.URL.Query()
	exp, maxBytes, ct, sig := q.Get("expires"), q.Get("max"), q.Get("ct"), q.Get("sig")
	if sig == "" || !m.verify(sig, "PUT", key, exp, maxBytes, ct) {
		writeError(w, http.StatusForbidden, "this upload URL is not valid: request a new one")
		return
	}
	expires, err1 := strconv.ParseInt(exp, 10, 64)
	limit, err2 := strconv.ParseInt(maxBytes, 10, 64)
	if _, ok := parseImageKey(pendingPrefix, key); !ok || err1 != nil || err2 != nil || limit <= 0 {
		// Signed by this key but not as this package signs: refuse.
		writeError(w, http.StatusBadRequest, "this upload URL is malformed: request a new one")
		return
	}
	if m.now().Unix() >= expires {
		writeError(w, http.StatusForbidden, "this upload URL has expired: request a new one")
		return
	}
	if got, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || got != ct {
		writeError(w, http.StatusBadRequest, "the Content-Type header must be "+ct+", the type this upload URL was signed for")
		return
	}
	if r.ContentLength > limit {
		writeError(w, http.StatusRequestEntityTooLarge, "the file is larger than the "+humanBytes(limit)+" this upload URL accepts")
		return
	}

	ctx, abort := context.WithCancel(r.Context())
	defer abort()
	bw, err := m.bucket.NewWriter(ctx, key, &blob.WriterOptions{ContentType: ct})
	if err != nil {
		writeInternal(w, "opening "+key, err)
		return
	}
	n, err := io.Copy(bw, http.MaxBytesReader(w, r.Body, limit))
	if err == nil && n == 0 {
		err = errEmptyUpload
	}
	if err != nil {
		abort() // the writer discards what it got
		_ = bw.Close()
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeError(w, http.StatusRequestEntityTooLarge, "the file is larger than the "+humanBytes(limit)+" this upload URL accepts")
		case errors.Is(err, errEmptyUpload):
			writeError(w, http.StatusBadRequest, "the upload is empty")
		default:
			writeError(w, http.StatusBadRequest, "the upload was interrupted: send the file again")
		}
		return
	}
	if err := bw.Close(); err != nil {
		writeInternal(w, "writing "+key, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"status": true, "key": key})
}

var errEmptyUpload = errors.New("empty upload")

// serveMedia serves a finalised image to anyone. Its key never changes
// content, so it is cached for a year and revalidation is by ETag.
func (m *Media) serveMedia(w http.ResponseWriter, r *http.Request) {
	key := mediaPrefix + "/" + r.PathValue("key")
	// Only keys this package makes: no "..", no extra segments.
	if _, ok := parseImageKey(mediaPrefix, key); !ok {
		writeError(w, http.StatusNotFound, "no image at this URL")
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
		writeError(w, http.StatusForbidden, "this download URL is not valid")
		return
	}
	k, ok := parseDownloadKey(key)
	if !ok || strconv.FormatInt(k.expires, 10) != exp {
		writeError(w, http.StatusBadRequest, "this download URL is malformed")
		return
	}
	if m.now().Unix() >= k.expires {
		writeError(w, http.StatusForbidden, "this download URL has expired: export the file again")
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
	attrs, err := m.bucket.Attributes(ctx, key)
	if err != nil {
		if isNotFound(err) {
			writeError(w, http.StatusNotFound, missing)
		} else {
			writeInternal(w, "reading "+key, err)
		}
		return
	}
	h := w.Header()
	if attrs.ETag != "" {
		h.Set("ETag", attrs.ETag)
	}
	headers(h)
	h.Set("X-Content-Type-Options", "nosniff")
	if etagMatches(r.Header.Get("If-None-Match"), attrs.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", attrs.ContentType)
	if r.Method == http.MethodHead {
		h.Set("Content-Length", strconv.FormatInt(attrs.Size, 10))
		w.WriteHeader(http.StatusOK)
		return
	}
	br, err := m.bucket.NewReader(ctx, key, nil)
	if err != nil {
		for _, name := range []string{"ETag", "Cache-Control", "Content-Disposition", "Content-Type"} {
			h.Del(name)
		}
		if isNotFound(err) {
			writeError(w, http.StatusNotFound, missing) // deleted since Attributes
		} else {
			writeInternal(w, "reading "+key, err)
		}
		return
	}
	defer br.Close()
	h.Set("Content-Length", strconv.FormatInt(br.Size(), 10))
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

// writeError answers the API's failure envelope.
func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]any{"status": false, "message": message})
}

// writeInternal logs err and answers a generic 500: what went wrong in the
// bucket is not the client's business.
func writeInternal(w http.ResponseWriter, what string, err error) {
	logError(what, err)
	writeError(w, http.StatusInternalServerError, "internal error")
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func logError(what string, err error) {
	slog.Error("media: "+what, "error", err)
}
