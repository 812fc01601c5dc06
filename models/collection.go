package models

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
)

// Collection types.
const (
	CollectionManual = "manual"
	CollectionSmart  = "smart"
)

// CollectionSortOrders lists how a collection may order its products.
var CollectionSortOrders = []string{"manual", "alpha-asc", "alpha-desc", "price-asc", "price-desc", "created", "created-desc"}

// memberPrice is a member's lowest variant price, 0 without variants. The
// sort orders spell it out rather than naming the price_cents output
// column: MembersByCollection ranks members in a window function, whose
// ORDER BY cannot see output column names.
const memberPrice = "coalesce((SELECT min(v.price_cents) FROM product_variants v WHERE v.product_id = product.id), 0)"

// memberPlace numbers a collection's members 1, 2, 3 ... in manual order:
// stored positions keep gaps where members left (removed, deleted, or no
// longer matching a smart collection's rules), which the API does not show.
const memberPlace = "row_number() OVER (PARTITION BY cp.collection_id ORDER BY cp.position, product.id) AS position"

// memberOrder maps a sort order to ORDER BY terms over the members query.
var memberOrder = map[string]string{
	"manual":       "cp.position, product.id",
	"alpha-asc":    "lower(product.title), product.id",
	"alpha-desc":   "lower(product.title) DESC, product.id DESC",
	"price-asc":    memberPrice + ", product.id",
	"price-desc":   memberPrice + " DESC, product.id DESC",
	"created":      "product.created_at, product.id",
	"created-desc": "product.created_at DESC, product.id DESC",
}

// Collection groups products: chosen by hand, or matching rules.
type Collection struct {
	bun.BaseModel `bun:"table:collections"`

	ID             int64            `bun:"id,pk,autoincrement" json:"id"`
	StoreID        int64            `bun:"store_id" json:"-"`
	Handle         string           `bun:"handle" json:"handle"`
	Title          string           `bun:"title" json:"title"`
	Description    string           `bun:"description" json:"description"`
	CollectionType string           `bun:"collection_type" json:"collection_type"`
	Disjunctive    bool             `bun:"disjunctive" json:"disjunctive"`
	RuleList       []CollectionRule `bun:"rules,type:jsonb" json:"-"`
	SortOrder      string           `bun:"sort_order" json:"sort_order"`
	Published      bool             `bun:"published" json:"published"`
	ImageSrc       string           `bun:"image_src" json:"image_src"`
	SEO            any              `bun:"seo,type:jsonb" json:"seo"`
	CreatedAt      time.Time        `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt      time.Time        `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// Rules is the rules as the API shows them: a list, empty for manual
// collections.
func (c *Collection) Rules() any {
	if c.RuleList == nil {
		return []CollectionRule{}
	}
	return c.RuleList
}

// CollectionMember is a product as a member of a collection.
type CollectionMember struct {
	CollectionID int64  `bun:"collection_id" json:"-"`
	ID           int64  `bun:"id" json:"id"`
	Title        string `bun:"title" json:"title"`
	Handle       string `bun:"handle" json:"handle"`
	Status       string `bun:"status" json:"status"`
	ImageSrc     string `bun:"image_src" json:"image_src"`
	PriceCents   int64  `bun:"price_cents" json:"price_cents"`
	Position     int64  `bun:"position" json:"position"`
}

// CatalogCollectionOption is a collection as a picker shows it.
type CatalogCollectionOption struct {
	ID        int64  `bun:"id" json:"id"`
	Title     string `bun:"title" json:"title"`
	Handle    string `bun:"handle" json:"handle"`
	Published bool   `bun:"published" json:"published"`
	ImageSrc  string `bun:"image_src" json:"image_src"`
}

// CollectionFilter narrows a collections list; Sort orders it.
type CollectionFilter struct {
	CollectionType *string `json:"collection_type"`
	Published      *bool   `json:"published"`
	Q              *string `json:"q"`
	Sort           *string `json:"sort"`
}

var collectionSorts = map[string]string{
	"title":       "lower(collection.title), collection.id",
	"-title":      "lower(collection.title) DESC, collection.id DESC",
	"created_at":  "collection.created_at, collection.id",
	"-created_at": "collection.created_at DESC, collection.id DESC",
	"updated_at":  "collection.updated_at, collection.id",
	"-updated_at": "collection.updated_at DESC, collection.id DESC",
}

// Check refuses a filter the list cannot run.
func (f CollectionFilter) Check() error {
	if f.CollectionType != nil && *f.CollectionType != CollectionManual && *f.CollectionType != CollectionSmart {
		return apperr.Invalidf("collection_type must be manual or smart, not %q", *f.CollectionType)
	}
	if f.Sort != nil {
		if _, ok := collectionSorts[*f.Sort]; !ok {
			return apperr.Invalidf("sort must be one of title, -title, created_at, -created_at, updated_at, -updated_at, not %q", *f.Sort)
		}
	}
	return nil
}

func (f CollectionFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f.CollectionType != nil {
		q = q.Where("collection.collection_type = ?", *f.CollectionType)
	}
	if f.Published != nil {
		q = q.Where("collection.published = ?", *f.Published)
	}
	if f.Q != nil && strings.TrimSpace(*f.Q) != "" {
		like := containsPattern(*f.Q)
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("lower(collection.title) LIKE ?", like).WhereOr("collection.handle LIKE ?", like)
		})
	}
	return q
}

