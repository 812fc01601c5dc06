package models

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
)

// Review statuses.
const (
	ReviewPending   = "pending"
	ReviewPublished = "published"
	ReviewRejected  = "rejected"
)

// ReviewStatuses lists the statuses a review can have.
var ReviewStatuses = []string{ReviewPending, ReviewPublished, ReviewRejected}

// Review is a shopper's review of a product.
type Review struct {
	bun.BaseModel `bun:"table:reviews"`

	ID        int64         `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64         `bun:"store_id" json:"-"`
	ProductID int64         `bun:"product_id" json:"product_id"`
	OrderID   *int64        `bun:"order_id" json:"order_id"`
	Rating    int64         `bun:"rating" json:"rating"`
	Title     string        `bun:"title" json:"title"`
	Body      string        `bun:"body" json:"body"`
	Author    string        `bun:"author" json:"author"`
	Email     string        `bun:"email" json:"email"`
	Status    string        `bun:"status" json:"status"`
	Featured  bool          `bun:"featured" json:"featured"`
	Verified  bool          `bun:"verified" json:"verified"`
	Source    string        `bun:"source" json:"source"`
	Reply     string        `bun:"reply" json:"reply"`
	RepliedAt *time.Time    `bun:"replied_at" json:"replied_at"`
	Photos    []ReviewPhoto `bun:"photos,type:jsonb" json:"photos"`
	CreatedAt time.Time     `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt time.Time     `bun:"updated_at,nullzero,default:now()" json:"-"`
}

// ReviewPhoto is a picture attached to a review.
type ReviewPhoto struct {
	Src       string  `json:"src"`
	Width     int64   `json:"width"`
	Height    int64   `json:"height"`
	Thumbhash *string `json:"thumbhash,omitempty"`
}

// ReviewFilter narrows a reviews list.
type ReviewFilter struct {
	Status    *string `json:"status"`
	Rating    *int64  `json:"rating"`
	ProductID *int64  `json:"product_id"`
	Featured  *bool   `json:"featured"`
	HasPhotos *bool   `json:"has_photos"`
	Q         *string `json:"q"`
}

// Check refuses a filter the list cannot run.
func (f ReviewFilter) Check() error {
	if f.Status != nil && !slices.Contains(ReviewStatuses, *f.Status) {
		return apperr.Invalidf("status must be one of pending, published, rejected, not %q", *f.Status)
	}
	if f.Rating != nil && (*f.Rating < 1 || *f.Rating > 5) {
		return apperr.Invalidf("rating must be between 1 and 5")
	}
	return nil
}

func (f ReviewFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	q = f.applyButStatus(q)
	if f.Status != nil {
		q = q.Where("review.status = ?", *f.Status)
	}
	return q
}

func (f ReviewFilter) applyButStatus(q *bun.SelectQuery) *bun.SelectQuery {
	if f.Rating != nil {
		q = q.Where("review.rating = ?", *f.Rating)
	}
	if f.ProductID != nil {
		q = q.Where("review.product_id = ?", *f.ProductID)
	}
	if f.Featured != nil {
		q = q.Where("review.featured = ?", *f.Featured)
	}
	if f.HasPhotos != nil {
		q = q.Where("(jsonb_array_length(review.photos) > 0) = ?", *f.HasPhotos)
	}
	if f.Q != nil && strings.TrimSpace(*f.Q) != "" {
		like := containsPattern(*f.Q)
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("lower(review.title) LIKE ?", like).WhereOr("lower(review.body) LIKE ?", like).
				WhereOr("lower(review.author) LIKE ?", like).WhereOr("lower(review.email) LIKE ?", like)
		})
	}
	return q
}

// reviewsNewestFirst is the reviews list's one order.
var reviewsNewestFirst = Sort[Review]{Desc: true, Keys: []SortKey[Review]{
	{SQL: "review.created_at", Of: func(r *Review) any { return r.CreatedAt }},
	{SQL: "review.id", Of: func(r *Review) any { return r.ID }},
}}

