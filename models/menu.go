package models

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// The menus every store has from its creation (a trigger adds them with
// the store, migration 20261124150100_content), which the storefront's
// header and footer render. They can be changed, never deleted.
const (
	MainMenu   = "main-menu"
	FooterMenu = "footer"
)

// DefaultMenus are the handles of the menus every store has.
var DefaultMenus = []string{MainMenu, FooterMenu}

// What a menu item links to: a URL of its own, or a record read by id
// (MenuLinkBlog is the store's one blog and names no record).
const (
	MenuLinkURL        = "url"
	MenuLinkProduct    = "product"
	MenuLinkCollection = "collection"
	MenuLinkPage       = "page"
	MenuLinkArticle    = "article"
	MenuLinkBlog       = "blog"
)

// MenuLinkTypes are the values of a menu item's type.
var MenuLinkTypes = []string{MenuLinkURL, MenuLinkProduct, MenuLinkCollection, MenuLinkPage, MenuLinkArticle, MenuLinkBlog}

// MenuMaxDepth is how deep a menu's items nest: an item, its children and
// theirs.
const MenuMaxDepth = 3

// Menu is a named tree of storefront links (its handle is unique in its
// store). Items is the tree as stored; the API reads it through
// MenuItemViews, which resolves each reference to its record's current
// handle and path.
type Menu struct {
	bun.BaseModel `bun:"table:menus,alias:menu"`

	ID        int64      `bun:"id,pk,autoincrement" json:"-"`
	StoreID   int64      `bun:"store_id" json:"-"`
	Handle    string     `bun:"handle" json:"handle"`
	Title     string     `bun:"title" json:"title"`
	Tree      []MenuItem `bun:"items,type:jsonb" json:"-"`
	CreatedAt time.Time  `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt time.Time  `bun:"updated_at,nullzero,default:now()" json:"-"`
}

// MenuItem is a menu item as stored: a link of Type, to URL (MenuLinkURL)
// or to the record ResourceID (a product, collection, page or article), and
// its children.
type MenuItem struct {
	Title      string     `json:"title"`
	Type       string     `json:"type"`
	URL        string     `json:"url,omitempty"`
	ResourceID int64      `json:"resource_id,omitempty"`
	Items      []MenuItem `json:"items,omitempty"`
}

// Refers reports whether the item links to a record by id.
func (i MenuItem) Refers() bool {
	return i.Type != MenuLinkURL && i.Type != MenuLinkBlog
}

// MenuTarget is the record a menu's item refers to, as it is now: Found is
// false when it was deleted (Handle and Title are then empty).
type MenuTarget struct {
	MenuID     int64  `bun:"menu_id"`
	Kind       string `bun:"kind"`
	ResourceID int64  `bun:"resource_id"`
	Handle     string `bun:"handle"`
	Title      string `bun:"title"`
	Found      bool   `bun:"found"`
}

// MenuItemView is a menu item as the API reads it: URL is the storefront
// path of the record it refers to now (models/storefront_path.go), or its
// own URL; a reference whose record was deleted is Broken, with no URL or
// handle, and stays in the menu until someone changes it.
type MenuItemView struct {
	Title      string         `json:"title"`
	Type       string         `json:"type"`
	URL        *string        `json:"url"`
	ResourceID *int64         `json:"resource_id"`
	Handle     *string        `json:"handle"`
	Broken     bool           `json:"broken"`
	Items      []MenuItemView `json:"items"`
}

// MenuItemViews resolves items against targets (MenuTargetsByMenu of their
// menu).
func MenuItemViews(items []MenuItem, targets []MenuTarget) []MenuItemView {
	type ref struct {
		kind string
		id   int64
	}
	found := make(map[ref]MenuTarget, len(targets))
	for _, t := range targets {
		found[ref{t.Kind, t.ResourceID}] = t
	}
	var view func([]MenuItem) []MenuItemView
	view = func(items []MenuItem) []MenuItemView {
		out := make([]MenuItemView, len(items))
		for i, it := range items {
			v := MenuItemView{Title: it.Title, Type: it.Type, Items: view(it.Items)}
			switch it.Type {
			case MenuLinkURL:
				v.URL = &it.URL
			case MenuLinkBlog:
				path := PathBlog
				v.URL = &path
			default:
				id := it.ResourceID
				v.ResourceID = &id
				t, ok := found[ref{it.Type, it.ResourceID}]
				if !ok || !t.Found {
					v.Broken = true
					break
				}
				h, path := t.Handle, menuTargetPath(it.Type, t.Handle)
				v.Handle, v.URL = &h, &path
			}
			out[i] = v
		}
		return out
	}
	return view(items)
}

// menuTargetPath is the storefront path of the record of kind (a menu
// link type: product, collection, page or article) with handle h.
func menuTargetPath(kind, h string) string {
	switch kind {
	case MenuLinkProduct:
		return ProductPath(h)
	case MenuLinkCollection:
		return CollectionPath(h)
	case MenuLinkPage:
		return PagePath(h)
	case MenuLinkArticle:
		return ArticlePath(h)
	}
	return ""
}

// menuTargets reads, for each menu of the store among ids, every record
// its items refer to, at any depth, as it is now: one statement that walks
// the stored trees and looks each reference up by primary key.
const menuTargets = `
WITH RECURSIVE item (menu_id, node) AS (
        SELECT m.id, e.node
        FROM menus AS m, jsonb_array_elements(m.items) AS e (node)
        WHERE m.store_id = ?0 AND m.id IN (?1)
    UNION ALL
        SELECT item.menu_id, e.node
        FROM item, jsonb_array_elements(CASE WHEN jsonb_typeof(item.node -> 'items') = 'array'
            THEN item.node -> 'items' ELSE '[]' END) AS e (node)
), ref AS (
    SELECT DISTINCT menu_id, node ->> 'type' AS kind, (node ->> 'resource_id')::bigint AS resource_id
    FROM item
    WHERE node ->> 'type' IN ('product', 'collection', 'page', 'article')
)
SELECT ref.menu_id, ref.kind, ref.resource_id,
       coalesce(t.handle, '') AS handle, coalesce(t.title, '') AS title, t.handle IS NOT NULL AS found
FROM ref
LEFT JOIN LATERAL (
        SELECT handle, title FROM products WHERE ref.kind = 'product' AND store_id = ?0 AND id = ref.resource_id
    UNION ALL
        SELECT handle, title FROM collections WHERE ref.kind = 'collection' AND store_id = ?0 AND id = ref.resource_id
    UNION ALL
        SELECT handle, title FROM pages WHERE ref.kind = 'page' AND store_id = ?0 AND id = ref.resource_id
    UNION ALL
        SELECT handle, title FROM articles WHERE ref.kind = 'article' AND store_id = ?0 AND id = ref.resource_id
) AS t ON true
ORDER BY ref.menu_id, ref.kind, ref.resource_id`

// MenuTargetsByMenu loads the records the items of several menus refer
// to, for a dataloader (one statement for every menu of a list).
func MenuTargetsByMenu(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]MenuTarget, error) {
	var out []MenuTarget
	err := db.NewRaw(menuTargets, storeID, bun.List(ids)).Scan(ctx, &out)
	return out, err
}

// ListMenus lists a store's menus, oldest first (the default menus, made
// with the store, lead).
func ListMenus(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]Menu, error) {
	var out []Menu
	q := db.NewSelect().Model(&out).Apply(p.Columns.Apply).Where("menu.store_id = ?", storeID).OrderExpr("menu.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountMenus counts a store's menus.
func CountMenus(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*Menu)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// GetMenu reads the store's menu with the handle.
func GetMenu(ctx context.Context, db bun.IDB, storeID int64, handle string) (*Menu, error) {
	m := new(Menu)
	err := db.NewSelect().Model(m).Where("store_id = ? AND handle = ?", storeID, handle).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.NotFoundf("the store has no menu %q", handle)
	}
	return m, err
}

// PutMenu creates the store's menu m.Handle or replaces its title and
// items, and fills m's id and times.
func PutMenu(ctx context.Context, db bun.IDB, m *Menu) error {
	if m.Tree == nil {
		m.Tree = []MenuItem{}
	}
	_, err := db.NewInsert().Model(m).
		On("CONFLICT (store_id, handle) DO UPDATE").
		Set("title = EXCLUDED.title, items = EXCLUDED.items, updated_at = now()").
		Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the menu")
}

// DeleteMenu removes the store's menu with the handle and returns its id.
// The default menus (DefaultMenus) are refused: every store has them.
func DeleteMenu(ctx context.Context, db bun.IDB, storeID int64, handle string) (int64, error) {
	if slices.Contains(DefaultMenus, handle) {
		return 0, apperr.Conflictf("%s is one of the menus every store has and cannot be deleted; put it with items [] to empty it", handle)
	}
	var id int64
	err := db.NewDelete().Model((*Menu)(nil)).Where("store_id = ? AND handle = ?", storeID, handle).Returning("id").Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, apperr.NotFoundf("the store has no menu %q", handle)
	}
	return id, err
}