// ListCollections lists a store's collections.
func ListCollections(ctx context.Context, db bun.IDB, storeID int64, f CollectionFilter, p Paging) ([]Collection, error) {
	var out []Collection
	order := collectionSorts["-updated_at"]
	if f.Sort != nil {
		order = collectionSorts[*f.Sort]
	}
	q := db.NewSelect().Model(&out).Where("collection.store_id = ?", storeID).Apply(f.apply).OrderExpr(order)
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountCollections counts what ListCollections would list without paging.
func CountCollections(ctx context.Context, db bun.IDB, storeID int64, f CollectionFilter) (int64, error) {
	return db.NewSelect().Model((*Collection)(nil)).Where("collection.store_id = ?", storeID).Apply(f.apply).Count(ctx)
}

// GetCollection reads one collection of the store.
func GetCollection(ctx context.Context, db bun.IDB, storeID, id int64) (*Collection, error) {
	c := new(Collection)
	err := db.NewSelect().Model(c).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return c, classify(err, "the collection")
}

// CollectionsByID loads collections of the store by id, for a dataloader.
func CollectionsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]Collection, error) {
	out := make([]Collection, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)), &out)
	return out, err
}

// CollectionHandleTaken reports whether another collection than exceptID
// has the handle.
func CollectionHandleTaken(ctx context.Context, db bun.IDB, storeID int64, handle string, exceptID int64) (bool, error) {
	return db.NewSelect().Model((*Collection)(nil)).
		Where("store_id = ? AND handle = ? AND id <> ?", storeID, handle, exceptID).Exists(ctx)
}

// InsertCollection stores a new collection row.
func InsertCollection(ctx context.Context, db bun.IDB, c *Collection) error {
	_, err := db.NewInsert().Model(c).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "a collection with this handle")
}

// UpdateCollection writes the collection row and bumps updated_at. A
// changed handle leaves a redirect from the old storefront path to the new
// (RedirectMovedPath).
func UpdateCollection(ctx context.Context, db bun.IDB, c *Collection) error {
	var oldHandle string
	// Locked until the transaction ends, so the handle read is the one
	// this update replaces.
	err := db.NewSelect().Model((*Collection)(nil)).Column("handle").
		Where("store_id = ? AND id = ?", c.StoreID, c.ID).For("UPDATE").Scan(ctx, &oldHandle)
	if err != nil {
		return classify(err, "the collection")
	}
	res, err := db.NewUpdate().Model(c).
		Column("handle", "title", "description", "disjunctive", "rules", "sort_order", "published", "image_src", "seo").
		Set("updated_at = now()").Where("store_id = ? AND id = ?", c.StoreID, c.ID).Exec(ctx)
	if err := notFoundIfNone(res, err, "the collection"); err != nil {
		if apperr.CodeOf(err) == apperr.Conflict {
			return apperr.Conflictf("another collection already has the handle %q", c.Handle)
		}
		return err
	}
	if err := RedirectMovedPath(ctx, db, c.StoreID, CollectionPath(oldHandle), CollectionPath(c.Handle)); err != nil {
		return err
	}
	return db.NewSelect().Model(c).Column("updated_at").Where("id = ?", c.ID).Scan(ctx)
}