// PageReviews lists a store's reviews, newest first, with the cursor of
// the next page.
func PageReviews(ctx context.Context, db bun.IDB, storeID int64, f ReviewFilter, p Paging) (Page[Review], error) {
	scope, err := PageScope("reviews", storeID, f)
	if err != nil {
		return Page[Review]{}, err
	}
	var out []Review
	q := db.NewSelect().Model(&out).Where("review.store_id = ?", storeID).Apply(f.apply)
	return ReadPage(ctx, db, q, &out, reviewsNewestFirst, scope, p)
}

// AllReviews lists every review of the store under the filter, for exports.
func AllReviews(ctx context.Context, db bun.IDB, storeID int64, f ReviewFilter) ([]Review, error) {
	var out []Review
	err := db.NewSelect().Model(&out).Where("review.store_id = ?", storeID).Apply(f.apply).
		OrderExpr("review.created_at DESC, review.id DESC").Scan(ctx)
	return out, err
}

// CountReviews counts what ListReviews would list without paging.
func CountReviews(ctx context.Context, db bun.IDB, storeID int64, f ReviewFilter) (int64, error) {
	return db.NewSelect().Model((*Review)(nil)).Where("review.store_id = ?", storeID).Apply(f.apply).Count(ctx)
}

// ReviewCounts is how many reviews sit in each status.
type ReviewCounts struct {
	All       int64 `bun:"all" json:"all"`
	Pending   int64 `bun:"pending" json:"pending"`
	Published int64 `bun:"published" json:"published"`
	Rejected  int64 `bun:"rejected" json:"rejected"`
}

// CountReviewsByStatus counts reviews per status under every condition of
// the filter but its status, so tabs can show their counts.
func CountReviewsByStatus(ctx context.Context, db bun.IDB, storeID int64, f ReviewFilter) (ReviewCounts, error) {
	var c ReviewCounts
	err := db.NewSelect().Model((*Review)(nil)).
		ColumnExpr("count(*) AS all").
		ColumnExpr("count(*) FILTER (WHERE review.status = 'pending') AS pending").
		ColumnExpr("count(*) FILTER (WHERE review.status = 'published') AS published").
		ColumnExpr("count(*) FILTER (WHERE review.status = 'rejected') AS rejected").
		Where("review.store_id = ?", storeID).Apply(f.applyButStatus).Scan(ctx, &c)
	return c, err
}

// GetReview reads one review of the store.
func GetReview(ctx context.Context, db bun.IDB, storeID, id int64) (*Review, error) {
	r := new(Review)
	err := db.NewSelect().Model(r).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return r, classify(err, "the review")
}

// UpdateReview writes the moderation fields of a review.
func UpdateReview(ctx context.Context, db bun.IDB, r *Review) error {
	res, err := db.NewUpdate().Model(r).Column("status", "featured", "reply", "replied_at").
		Set("updated_at = now()").Where("store_id = ? AND id = ?", r.StoreID, r.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the review")
}

// InsertReviews stores new reviews.
func InsertReviews(ctx context.Context, db bun.IDB, rs []Review) error {
	if len(rs) == 0 {
		return nil
	}
	for i := range rs {
		if rs[i].Photos == nil { // stored as [], never as JSON null
			rs[i].Photos = []ReviewPhoto{}
		}
	}
	_, err := db.NewInsert().Model(&rs).Returning("id").Exec(ctx)
	return classify(err, "a review")
}

// DeleteReviews deletes the listed reviews of the store and returns the
// products they belonged to.
func DeleteReviews(ctx context.Context, db bun.IDB, storeID int64, ids []int64) ([]int64, error) {
	products := []int64{}
	if len(ids) == 0 {
		return products, nil
	}
	err := db.NewDelete().Model((*Review)(nil)).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).
		Returning("product_id").Scan(ctx, &products)
	return products, err
}

