package models

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/storeurl"
)

// What wrote a redirect last.
const (
	RedirectManual    = "manual"    // the API
	RedirectImport    = "import"    // a redirect sheet
	RedirectAutomatic = "automatic" // a changed handle (RedirectMovedPath)
)

// RedirectSources lists the sources a redirect can have.
var RedirectSources = []string{RedirectManual, RedirectImport, RedirectAutomatic}

// URLRedirect sends the shoppers who ask for a storefront path elsewhere.
// Path and Target are normalised by storeurl before they are stored.
type URLRedirect struct {
	bun.BaseModel `bun:"table:url_redirects,alias:redirect"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64     `bun:"store_id" json:"-"`
	Path      string    `bun:"path" json:"path"`
	Target    string    `bun:"target" json:"target"`
	Source    string    `bun:"source" json:"source"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// URLRedirectFilter narrows a redirects list (and says which redirects a
// bulk delete of all_matching deletes).
type URLRedirectFilter struct {
	Q           *string `json:"q"`
	Source      *string `json:"source"`
	CreatedFrom *string `json:"created_from"`
	CreatedTo   *string `json:"created_to"`
}

// Check refuses a filter the list cannot run.
func (f URLRedirectFilter) Check() error {
	if f.Source != nil && !slices.Contains(RedirectSources, *f.Source) {
		return apperr.Invalidf("source must be one of %s, not %q", strings.Join(RedirectSources, ", "), *f.Source)
	}
	from, _, err := createdBound("created_from", f.CreatedFrom, false)
	if err != nil {
		return err
	}
	to, toOp, err := createdBound("created_to", f.CreatedTo, true)
	if err != nil {
		return err
	}
	// A date's end is the next day's start, which the range excludes.
	if !from.IsZero() && !to.IsZero() && (to.Before(from) || toOp == "<" && !to.After(from)) {
		return apperr.Invalidf("created_to must not be before created_from")
	}
	return nil
}

// createdBound reads one end of a created range: an RFC 3339 time, or a
// date (2026-03-01), which means the day's start (UTC) as a start and its
// end as an end. It answers the SQL comparison that keeps the rows within
// the bound.
func createdBound(field string, v *string, end bool) (time.Time, string, error) {
	if v == nil || strings.TrimSpace(*v) == "" {
		return time.Time{}, "", nil
	}
	s := strings.TrimSpace(*v)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil && t.Year() >= 1900 && t.Year() <= 9999 {
		if end {
			return t, "<=", nil
		}
		return t, ">=", nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil && d.Year() >= 1900 && d.Year() <= 9999 {
		if end {
			return d.AddDate(0, 0, 1), "<", nil
		}
		return d, ">=", nil
	}
	return time.Time{}, "", apperr.Invalidf("%s must be a date (2026-03-01) or a date and time (2026-03-01T09:30:00Z), not %q", field, s)
}

func (f URLRedirectFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f.Source != nil {
		q = q.Where("redirect.source = ?", *f.Source)
	}
	if t, op, _ := createdBound("created_from", f.CreatedFrom, false); op != "" {
		q = q.Where("redirect.created_at "+op+" ?", t)
	}
	if t, op, _ := createdBound("created_to", f.CreatedTo, true); op != "" {
		q = q.Where("redirect.created_at "+op+" ?", t)
	}
	if f.Q != nil && strings.TrimSpace(*f.Q) != "" {
		// The expression of the trigram index url_redirects_text_trgm_idx.
		q = q.Where("lower(redirect.path || E'\\n' || redirect.target) LIKE ?", containsPattern(*f.Q))
	}
	return q
}

// ListURLRedirects lists a store's redirects under the filter, newest
// first.
func ListURLRedirects(ctx context.Context, db bun.IDB, storeID int64, f URLRedirectFilter, p Paging) ([]URLRedirect, error) {
	var out []URLRedirect
	q := db.NewSelect().Model(&out).Where("redirect.store_id = ?", storeID).Apply(f.apply).
		OrderExpr("redirect.created_at DESC, redirect.id DESC")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountURLRedirects counts what ListURLRedirects would list without
// paging.
func CountURLRedirects(ctx context.Context, db bun.IDB, storeID int64, f URLRedirectFilter) (int64, error) {
	return db.NewSelect().Model((*URLRedirect)(nil)).Where("redirect.store_id = ?", storeID).Apply(f.apply).Count(ctx)
}

// AllURLRedirects lists every redirect of the store under the filter, by
// path, for exports.
func AllURLRedirects(ctx context.Context, db bun.IDB, storeID int64, f URLRedirectFilter) ([]URLRedirect, error) {
	var out []URLRedirect
	err := db.NewSelect().Model(&out).Where("redirect.store_id = ?", storeID).Apply(f.apply).
		OrderExpr("redirect.path").Scan(ctx)
	return out, err
}

// GetURLRedirect reads one redirect of the store.
func GetURLRedirect(ctx context.Context, db bun.IDB, storeID, id int64) (*URLRedirect, error) {
	r := new(URLRedirect)
	err := db.NewSelect().Model(r).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return r, classify(err, "the redirect")
}

// URLRedirectIDsByPath maps those of paths that have a redirect in the
// store to its id.
func URLRedirectIDsByPath(ctx context.Context, db bun.IDB, storeID int64, paths []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(paths) == 0 {
		return out, nil
	}
	var rows []URLRedirect
	err := db.NewSelect().Model(&rows).Column("id", "path").
		Where("store_id = ? AND path IN (?)", storeID, bun.List(paths)).Scan(ctx)
	for _, r := range rows {
		out[r.Path] = r.ID
	}
	return out, err
}

// StoreHosts is the rule that tells the store's own hosts (its domains)
// from other sites', which storeurl needs to read a full URL.
func StoreHosts(ctx context.Context, db bun.IDB, storeID int64) (storeurl.OwnHost, error) {
	var hosts []string
	err := db.NewSelect().TableExpr("domains").Column("hostname").Where("store_id = ?", storeID).Scan(ctx, &hosts)
	own := map[string]bool{}
	for _, h := range hosts {
		own[strings.ToLower(h)] = true
	}
	return func(host string) bool { return own[host] }, err
}

// SaveURLRedirect stores r, a new redirect when its ID is 0, after the
// rules every writer of a redirect keeps (its path and target already
// normalised by storeurl): a redirect to its own path is refused, as is one
// that closes a loop with the store's other redirects (a → b, b → a, or
// longer), which the storefront would follow forever (400, naming the
// loop); a path has at most one redirect (409, naming the one it has).
func SaveURLRedirect(ctx context.Context, db bun.IDB, r *URLRedirect) error {
	var taken int64
	err := db.NewSelect().Model((*URLRedirect)(nil)).Column("id").
		Where("store_id = ? AND path = ? AND id <> ?", r.StoreID, r.Path, r.ID).Scan(ctx, &taken)
	switch {
	case err == nil:
		return apperr.Conflictf("the path %s already has a redirect (id %d); change that one instead", r.Path, taken)
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	refused, err := checkRedirects(ctx, db, r.StoreID, []URLRedirect{*r})
	if err != nil || refused[0] != nil {
		return cmp.Or(err, refused[0])
	}
	if r.ID == 0 {
		_, err = db.NewInsert().Model(r).Returning("id, created_at, updated_at").Exec(ctx)
		return classify(err, "a redirect from this path")
	}
	res, err := db.NewUpdate().Model(r).Column("path", "target", "source").Set("updated_at = now()").
		Where("store_id = ? AND id = ?", r.StoreID, r.ID).Returning("created_at, updated_at").Exec(ctx)
	return notFoundIfNone(res, err, "the redirect")
}

// PutURLRedirects stores the redirects of a sheet in order, each
// replacing the redirect of its path if there is one, under the loop rules
// of SaveURLRedirect: it answers, for each, why it was refused (nil:
// stored) and whether it replaced a redirect. Their paths are distinct, and
// each carries the ID of its path's redirect, if any (URLRedirectIDsByPath),
// which it replaces in the check too. Checked in one read and written in
// one statement, so a sheet of thousands of rows costs what one row does.
func PutURLRedirects(ctx context.Context, db bun.IDB, storeID int64, rs []URLRedirect) (refused []error, replaced []bool, err error) {
	paths := map[string]bool{}
	for _, r := range rs {
		if paths[r.Path] {
			// One statement cannot upsert a row twice.
			return nil, nil, fmt.Errorf("PutURLRedirects: the path %s is given twice", r.Path)
		}
		paths[r.Path] = true
	}
	if refused, err = checkRedirects(ctx, db, storeID, rs); err != nil {
		return nil, nil, err
	}
	var ok []URLRedirect
	for i, r := range rs {
		if refused[i] == nil {
			r.StoreID = storeID
			ok = append(ok, r)
		}
	}
	replaced = make([]bool, len(rs))
	if len(ok) == 0 {
		return refused, replaced, nil
	}
	var written []struct {
		Path     string `bun:"path"`
		Replaced bool   `bun:"replaced"`
	}
	// xmax is 0 on a row the statement inserted, and set on one it updated.
	_, err = db.NewInsert().Model(&ok).ExcludeColumn("id", "created_at", "updated_at").
		On("CONFLICT (store_id, path) DO UPDATE").
		Set("target = EXCLUDED.target, source = EXCLUDED.source, updated_at = now()").
		Returning("path, xmax <> 0 AS replaced").Exec(ctx, &written)
	if err != nil {
		return nil, nil, err
	}
	byPath := map[string]bool{}
	for _, w := range written {
		byPath[w.Path] = w.Replaced
	}
	for i, r := range rs {
		replaced[i] = refused[i] == nil && byPath[r.Path]
	}
	return refused, replaced, nil
}

// checkRedirects checks rs as if they were saved one after the other over
// the store's redirects (each replacing its own old row, by id, and any
// other row of its path): it answers, for each, why it is refused, a
// redirect to its own path or one closing a loop, or nil. The store's
// redirects that any of rs can lead to (those the storefront would apply
// one after the other, each one's path the target before it) are read in
// one recursive statement over the (store_id, path) index, and the chains
// are followed in memory.
func checkRedirects(ctx context.Context, db bun.IDB, storeID int64, rs []URLRedirect) ([]error, error) {
	refused := make([]error, len(rs))
	var starts []string
	for _, r := range rs {
		if next := storeurl.WithoutFragment(r.Target); strings.HasPrefix(next, "/") { // another site's URL ends every chain
			starts = append(starts, next)
		}
	}
	type edge struct {
		ID   int64  `bun:"id"`
		Path string `bun:"path"`
		Next string `bun:"next"`
	}
	var edges []edge
	if len(starts) > 0 {
		err := db.NewRaw(`WITH RECURSIVE reached (path) AS (
				SELECT unnest(?::text[])
				UNION
				SELECT split_part(x.target, '#', 1) FROM reached
				JOIN url_redirects AS x ON x.store_id = ? AND x.path = reached.path
			)
			SELECT x.id, x.path, split_part(x.target, '#', 1) AS next
			FROM reached JOIN url_redirects AS x ON x.store_id = ? AND x.path = reached.path`,
			pgdialect.Array(starts), storeID, storeID).Scan(ctx, &edges)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	next := map[string]edge{} // by path: the redirects as the rows before have left them
	for _, e := range edges {
		next[e.Path] = e
	}
	for i, r := range rs {
		if storeurl.IsSelf(r.Path, r.Target) {
			refused[i] = apperr.Invalidf("target %s", storeurl.ToItself)
			continue
		}
		chain := []string{r.Path}
		seen := map[string]bool{}
		for at := storeurl.WithoutFragment(r.Target); ; {
			chain = append(chain, at)
			if at == r.Path {
				refused[i] = apperr.Invalidf("target would close a loop of redirects, which shoppers would follow forever: %s", strings.Join(chain, " → "))
				break
			}
			e, ok := next[at]
			if !ok || seen[at] || (r.ID != 0 && e.ID == r.ID) {
				break
			}
			seen[at] = true
			at = e.Next
		}
		if refused[i] != nil {
			continue
		}
		for p, e := range next {
			if r.ID != 0 && e.ID == r.ID {
				delete(next, p) // its old path
			}
		}
		next[r.Path] = edge{ID: r.ID, Path: r.Path, Next: storeurl.WithoutFragment(r.Target)}
	}
	return refused, nil
}

// DeleteURLRedirects deletes the listed redirects of the store and returns
// the ids it deleted.
func DeleteURLRedirects(ctx context.Context, db bun.IDB, storeID int64, ids []int64) ([]int64, error) {
	return deleteRedirects(ctx, db, storeID, func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("redirect.id IN (?)", bun.List(ids))
	})
}

// DeleteMatchingURLRedirects deletes every redirect of the store the
// filter lists and returns their ids.
func DeleteMatchingURLRedirects(ctx context.Context, db bun.IDB, storeID int64, f URLRedirectFilter) ([]int64, error) {
	return deleteRedirects(ctx, db, storeID, f.apply)
}

func deleteRedirects(ctx context.Context, db bun.IDB, storeID int64, which func(*bun.SelectQuery) *bun.SelectQuery) ([]int64, error) {
	ids := []int64{}
	chosen := db.NewSelect().Model((*URLRedirect)(nil)).Column("redirect.id").Where("redirect.store_id = ?", storeID).Apply(which)
	_, err := db.NewDelete().Model((*URLRedirect)(nil)).Where("store_id = ? AND id IN (?)", storeID, chosen).
		Returning("id").Exec(ctx, &ids)
	slices.Sort(ids)
	return ids, err
}

// RedirectMovedPath keeps the storefront path of a record whose handle
// changed working: a redirect (source automatic) from oldPath to newPath
// replaces any redirect of oldPath, and a redirect from newPath is
// deleted, since the moved record answers newPath now (the redirect would
// be shadowed) and it could lead back to oldPath (a loop). Every update
// that changes a handle calls it in its transaction (products,
// collections, pages and articles), with the paths of
// storefront_path.go, which handles keep in storeurl's spelling.
func RedirectMovedPath(ctx context.Context, db bun.IDB, storeID int64, oldPath, newPath string) error {
	if oldPath == newPath {
		return nil
	}
	if _, err := db.NewDelete().Model((*URLRedirect)(nil)).Where("store_id = ? AND path = ?", storeID, newPath).Exec(ctx); err != nil {
		return err
	}
	r := &URLRedirect{StoreID: storeID, Path: oldPath, Target: newPath, Source: RedirectAutomatic}
	_, err := db.NewInsert().Model(r).
		On("CONFLICT (store_id, path) DO UPDATE").
		Set("target = EXCLUDED.target, source = EXCLUDED.source, updated_at = now()").Exec(ctx)
	return err
}

// URLRedirectOwner is the live record of the store that answers a
// redirect's path itself, so the storefront shows it and never applies the
// redirect.
type URLRedirectOwner struct {
	RedirectID int64 `bun:"redirect_id" json:"-"`
	// Kind is product, collection, page or article.
	Kind   string `bun:"kind" json:"kind"`
	Handle string `bun:"handle" json:"handle"`
	Title  string `bun:"title" json:"title"`
}

// URLRedirectOwners reads, in one statement, the records that answer the
// paths of the listed redirects (query aside: the storefront answers a
// record's path whatever its query): an active product, a published
// collection, a page or an article published by now. Redirects whose path
// no record answers have none.
func URLRedirectOwners(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]URLRedirectOwner, error) {
	var out []URLRedirectOwner
	err := db.NewRaw(`SELECT r.id AS redirect_id, o.kind, o.handle, o.title
		FROM (SELECT id, store_id, split_part(path, ?, 1) AS path FROM url_redirects
			WHERE store_id = ? AND id IN (?)) AS r
		CROSS JOIN LATERAL (
			SELECT 'product' AS kind, p.handle, p.title FROM products AS p
			WHERE r.path LIKE ? AND p.store_id = r.store_id AND p.handle = substr(r.path, ?) AND p.status = ?
			UNION ALL
			SELECT 'collection', c.handle, c.title FROM collections AS c
			WHERE r.path LIKE ? AND c.store_id = r.store_id AND c.handle = substr(r.path, ?) AND c.published
			UNION ALL
			SELECT 'page', pg.handle, pg.title FROM pages AS pg
			WHERE r.path LIKE ? AND pg.store_id = r.store_id AND pg.handle = substr(r.path, ?) AND pg.published_at <= now()
			UNION ALL
			SELECT 'article', a.handle, a.title FROM articles AS a
			WHERE r.path LIKE ? AND a.store_id = r.store_id AND a.handle = substr(r.path, ?) AND a.published_at <= now()
			LIMIT 1) AS o
		ORDER BY r.id`,
		"?", storeID, bun.List(ids),
		PathProducts+"%", len(PathProducts)+1, ProductActive,
		PathCollections+"%", len(PathCollections)+1,
		PathPages+"%", len(PathPages)+1,
		ArticlePath("")+"%", len(ArticlePath(""))+1).Scan(ctx, &out)
	return out, err
}