// DeleteCollections deletes the listed collections of the store and
// returns the ids it deleted.
func DeleteCollections(ctx context.Context, db bun.IDB, storeID int64, ids []int64) ([]int64, error) {
	deleted := []int64{}
	if len(ids) == 0 {
		return deleted, nil
	}
	err := db.NewDelete().Model((*Collection)(nil)).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).
		Returning("id").Scan(ctx, &deleted)
	return deleted, err
}

// ListCollectionOptions lists collections for pickers, by title.
func ListCollectionOptions(ctx context.Context, db bun.IDB, storeID int64, search *string, p Paging) ([]CatalogCollectionOption, error) {
	var out []CatalogCollectionOption
	q := db.NewSelect().Model((*Collection)(nil)).Column("id", "title", "handle", "published", "image_src").
		Where("collection.store_id = ?", storeID).Apply(CollectionFilter{Q: search}.apply).OrderExpr("lower(collection.title), collection.id")
	return out, p.Apply(q).Scan(ctx, &out)
}

// CountCollectionOptions counts what ListCollectionOptions would list.
func CountCollectionOptions(ctx context.Context, db bun.IDB, storeID int64, search *string) (int64, error) {
	return CountCollections(ctx, db, storeID, CollectionFilter{Q: search})
}

// membersQuery selects products as collection members: the view every
// member list shares.
func membersQuery(db bun.IDB) *bun.SelectQuery {
	return db.NewSelect().TableExpr("products AS product").
		ColumnExpr("product.id, product.title, product.handle, product.status").
		ColumnExpr("coalesce((SELECT i.src FROM product_images i WHERE i.product_id = product.id ORDER BY i.position LIMIT 1), '') AS image_src").
		ColumnExpr(memberPrice + " AS price_cents")
}

// ListCollectionMembers lists a collection's products in its sort order.
func ListCollectionMembers(ctx context.Context, db bun.IDB, c *Collection, p Paging) ([]CollectionMember, error) {
	out := []CollectionMember{}
	q := membersQuery(db).Join("JOIN collection_products AS cp ON cp.product_id = product.id").
		ColumnExpr("cp.collection_id").ColumnExpr(memberPlace).
		Where("cp.store_id = ? AND cp.collection_id = ?", c.StoreID, c.ID).OrderExpr(memberOrder[c.SortOrder])
	return out, p.Apply(q).Scan(ctx, &out)
}

// CountCollectionMembers counts a collection's products.
func CountCollectionMembers(ctx context.Context, db bun.IDB, storeID, collectionID int64) (int64, error) {
	return db.NewSelect().TableExpr("collection_products").Where("store_id = ? AND collection_id = ?", storeID, collectionID).Count(ctx)
}