// SetReviewsStatus moves the listed reviews to status and returns the
// products of the reviews it changed.
func SetReviewsStatus(ctx context.Context, db bun.IDB, storeID int64, ids []int64, status string) ([]int64, error) {
	products := []int64{}
	if len(ids) == 0 {
		return products, nil
	}
	err := db.NewUpdate().Model((*Review)(nil)).Set("status = ?, updated_at = now()", status).
		Where("store_id = ? AND id IN (?) AND status <> ?", storeID, bun.List(ids), status).
		Returning("product_id").Scan(ctx, &products)
	return products, err
}

// RefreshProductRatings recomputes rating_avg (published reviews' mean,
// rounded half up to whole stars) and rating_count of the products.
func RefreshProductRatings(ctx context.Context, db bun.IDB, storeID int64, productIDs []int64) error {
	if len(productIDs) == 0 {
		return nil
	}
	_, err := db.NewRaw(`
		UPDATE products p SET
		  rating_count = coalesce(s.n, 0),
		  rating_avg = coalesce(s.avg, 0)
		FROM products q
		LEFT JOIN LATERAL (
		  SELECT count(*) AS n, round(avg(rating))::int AS avg
		  FROM reviews r WHERE r.product_id = q.id AND r.status = 'published'
		) s ON true
		WHERE p.id = q.id AND q.store_id = ? AND q.id IN (?)`, storeID, bun.List(productIDs)).Exec(ctx)
	return err
}

// ReviewsByProduct loads the newest published reviews of several products,
// at most limit each, for a dataloader.
func ReviewsByProduct(ctx context.Context, db bun.IDB, storeID int64, productIDs []int64, limit int64, _ Columns) ([]Review, error) {
	var out []Review
	ranked := db.NewSelect().Model((*Review)(nil)).
		ColumnExpr("*, row_number() OVER (PARTITION BY product_id ORDER BY created_at DESC, id DESC) AS rank").
		Where("store_id = ? AND status = 'published' AND product_id IN (?)", storeID, bun.List(productIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).ModelTableExpr("(?) AS review", ranked).
		Where("rank <= ?", limit).Order("product_id", "created_at DESC", "id DESC"), &out)
	return out, err
}

// DeleteMatchingReviews deletes, in one statement, the reviews of the store
// that rs would duplicate (same product, same reviewer email or, without
// one, name, same UTC day) and returns how many of rs replaced at least one.
func DeleteMatchingReviews(ctx context.Context, db bun.IDB, storeID int64, rs []Review) (int64, error) {
	if len(rs) == 0 {
		return 0, nil
	}
	products, emails, authors, days := make([]int64, len(rs)), make([]string, len(rs)), make([]string, len(rs)), make([]time.Time, len(rs))
	for i, r := range rs {
		products[i], emails[i], authors[i] = r.ProductID, strings.ToLower(r.Email), strings.ToLower(r.Author)
		days[i] = r.CreatedAt.UTC().Truncate(24 * time.Hour)
	}
	var matched []int64
	err := db.NewRaw(`
		WITH k AS (
			SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::timestamptz[]) WITH ORDINALITY AS k(product_id, email, author, day, ord)
		), gone AS (
			DELETE FROM reviews r USING k
			WHERE r.store_id = ? AND r.product_id = k.product_id
			  AND r.created_at >= k.day AND r.created_at < k.day + interval '1 day'
			  AND CASE WHEN k.email <> '' THEN lower(r.email) = k.email ELSE r.email = '' AND lower(r.author) = k.author END
			RETURNING k.ord
		)
		SELECT count(DISTINCT ord) FROM gone`,
		pgdialect.Array(products), pgdialect.Array(emails), pgdialect.Array(authors), pgdialect.Array(days), storeID).Scan(ctx, &matched)
	if err != nil || len(matched) == 0 {
		return 0, err
	}
	return matched[0], nil
}
