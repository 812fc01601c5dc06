package themesettings

import (
	"encoding/json"
	"fmt"
	"slices"
)

// CarryOver is the settings of a theme moving to this schema (a newer
// release of its template): the release's defaults, with each of the old
// draft's settings kept where this schema still accepts it. A setting the
// schema no longer has is dropped; one it has but refuses as it was (an
// enum lost the value, a bound tightened) is reset to the default, or
// dropped when the release has no default for it. Objects are carried
// setting by setting, anything else whole (a list of sections is kept or
// reset as one). dropped and reset are the settings' paths, sorted.
func (s *Schema) CarryOver(defaults, draft []byte) (settings []byte, dropped, reset []string, err error) {
	d, err := decode(defaults)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("default settings: %w", err)
	}
	old, err := decode(draft)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("draft settings: %w", err)
	}
	c := &carry{dropped: []string{}, reset: []string{}}
	out := c.object(s.root, "", d, old)
	slices.Sort(c.dropped)
	slices.Sort(c.reset)
	b, err := json.Marshal(out)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := s.Validate("settings", b); err != nil {
		return nil, nil, nil, fmt.Errorf("carried settings do not pass the schema (are its defaults valid?): %w", err)
	}
	return b, c.dropped, c.reset, nil
}

type carry struct{ dropped, reset []string }

// object carries old into n's settings over defaults (either may be
// missing or not an object).
func (c *carry) object(n *node, at string, defaults, old any) map[string]any {
	out := map[string]any{}
	dm, _ := defaults.(map[string]any)
	for k, v := range dm {
		if n.properties[k] != nil {
			out[k] = v
		}
	}
	om, ok := old.(map[string]any)
	if !ok {
		return out
	}
	for k, v := range om {
		path := join(at, k)
		child := n.properties[k]
		if child == nil {
			c.dropped = append(c.dropped, path)
			continue
		}
		if child.typ == "object" {
			if _, isObject := v.(map[string]any); isObject {
				out[k] = c.object(child, path, dm[k], v)
				continue
			}
		}
		if child.check(path, v) == nil {
			out[k] = v
			continue
		}
		if _, has := dm[k]; has {
			c.reset = append(c.reset, path)
		} else {
			c.dropped = append(c.dropped, path)
		}
	}
	return out
}