// MembersByCollection loads the first offset+limit members of several
// collections, each in its own sort order, in one statement, for a
// dataloader; the caller drops the first offset of each.
func MembersByCollection(ctx context.Context, db bun.IDB, storeID int64, ids []int64, upto int64, _ Columns) ([]CollectionMember, error) {
	out := []CollectionMember{}
	ranks := make([]string, 0, len(memberOrder))
	for name, order := range memberOrder {
		ranks = append(ranks, "WHEN '"+name+"' THEN row_number() OVER (PARTITION BY cp.collection_id ORDER BY "+order+")")
	}
	inner := membersQuery(db).Join("JOIN collection_products AS cp ON cp.product_id = product.id").
		Join("JOIN collections AS c ON c.id = cp.collection_id").
		ColumnExpr("cp.collection_id").ColumnExpr(memberPlace).
		ColumnExpr("CASE c.sort_order "+strings.Join(ranks, " ")+" END AS rank").
		Where("cp.store_id = ? AND cp.collection_id IN (?)", storeID, bun.List(ids))
	err := db.NewSelect().TableExpr("(?) AS m", inner).
		ColumnExpr("m.collection_id, m.id, m.title, m.handle, m.status, m.image_src, m.price_cents, m.position").
		Where("m.rank <= ?", upto).OrderExpr("m.collection_id, m.rank").Scan(ctx, &out)
	return out, err
}

// CollectionCount is how many products one collection holds.
type CollectionCount struct {
	CollectionID int64 `bun:"collection_id"`
	Count        int64 `bun:"count"`
}

// MemberCountsByCollection counts the members of several collections, for
// a dataloader.
func MemberCountsByCollection(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]CollectionCount, error) {
	out := make([]CollectionCount, 0, len(ids)) // at most one row per id
	err := db.NewSelect().TableExpr("collection_products").ColumnExpr("collection_id, count(*) AS count").
		Where("store_id = ? AND collection_id IN (?)", storeID, bun.List(ids)).Group("collection_id").Scan(ctx, &out)
	return out, err
}

// Membership is one product in one collection.
type Membership struct {
	CollectionID int64 `bun:"collection_id"`
	ProductID    int64 `bun:"product_id"`
}

// MembershipsByProduct loads the collection memberships of several
// products, for a dataloader.
func MembershipsByProduct(ctx context.Context, db bun.IDB, storeID int64, productIDs []int64, _ Columns) ([]Membership, error) {
	out := manyRows[Membership](len(productIDs))
	err := db.NewSelect().TableExpr("collection_products").Column("collection_id", "product_id").
		Where("store_id = ? AND product_id IN (?)", storeID, bun.List(productIDs)).Order("product_id", "collection_id").Scan(ctx, &out)
	return out, err
}

