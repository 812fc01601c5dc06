package media

import (
	"strings"

	"storeadmin/internal/base/apperr"
)

// maxFilename is the longest filename kept in a key, extension included.
const maxFilename = 100

// maxExtension is the longest suffix after the last dot still treated as an
// extension (and so kept when a long name is cut).
const maxExtension = 10

// sanitizeFilename makes a client's filename safe to use as the last segment
// of a key and a URL: only the base name is kept (a browser may send
// C:\Users\...\photo.png), every byte outside [A-Za-z0-9._-] becomes '-',
// runs of '-' and of '.' collapse to one (so ".." never appears), dots and
// dashes are trimmed from both ends (no hidden files), and the name is cut to
// 100 bytes keeping its extension (but ".attrs", see below). The result is
// empty when nothing usable is left.
// sanitizeFilename(sanitizeFilename(s)) == sanitizeFilename(s).
func sanitizeFilename(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	var last byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isFilenameByte(c) {
			c = '-'
		}
		if (c == '-' || c == '.') && c == last {
			continue
		}
		b.WriteByte(c)
		last = c
	}
	s := strings.Trim(b.String(), ".-")
	stem, ext := splitExt(s)
	if len(stem)+len(ext) > maxFilename {
		stem = strings.TrimRight(stem[:maxFilename-len(ext)], ".-")
	}
	if stem == "" {
		return ""
	}
	if strings.EqualFold(ext, attrsExt) {
		// The folder backend keeps a blob's attributes beside it in
		// "{file}.attrs" (gocloud's layout), so no key may end so: the name
		// keeps its letters, not its extension.
		return stem + "-" + ext[1:]
	}
	return stem + ext
}

// isCleanFilename reports whether name is the output of sanitizeFilename: the
// check keys read back from URLs must pass.
func isCleanFilename(name string) bool {
	return name != "" && sanitizeFilename(name) == name
}

func isFilenameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// splitExt splits name before its last dot when what follows is short enough
// to be an extension. A leading dot is not an extension.
func splitExt(name string) (stem, ext string) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || len(name)-i > maxExtension+1 {
		return name, ""
	}
	return name[:i], name[i:]
}

// withExtension returns the clean name with its extension replaced by ext,
// unless it already is one of accepted (compared ignoring case).
func withExtension(name, ext string, accepted []string) string {
	stem, old := splitExt(name)
	for _, a := range accepted {
		if strings.EqualFold(old, a) {
			return name
		}
	}
	if len(stem)+len(ext) > maxFilename {
		stem = strings.TrimRight(stem[:maxFilename-len(ext)], ".-")
	}
	return stem + ext
}

// cleanFilename is sanitizeFilename for a name a person sent, refusing one
// with nothing usable left.
func cleanFilename(name string) (string, error) {
	clean := sanitizeFilename(name)
	if clean == "" {
		return "", apperr.Invalidf("filename %q has no usable characters: use letters, digits, '.', '_' or '-'", name)
	}
	return clean, nil
}
