package media

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// fileStore keeps blobs as files under a folder, each key a path below it.
// A blob's content type is in a sidecar "{file}.attrs" holding JSON
// {"user.content_type": ...}, the layout gocloud.dev's fileblob wrote, so a
// folder written by earlier versions reads the same.
//
// Writes go to a temporary file in {dir}/.tmp and are renamed into place, so a
// reader never sees half a blob and an abandoned write leaves nothing behind.
type fileStore struct {
	dir string
}

const (
	attrsExt = ".attrs"
	tmpDir   = ".tmp"
)

// fileAttrs is the sidecar of a blob.
type fileAttrs struct {
	ContentType string `json:"user.content_type"`
}

// openFileStore opens file:///abs/dir, creating the folder when missing.
func openFileStore(u *url.URL) (*fileStore, error) {
	dir := filepath.FromSlash(u.Path)
	if u.Host != "" && u.Host != "localhost" || !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("media: a file bucket URL needs an absolute path, such as file:///var/lib/storeadmin/blobs, got %q", u.Redacted())
	}
	for name := range u.Query() {
		// What fileblob took; the folder is always created, and written
		// through its own .tmp.
		if name != "create_dir" && name != "no_tmp_dir" {
			return nil, fmt.Errorf("media: unknown option %q in the bucket URL %q: a file bucket takes none", name, u.Redacted())
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, tmpDir), 0o750); err != nil {
		return nil, fmt.Errorf("media: creating the blob folder: %w", err)
	}
	return &fileStore{dir: dir}, nil
}

// path is the file of key, or an error for a key that could leave the folder
// or collide with a sidecar.
func (s *fileStore) path(key string) (string, error) {
	if key == "" || path.Clean("/"+key) != "/"+key || strings.HasSuffix(key, attrsExt) || strings.HasPrefix(key, tmpDir+"/") {
		return "", fmt.Errorf("media: %q is not a valid blob key", key)
	}
	return filepath.Join(s.dir, filepath.FromSlash(key)), nil
}

func (s *fileStore) put(ctx context.Context, key string, r io.Reader, _ int64, contentType string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return err
	}
	data, err := s.writeTemp(ctx, r)
	if err != nil {
		return err
	}
	defer os.Remove(data) // a no-op once renamed
	attrs, err := s.writeTemp(ctx, jsonReader(fileAttrs{ContentType: contentType}))
	if err != nil {
		return err
	}
	defer os.Remove(attrs)
	// The sidecar first: a blob is never seen with an older blob's type.
	if err := os.Rename(attrs, p+attrsExt); err != nil {
		return err
	}
	return os.Rename(data, p)
}

// writeTemp copies r into a new temporary file and returns its name. The
// file is removed unless the copy completes before ctx ends.
func (s *fileStore) writeTemp(ctx context.Context, r io.Reader) (name string, err error) {
	f, err := os.CreateTemp(filepath.Join(s.dir, tmpDir), "blob-*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if _, err := io.Copy(f, ctxReader{ctx, r}); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}

func (s *fileStore) open(ctx context.Context, key string) (io.ReadCloser, blobAttrs, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, blobAttrs{}, errBlobNotFound
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, blobAttrs{}, notFoundIfMissing(err)
	}
	attrs, err := s.attrs(p, f.Stat)
	if err != nil {
		f.Close()
		return nil, blobAttrs{}, err
	}
	return f, attrs, nil
}

func (s *fileStore) stat(ctx context.Context, key string) (blobAttrs, error) {
	p, err := s.path(key)
	if err != nil {
		return blobAttrs{}, errBlobNotFound
	}
	return s.attrs(p, func() (fs.FileInfo, error) { return os.Stat(p) })
}

// attrs reads the attributes of the blob file p from statFn and its sidecar.
// A blob without a sidecar gets the type of its extension.
func (s *fileStore) attrs(p string, statFn func() (fs.FileInfo, error)) (blobAttrs, error) {
	info, err := statFn()
	if err != nil {
		return blobAttrs{}, notFoundIfMissing(err)
	}
	if info.IsDir() {
		return blobAttrs{}, errBlobNotFound
	}
	var fa fileAttrs
	if data, err := os.ReadFile(p + attrsExt); err == nil {
		if err := json.Unmarshal(data, &fa); err != nil {
			return blobAttrs{}, fmt.Errorf("media: reading the attributes of %s: %w", p, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return blobAttrs{}, err
	}
	if fa.ContentType == "" {
		fa.ContentType = mime.TypeByExtension(filepath.Ext(p))
	}
	if fa.ContentType == "" {
		fa.ContentType = "application/octet-stream"
	}
	return blobAttrs{
		contentType: fa.ContentType,
		size:        info.Size(),
		// fileblob's ETag, so clients' cached copies stay valid.
		etag:    fmt.Sprintf("\"%x-%x\"", info.ModTime().UnixNano(), info.Size()),
		modTime: info.ModTime(),
	}, nil
}

func (s *fileStore) remove(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return nil // no such key can exist
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Remove(p + attrsExt); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (s *fileStore) list(ctx context.Context, prefix string, fn func(key string, modTime time.Time) error) error {
	// Walk the folder the prefix is in, then filter by the whole prefix.
	root := filepath.Join(s.dir, filepath.FromSlash(path.Dir("/"+prefix+"x")))
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(s.dir, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			if key == tmpDir {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(key, attrsExt) || !strings.HasPrefix(key, prefix) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // deleted while walking
			}
			return err
		}
		return fn(key, info.ModTime())
	})
	return err
}

func notFoundIfMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errBlobNotFound
	}
	return err
}

// ctxReader fails its reads once ctx has ended: an abandoned write stops.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// jsonReader reads v as JSON; v is a plain struct, which always encodes.
func jsonReader(v any) io.Reader {
	data, _ := json.Marshal(v)
	return strings.NewReader(string(data))
}
