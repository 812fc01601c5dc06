package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"slices"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// memoryBody is how much of a request body is kept in memory; the rest goes
// to a temporary file. Every JSON body fits (the REST limit is 1 MiB).
const memoryBody = 1 << 20

// maxOperations bounds the "operations" part of a GraphQL multipart body
// that is kept to tell a mutation from a query.
const maxOperations = 1 << 20

const tooLarge = "the request body is larger than 65 MiB, the most a request with an Idempotency-Key may carry"

// badBody is a request body that cannot be taken: a 400.
type badBody struct{ msg string }

func (e *badBody) Error() string { return e.msg }

// request is a buffered request: its body, its fingerprint, and for GraphQL
// the operations object.
type request struct {
	body        *spool
	fingerprint []byte
	operations  []byte // a multipart body's "operations" part
	contentType string
}

// readRequest buffers r's body and fingerprints the request while it does:
// SHA-256 of the method, path, raw query, Content-Type and body.
//
// A multipart/form-data body is fingerprinted by its parts (each part's
// headers and content), not its bytes, and its Content-Type without the
// boundary: a client that rebuilds the request for a retry draws a new
// boundary, and the retry is still the same request. If the body is not
// valid multipart, its bytes are used.
func readRequest(r *http.Request, graphql bool, tempDir string) (*request, error) {
	req := &request{body: &spool{dir: tempDir}, contentType: r.Header.Get("Content-Type")}
	raw := sha256.New()
	var src io.Reader = http.NoBody
	if r.Body != nil {
		src = io.LimitReader(r.Body, MaxRequestBody+1)
	}
	tee := io.TeeReader(src, io.MultiWriter(req.body, raw))

	mediaType, params, _ := mime.ParseMediaType(req.contentType)
	var parts []byte
	if boundary := params["boundary"]; mediaType == "multipart/form-data" && boundary != "" {
		parts, req.operations = hashParts(tee, boundary, graphql)
	}
	// What the multipart reader left (or the whole body) still has to pass
	// through the tee into the buffer.
	if _, err := io.Copy(io.Discard, tee); err != nil {
		req.body.Close()
		if req.body.err != nil {
			return nil, req.body.err
		}
		if errors.As(err, new(*http.MaxBytesError)) {
			return nil, &badBody{tooLarge}
		}
		return nil, &badBody{"the request body could not be read: " + err.Error()}
	}
	if req.body.size > MaxRequestBody {
		req.body.Close()
		return nil, &badBody{tooLarge}
	}

	fp := sha256.New()
	field(fp, []byte(r.Method))
	field(fp, []byte(r.URL.Path))
	field(fp, []byte(r.URL.RawQuery))
	if parts != nil {
		delete(params, "boundary")
		field(fp, []byte(mime.FormatMediaType(mediaType, params)))
		field(fp, []byte("parts"))
		field(fp, parts)
	} else {
		field(fp, []byte(req.contentType))
		field(fp, []byte("bytes"))
		field(fp, raw.Sum(nil))
	}
	req.fingerprint = fp.Sum(nil)
	return req, nil
}

// field writes b to h with its length first, so that no two different
// sequences of fields hash alike.
func field(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// hashParts reads a multipart body from src and returns the digest of its
// parts, or nil if it is not valid multipart. With keepOperations it also
// returns the content of the first part named "operations".
func hashParts(src io.Reader, boundary string, keepOperations bool) (digest, operations []byte) {
	h := sha256.New()
	mr := multipart.NewReader(src, boundary)
	for {
		part, err := mr.NextRawPart()
		if err == io.EOF {
			return h.Sum(nil), operations
		}
		if err != nil {
			return nil, nil
		}
		names := make([]string, 0, len(part.Header))
		for name := range part.Header {
			names = append(names, name)
		}
		slices.Sort(names)
		field(h, []byte("part"))
		for _, name := range names {
			field(h, []byte(name))
			for _, v := range part.Header[name] {
				field(h, []byte(v))
			}
		}
		content := sha256.New()
		var w io.Writer = content
		var ops *bytes.Buffer
		if keepOperations && operations == nil && part.FormName() == "operations" {
			ops = &bytes.Buffer{}
			w = io.MultiWriter(content, &limitedWriter{buf: ops, max: maxOperations})
		}
		if _, err := io.Copy(w, part); err != nil {
			return nil, nil
		}
		field(h, content.Sum(nil))
		if ops != nil {
			operations = ops.Bytes()
		}
	}
}

// limitedWriter keeps up to max bytes and drops the rest.
type limitedWriter struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// operation is the GraphQL operation the request runs, or nil if that cannot
// be told (the executor will then refuse the request, or the request is
// treated as a mutation: the safe side).
func (req *request) operation() *ast.OperationDefinition {
	var src io.Reader
	if req.operations != nil {
		src = bytes.NewReader(req.operations)
	} else {
		mediaType, _, _ := mime.ParseMediaType(req.contentType)
		if mediaType != "application/json" {
			return nil
		}
		rc := req.body.Reader()
		defer rc.Close()
		src = rc
	}
	var params struct {
		Query         string `json:"query"`
		OperationName string `json:"operationName"`
	}
	if err := json.NewDecoder(src).Decode(&params); err != nil {
		return nil
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: params.Query})
	if err != nil {
		return nil
	}
	if params.OperationName == "" {
		if len(doc.Operations) == 1 {
			return doc.Operations[0]
		}
		return nil
	}
	return doc.Operations.ForName(params.OperationName)
}

// spool keeps a body in memory up to memoryBody, then in a temporary file.
type spool struct {
	dir  string
	mem  []byte
	file *os.File
	size int64
	err  error // a failure of the temporary file: a 500, not the client's
}

func (s *spool) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	s.size += int64(len(p))
	if s.file == nil && len(s.mem)+len(p) <= memoryBody {
		s.mem = append(s.mem, p...)
		return len(p), nil
	}
	if s.file == nil {
		f, err := os.CreateTemp(s.dir, "storeadmin-idempotency-*")
		if err != nil {
			s.err = err
			return 0, err
		}
		s.file = f
		if _, err := f.Write(s.mem); err != nil {
			s.err = err
			return 0, err
		}
		s.mem = nil
	}
	if _, err := s.file.Write(p); err != nil {
		s.err = err
		return 0, err
	}
	return len(p), nil
}

// Reader reads the whole body from its start.
func (s *spool) Reader() io.ReadCloser {
	if s.file != nil {
		return io.NopCloser(io.NewSectionReader(s.file, 0, s.size))
	}
	return io.NopCloser(bytes.NewReader(s.mem))
}

// Close removes the temporary file, if any.
func (s *spool) Close() error {
	if s.file == nil {
		return nil
	}
	name := s.file.Name()
	s.file.Close()
	s.file = nil
	return os.Remove(name)
}
