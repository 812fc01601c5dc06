package themesettings

import "fmt"

// ImageRef is an image setting's reference: the path of its src and the
// src itself.
type ImageRef struct {
	Path, Src string
}

// Images lists the image references of settings that passed Validate, in
// the order Validate checks them; field prefixes the paths as there. That
// each names one of the store's uploads is the caller's to check.
func (s *Schema) Images(field string, settings []byte) ([]ImageRef, error) {
	v, err := decode(settings)
	if err != nil {
		return nil, err
	}
	var out []ImageRef
	s.root.images(field, v, &out)
	return out, nil
}

func (n *node) images(at string, v any, out *[]ImageRef) {
	switch n.typ {
	case "image":
		if m, ok := v.(map[string]any); ok {
			if src, ok := m["src"].(string); ok {
				*out = append(*out, ImageRef{Path: join(at, "src"), Src: src})
			}
		}
	case "object":
		m, _ := v.(map[string]any)
		for _, name := range n.names {
			if child, ok := m[name]; ok {
				n.properties[name].images(join(at, name), child, out)
			}
		}
	case "array":
		list, _ := v.([]any)
		for i, e := range list {
			n.items.images(fmt.Sprintf("%s[%d]", at, i), e, out)
		}
	}
}