// AddCollectionProducts appends products to a manual collection, skipping
// those already in it; it returns how many it added.
func AddCollectionProducts(ctx context.Context, db bun.IDB, storeID, collectionID int64, productIDs []int64) (int64, error) {
	if len(productIDs) == 0 {
		return 0, nil
	}
	res, err := db.NewRaw(`
		INSERT INTO collection_products (collection_id, product_id, store_id, position)
		SELECT ?, p.id, p.store_id,
		       (SELECT coalesce(max(position), 0) FROM collection_products WHERE collection_id = ?) + k.ord
		FROM unnest(?::bigint[]) WITH ORDINALITY AS k(id, ord)
		JOIN products p ON p.id = k.id AND p.store_id = ?
		ON CONFLICT (collection_id, product_id) DO NOTHING`,
		collectionID, collectionID, pgdialect.Array(productIDs), storeID).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// RemoveCollectionProduct takes a product out of a collection.
func RemoveCollectionProduct(ctx context.Context, db bun.IDB, storeID, collectionID, productID int64) error {
	res, err := db.NewDelete().TableExpr("collection_products").
		Where("store_id = ? AND collection_id = ? AND product_id = ?", storeID, collectionID, productID).Exec(ctx)
	return notFoundIfNone(res, err, "the product in this collection")
}

// CollectionMemberIDs lists a collection's product ids in manual order.
func CollectionMemberIDs(ctx context.Context, db bun.IDB, storeID, collectionID int64) ([]int64, error) {
	ids := []int64{}
	err := db.NewSelect().TableExpr("collection_products").Column("product_id").
		Where("store_id = ? AND collection_id = ?", storeID, collectionID).Order("position", "product_id").Scan(ctx, &ids)
	return ids, err
}

// SetCollectionOrder renumbers a collection's members in the given order.
func SetCollectionOrder(ctx context.Context, db bun.IDB, storeID, collectionID int64, productIDs []int64) error {
	_, err := db.NewRaw(`
		UPDATE collection_products cp SET position = k.ord
		FROM unnest(?::bigint[]) WITH ORDINALITY AS k(id, ord)
		WHERE cp.store_id = ? AND cp.collection_id = ? AND cp.product_id = k.id`,
		pgdialect.Array(productIDs), storeID, collectionID).Exec(ctx)
	return err
}

// PreviewRules lists the products the rules match, in the sort order, with
// how many match in all.
func PreviewRules(ctx context.Context, db bun.IDB, storeID int64, rules []CollectionRule, disjunctive bool, sortOrder string, p Paging) ([]CollectionMember, int64, error) {
	pred, args := rulesPredicate(rules, disjunctive)
	out := []CollectionMember{}
	order := memberOrder[sortOrder]
	if sortOrder == "manual" {
		order = "product.id"
	}
	q := membersQuery(db).Where("product.store_id = ?", storeID).Where(pred, args...).OrderExpr(order)
	if err := p.Apply(q).Scan(ctx, &out); err != nil {
		return nil, 0, err
	}
	for i := range out {
		out[i].Position = p.Offset + int64(i) + 1
	}
	n, err := db.NewSelect().TableExpr("products AS product").Where("product.store_id = ?", storeID).Where(pred, args...).Count(ctx)
	return out, n, err
}

// RefreshSmartCollections recomputes smart-collection membership: of the
// given collections (all smart collections of the store when nil), for the
// given products (all products when nil). Products that stop matching
// leave; products that start matching join at the end, in id order.
func RefreshSmartCollections(ctx context.Context, db bun.IDB, storeID int64, collectionIDs, productIDs []int64) error {
	var smart []Collection
	q := db.NewSelect().Model(&smart).Column("id", "rules", "disjunctive").
		Where("store_id = ? AND collection_type = ?", storeID, CollectionSmart)
	if collectionIDs != nil {
		q = q.Where("id IN (?)", bun.List(append(collectionIDs, 0)))
	}
	if err := q.Scan(ctx); err != nil {
		return err
	}
	scope, scopeArgs := "true", []any(nil)
	if productIDs != nil {
		scope, scopeArgs = "product.id IN (?)", []any{bun.List(append(productIDs, 0))}
	}
	for _, c := range smart {
		pred, args := rulesPredicate(c.RuleList, c.Disjunctive)
		leave := append(append([]any{storeID, c.ID}, scopeArgs...), args...)
		if _, err := db.NewRaw(`
			DELETE FROM collection_products cp USING products product
			WHERE cp.store_id = ? AND cp.collection_id = ? AND product.id = cp.product_id
			  AND `+scope+` AND NOT `+pred, leave...).Exec(ctx); err != nil {
			return err
		}
		join := append(append([]any{c.ID, c.ID, storeID}, scopeArgs...), args...)
		if _, err := db.NewRaw(`
			INSERT INTO collection_products (collection_id, product_id, store_id, position)
			SELECT ?, product.id, product.store_id,
			       (SELECT coalesce(max(position), 0) FROM collection_products WHERE collection_id = ?)
			         + row_number() OVER (ORDER BY product.id)
			FROM products product
			WHERE product.store_id = ? AND `+scope+` AND `+pred+`
			ON CONFLICT (collection_id, product_id) DO NOTHING`, join...).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// ProductCollection is a collection that holds a product.
type ProductCollection struct {
	Collection `bun:",extend"`
	ProductID  int64 `bun:"product_id"`
}

// CollectionsByProduct loads the collections of several products, for a
// dataloader.
func CollectionsByProduct(ctx context.Context, db bun.IDB, storeID int64, productIDs []int64, _ Columns) ([]ProductCollection, error) {
	return linkedTo[ProductCollection](ctx, db, storeID, link{"collection_products", "collection_id", "product_id"}, productIDs)
}
