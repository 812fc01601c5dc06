package resolvers

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/handle"
	"storeadmin/models"
)

// maxMenuItems bounds a menu's items, at every level together.
const maxMenuItems = 250

// menuRef is an item of a menu being written that refers to a record, and
// the field that named it, for the message when there is no such record.
type menuRef struct {
	kind  string
	id    int64
	field string
}

// menuItems is a menu's items as sent, checked: the tree to store and the
// references in it, in the order they were sent.
type menuItems struct {
	tree  []models.MenuItem
	refs  []menuRef
	count int
}

// checkMenuHandle checks the handle of a menu a client named.
func checkMenuHandle(v string) (string, error) {
	h := strings.TrimSpace(v)
	if !handle.Valid(h) {
		return "", apperr.Invalidf("handle must be lowercase letters, digits and single dashes, at most %d characters, such as main-menu; not %q", handle.MaxLength, v)
	}
	return h, nil
}

// checkMenuItems checks the items of a menu (at most models.MenuMaxDepth
// levels, maxMenuItems in all, each a title and one link) and converts
// them to what is stored. Each refusal names its field as the client sent
// it (items[0].items[2].url).
func checkMenuItems(in []graph.MenuItemInput) (*menuItems, error) {
	m := &menuItems{}
	var err error
	m.tree, err = m.check(in, "items", 1)
	return m, err
}

func (m *menuItems) check(in []graph.MenuItemInput, field string, depth int) ([]models.MenuItem, error) {
	if depth > models.MenuMaxDepth {
		return nil, apperr.InvalidField(field, "nests a level too deep: a menu has at most %d levels (an item, its children and theirs)", models.MenuMaxDepth)
	}
	out := make([]models.MenuItem, 0, len(in))
	for i, item := range in {
		at := fmt.Sprintf("%s[%d]", field, i)
		if m.count++; m.count > maxMenuItems {
			return nil, apperr.InvalidField(at, "is one item too many: a menu has at most %d items in all", maxMenuItems)
		}
		title, err := text(at+".title", item.Title, maxTitle, true)
		if err != nil {
			return nil, err
		}
		link, err := m.link(item, at)
		if err != nil {
			return nil, err
		}
		link.Title = title
		if len(item.Items) > 0 {
			if link.Items, err = m.check(item.Items, at+".items", depth+1); err != nil {
				return nil, err
			}
		}
		out = append(out, link)
	}
	return out, nil
}

// link checks an item's type and the url or resource_id it takes.
func (m *menuItems) link(item graph.MenuItemInput, at string) (models.MenuItem, error) {
	typ := strings.TrimSpace(item.Type)
	if _, err := oneOf(at+".type", typ, models.MenuLinkTypes...); err != nil {
		return models.MenuItem{}, err
	}
	link := models.MenuItem{Type: typ}
	if typ == models.MenuLinkURL {
		if item.ResourceID != nil {
			return link, apperr.InvalidField(at+".resource_id", "is for items that link to a record; an item of type url takes a url")
		}
		var err error
		link.URL, err = menuURL(at+".url", deref(item.URL))
		return link, err
	}
	if item.URL != nil {
		return link, apperr.InvalidField(at+".url", "is for items of type url; an item of type %s links to what it names, and its URL is worked out when read", typ)
	}
	if typ == models.MenuLinkBlog {
		if item.ResourceID != nil {
			return link, apperr.InvalidField(at+".resource_id", "is not taken by an item of type blog: it links to the store's one blog")
		}
		return link, nil
	}
	if item.ResourceID == nil {
		return link, apperr.InvalidField(at+".resource_id", "is required for an item of type %s: the id of the %s it links to", typ, typ)
	}
	if *item.ResourceID <= 0 {
		return link, apperr.InvalidField(at+".resource_id", "must be a %s id, a positive integer", typ)
	}
	link.ResourceID = *item.ResourceID
	m.refs = append(m.refs, menuRef{kind: typ, id: link.ResourceID, field: at + ".resource_id"})
	return link, nil
}

// menuURL checks the URL of an item of type url: an absolute http(s) URL,
// or a path of the storefront (/search); at most maxURLLength bytes.
func menuURL(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", apperr.InvalidField(field, "is required for an item of type url: an absolute http(s) URL or a storefront path such as /search")
	}
	u, err := url.Parse(v)
	path := err == nil && strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") && u.Host == ""
	absolute := err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
	if (!path && !absolute) || len(v) > maxURLLength || strings.ContainsAny(v, " \t\r\n") {
		return "", apperr.InvalidField(field, "must be an absolute http(s) URL or a storefront path starting with / (such as /search), at most %d characters; not %q", maxURLLength, v)
	}
	return v, nil
}

// checkMenuTargets refuses a menu, just stored in tx, whose items refer to
// records the store does not have (refs, as checkMenuItems found them).
// The stored tree is read back the way reads resolve it, so the rule for
// what a reference reaches is the one statement reads use.
func checkMenuTargets(ctx context.Context, tx bun.IDB, m *models.Menu, refs []menuRef) error {
	if len(refs) == 0 {
		return nil
	}
	targets, err := models.MenuTargetsByMenu(ctx, tx, m.StoreID, []int64{m.ID}, models.AllColumns)
	if err != nil {
		return err
	}
	found := map[menuRef]bool{}
	for _, t := range targets {
		if t.Found {
			found[menuRef{kind: t.Kind, id: t.ResourceID}] = true
		}
	}
	for _, r := range refs {
		if !found[menuRef{kind: r.kind, id: r.id}] {
			return apperr.InvalidField(r.field, "names no %s of this store (%d)", r.kind, r.id)
		}
	}
	return nil
}
