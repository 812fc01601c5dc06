package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Discount classes, types and value types.
const (
	DiscountCode      = "code"
	DiscountAutomatic = "automatic"

	DiscountPercentage   = "percentage"
	DiscountFixedAmount  = "fixed_amount"
	DiscountFreeShipping = "free_shipping"
	DiscountBuyXGetY     = "buy_x_get_y"

	AppliesToAll         = "all"
	AppliesToProducts    = "products"
	AppliesToCollections = "collections"
)

// Discount is a code or automatic discount. Its targets are id lists on the
// row: which products and collections it applies to, and for buy X get Y,
// which ones are bought and which ones get the discount.
type Discount struct {
	bun.BaseModel `bun:"table:discounts,alias:d"`

	ID                   int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID              int64      `bun:"store_id" json:"-"`
	Class                string     `bun:"class" json:"class"`
	Code                 string     `bun:"code" json:"code"`
	Type                 string     `bun:"type" json:"type"`
	Value                int64      `bun:"value" json:"value"`
	ValueType            string     `bun:"value_type" json:"value_type"`
	AppliesTo            string     `bun:"applies_to" json:"applies_to"`
	MinimumSubtotalCents int64      `bun:"minimum_subtotal_cents" json:"minimum_subtotal_cents"`
	StartsAt             *time.Time `bun:"starts_at" json:"starts_at"`
	EndsAt               *time.Time `bun:"ends_at" json:"ends_at"`
	Enabled              bool       `bun:"enabled" json:"enabled"`
	UsageLimit           *int64     `bun:"usage_limit" json:"usage_limit"`
	UsedCount            int64      `bun:"used_count" json:"used_count"`
	OncePerCustomer      bool       `bun:"once_per_customer" json:"once_per_customer"`
	PerCustomerLimit     *int64     `bun:"per_customer_limit" json:"per_customer_limit"`
	BuyQuantity          int64      `bun:"buy_quantity" json:"buy_quantity"`
	GetQuantity          int64      `bun:"get_quantity" json:"get_quantity"`
	GetValue             int64      `bun:"get_value" json:"get_value"`
	GetValueType         string     `bun:"get_value_type" json:"get_value_type"`
	ProductIDs           []int64    `bun:"product_ids,array" json:"product_ids"`
	CollectionIDs        []int64    `bun:"collection_ids,array" json:"collection_ids"`
	BuyProductIDs        []int64    `bun:"buy_product_ids,array" json:"buy_product_ids"`
	BuyCollectionIDs     []int64    `bun:"buy_collection_ids,array" json:"buy_collection_ids"`
	GetProductIDs        []int64    `bun:"get_product_ids,array" json:"get_product_ids"`
	GetCollectionIDs     []int64    `bun:"get_collection_ids,array" json:"get_collection_ids"`
	CreatedAt            time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt            time.Time  `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// DiscountFilter narrows a discounts list.
type DiscountFilter struct {
	Class   *string `json:"class"`
	Type    *string `json:"type"`
	Enabled *bool   `json:"enabled"`
	Q       *string `json:"q"`
}

// DiscountClasses, DiscountTypes, DiscountValueTypes and DiscountAppliesTo
// are the values each field may take.
var (
	DiscountClasses    = []string{DiscountCode, DiscountAutomatic}
	DiscountTypes      = []string{DiscountPercentage, DiscountFixedAmount, DiscountFreeShipping, DiscountBuyXGetY}
	DiscountValueTypes = []string{DiscountPercentage, DiscountFixedAmount}
	DiscountAppliesTo  = []string{AppliesToAll, AppliesToProducts, AppliesToCollections}
)

// Check refuses a filter the list cannot run.
func (f DiscountFilter) Check() error {
	if f.Class != nil && !slices.Contains(DiscountClasses, *f.Class) {
		return apperr.Invalidf("class must be one of %s, not %q", strings.Join(DiscountClasses, ", "), *f.Class)
	}
	if f.Type != nil && !slices.Contains(DiscountTypes, *f.Type) {
		return apperr.Invalidf("type must be one of %s, not %q", strings.Join(DiscountTypes, ", "), *f.Type)
	}
	return nil
}

func (f DiscountFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f.Class != nil {
		q = q.Where("d.class = ?", *f.Class)
	}
	if f.Type != nil {
		q = q.Where("d.type = ?", *f.Type)
	}
	if f.Enabled != nil {
		q = q.Where("d.enabled = ?", *f.Enabled)
	}
	if f.Q != nil && strings.TrimSpace(*f.Q) != "" {
		q = q.Where("lower(d.code) LIKE ?", containsPattern(*f.Q))
	}
	return q
}

// ActiveAt reports whether the discount can apply at now: enabled, and
// within its window (starts_at inclusive, ends_at exclusive). Usage limits
// are not part of it: RedeemDiscount enforces them.
func (d *Discount) ActiveAt(now time.Time) bool {
	return d.Enabled && (d.StartsAt == nil || !now.Before(*d.StartsAt)) && (d.EndsAt == nil || now.Before(*d.EndsAt))
}

// label names the discount in messages: "discount code SUMMER25", or for
// an automatic discount its title.
func (d *Discount) label() string {
	if d.Class == DiscountAutomatic {
		return fmt.Sprintf("automatic discount %q", d.Code)
	}
	return "discount code " + d.Code
}

// fillIDs turns nil id lists into empty ones: the columns are NOT NULL and
// the GraphQL lists non-null.
func (d *Discount) fillIDs() {
	for _, ids := range []*[]int64{&d.ProductIDs, &d.CollectionIDs, &d.BuyProductIDs, &d.BuyCollectionIDs, &d.GetProductIDs, &d.GetCollectionIDs} {
		if *ids == nil {
			*ids = []int64{}
		}
	}
}

func fillDiscountIDs(ds []Discount) {
	for i := range ds {
		ds[i].fillIDs()
	}
}

// discountCodeConflict is the 409 of a code the store already has, in any
// case.
func discountCodeConflict(code string) error {
	return apperr.Conflictf("a discount with code %s already exists", code)
}

// classifyDiscount classifies a write's error; a unique violation is the
// code index.
func classifyDiscount(err error, code string) error {
	if err = classify(err, "the discount"); apperr.CodeOf(err) == apperr.Conflict {
		return discountCodeConflict(code)
	}
	return err
}

// ListDiscounts lists a store's discounts under f, newest first.
func ListDiscounts(ctx context.Context, db bun.IDB, storeID int64, f DiscountFilter, p Paging) ([]Discount, error) {
	var out []Discount
	q := db.NewSelect().Model(&out).Where("d.store_id = ?", storeID).Apply(f.apply).
		OrderExpr("d.created_at DESC, d.id DESC")
	err := p.Apply(q).Scan(ctx)
	fillDiscountIDs(out)
	return out, err
}

// CountDiscounts counts what ListDiscounts would list without paging.
func CountDiscounts(ctx context.Context, db bun.IDB, storeID int64, f DiscountFilter) (int64, error) {
	return db.NewSelect().Model((*Discount)(nil)).Where("d.store_id = ?", storeID).Apply(f.apply).Count(ctx)
}

// GetDiscount reads one discount of the store.
func GetDiscount(ctx context.Context, db bun.IDB, storeID, id int64) (*Discount, error) {
	d := new(Discount)
	err := db.NewSelect().Model(d).Where("d.store_id = ? AND d.id = ?", storeID, id).Scan(ctx)
	d.fillIDs()
	return d, classify(err, "the discount")
}

// LockDiscount reads one discount of the store and locks its row until tx
// ends, so that an update merges onto what no one else is changing.
func LockDiscount(ctx context.Context, tx bun.IDB, storeID, id int64) (*Discount, error) {
	d := new(Discount)
	err := tx.NewSelect().Model(d).Where("d.store_id = ? AND d.id = ?", storeID, id).For("UPDATE").Scan(ctx)
	d.fillIDs()
	return d, classify(err, "the discount")
}

// DiscountsByID loads discounts of the store by id, for a dataloader.
func DiscountsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]Discount, error) {
	out := make([]Discount, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Where("d.store_id = ? AND d.id IN (?)", storeID, bun.List(ids)), &out)
	fillDiscountIDs(out)
	return out, err
}

// DiscountCodeTaken reports whether another discount of the store than
// exceptID has code, in any case.
func DiscountCodeTaken(ctx context.Context, db bun.IDB, storeID int64, code string, exceptID int64) (bool, error) {
	return db.NewSelect().Model((*Discount)(nil)).
		Where("d.store_id = ? AND lower(d.code) = lower(?) AND d.id <> ?", storeID, code, exceptID).Exists(ctx)
}

// DiscountByCode reads the discount of the store with code, in any case.
// Automatic discounts are found by their title too; callers that take codes
// only check Class.
func DiscountByCode(ctx context.Context, db bun.IDB, storeID int64, code string) (*Discount, error) {
	d := new(Discount)
	err := db.NewSelect().Model(d).Where("d.store_id = ? AND lower(d.code) = lower(?)", storeID, code).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.NotFoundf("no discount has code %s", code)
	}
	if err != nil {
		return nil, err
	}
	d.fillIDs()
	return d, nil
}

// AutomaticDiscounts lists the store's automatic discounts active at now,
// oldest first (a stable order for the pricing engine).
func AutomaticDiscounts(ctx context.Context, db bun.IDB, storeID int64, now time.Time) ([]Discount, error) {
	out := []Discount{}
	err := db.NewSelect().Model(&out).
		Where("d.store_id = ? AND d.class = ? AND d.enabled", storeID, DiscountAutomatic).
		Where("(d.starts_at IS NULL OR d.starts_at <= ?) AND (d.ends_at IS NULL OR d.ends_at > ?)", now, now).
		OrderExpr("d.created_at, d.id").Scan(ctx)
	fillDiscountIDs(out)
	return out, err
}

// discountColumns are the columns a create or an update writes; used_count
// is not among them: only RedeemDiscount moves it.
var discountColumns = []string{
	"class", "code", "type", "value", "value_type", "applies_to", "minimum_subtotal_cents", "starts_at", "ends_at",
	"enabled", "usage_limit", "once_per_customer", "per_customer_limit", "buy_quantity", "get_quantity", "get_value",
	"get_value_type", "product_ids", "collection_ids", "buy_product_ids", "buy_collection_ids", "get_product_ids",
	"get_collection_ids",
}

// InsertDiscount stores a new discount; a code the store has in any case
// is a 409.
func InsertDiscount(ctx context.Context, db bun.IDB, d *Discount) error {
	d.fillIDs()
	cols := append([]string{"store_id", "used_count"}, discountColumns...)
	if !d.CreatedAt.IsZero() {
		cols = append(cols, "created_at", "updated_at")
	}
	_, err := db.NewInsert().Model(d).Column(cols...).Returning("id, created_at, updated_at").Exec(ctx)
	return classifyDiscount(err, d.Code)
}

// UpdateDiscount writes the discount's fields (never used_count) and bumps
// updated_at; d comes back as stored.
func UpdateDiscount(ctx context.Context, db bun.IDB, d *Discount) error {
	d.fillIDs()
	res, err := db.NewUpdate().Model(d).Column(discountColumns...).Set("updated_at = now()").
		Where("d.store_id = ? AND d.id = ?", d.StoreID, d.ID).Exec(ctx)
	if err := notFoundIfNone(res, err, "the discount"); err != nil {
		return classifyDiscount(err, d.Code)
	}
	err = db.NewSelect().Model(d).Where("d.id = ?", d.ID).Scan(ctx)
	d.fillIDs()
	return err
}

// DeleteDiscount removes a discount with its redemptions; orders keep the
// code they were placed with.
func DeleteDiscount(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*Discount)(nil)).Where("d.store_id = ? AND d.id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the discount")
}

// DiscountRedemption is one use of a discount: by an order, by an email.
type DiscountRedemption struct {
	bun.BaseModel `bun:"table:discount_redemptions,alias:dr"`

	ID         int64     `bun:"id,pk,autoincrement" json:"id"`
	DiscountID int64     `bun:"discount_id" json:"discount_id"`
	StoreID    int64     `bun:"store_id" json:"-"`
	OrderID    *int64    `bun:"order_id" json:"order_id"`
	Email      string    `bun:"email" json:"email"`
	CreatedAt  time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
}

// RedeemDiscount takes one use of a discount for an order, in the caller's
// transaction tx (the one that places the order), which must roll back if
// it fails.
//
// One UPDATE takes the use: it adds 1 to used_count only while the discount
// is enabled, within its window at now and under its usage_limit, so
// concurrent redemptions can never take more uses than the limit, and it
// locks the row until tx ends, which serialises the per-customer checks
// that follow: the redemptions of email (in any case) are counted against
// once_per_customer and per_customer_limit, and the redemption row is
// added. A per-customer refusal gives the use back before it returns, so
// used_count stays exact even for a caller that goes on with tx.
//
// Failures are conflicts saying why: not active now, usage limit reached,
// already used by this customer; a discount not of the store is not found.
// tx runs at PostgreSQL's default READ COMMITTED, where a blocked UPDATE
// re-reads the row it waited for (stricter levels answer concurrent
// redemptions with serialization failures instead). orderID 0 records a
// redemption without an order.
func RedeemDiscount(ctx context.Context, tx bun.IDB, storeID, discountID int64, email string, orderID int64, now time.Time) error {
	email = strings.TrimSpace(email)
	d := new(Discount)
	err := tx.NewRaw(`UPDATE discounts AS d SET used_count = d.used_count + 1
		WHERE d.id = ? AND d.store_id = ? AND (d.usage_limit IS NULL OR d.used_count < d.usage_limit) AND d.enabled
		  AND (d.starts_at IS NULL OR d.starts_at <= ?) AND (d.ends_at IS NULL OR d.ends_at > ?)
		RETURNING d.*`, discountID, storeID, now, now).Scan(ctx, d)
	if errors.Is(err, sql.ErrNoRows) {
		return whyNotRedeemed(ctx, tx, storeID, discountID, now)
	}
	if err != nil {
		return err
	}
	if err := checkPerCustomer(ctx, tx, d, email); err != nil {
		if apperr.CodeOf(err) != apperr.Internal { // a refusal: give the use back
			if _, undo := tx.NewRaw("UPDATE discounts SET used_count = used_count - 1 WHERE id = ?", d.ID).Exec(ctx); undo != nil {
				return undo
			}
		}
		return err
	}
	r := &DiscountRedemption{DiscountID: d.ID, StoreID: storeID, Email: email, CreatedAt: now}
	if orderID != 0 {
		r.OrderID = &orderID
	}
	_, err = tx.NewInsert().Model(r).Returning("id").Exec(ctx)
	return classify(err, "the redemption")
}

// checkPerCustomer counts email's redemptions of d (whose row the caller
// holds locked) against its per-customer limits: nil when one more is
// allowed, otherwise the refusal to answer (or a database error).
func checkPerCustomer(ctx context.Context, tx bun.IDB, d *Discount, email string) error {
	if !d.OncePerCustomer && d.PerCustomerLimit == nil {
		return nil
	}
	if email == "" {
		return apperr.Invalidf("%s is limited per customer: the order needs the customer's email", d.label())
	}
	used, err := tx.NewSelect().Model((*DiscountRedemption)(nil)).
		Where("dr.discount_id = ? AND lower(dr.email) = lower(?)", d.ID, email).Count(ctx)
	switch {
	case err != nil:
		return err
	case d.OncePerCustomer && used >= 1:
		return apperr.Conflictf("%s has already been used by %s", d.label(), email)
	case d.PerCustomerLimit != nil && int64(used) >= *d.PerCustomerLimit:
		return apperr.Conflictf("%s has already been used %d times by %s, its limit per customer", d.label(), used, email)
	}
	return nil
}

// whyNotRedeemed explains a redemption the UPDATE refused.
func whyNotRedeemed(ctx context.Context, tx bun.IDB, storeID, discountID int64, now time.Time) error {
	d, err := GetDiscount(ctx, tx, storeID, discountID)
	if err != nil {
		return err
	}
	if !d.ActiveAt(now) {
		return apperr.Conflictf("%s is not active now", d.label())
	}
	if d.UsageLimit != nil && d.UsedCount >= *d.UsageLimit {
		return apperr.Conflictf("%s has reached its usage limit of %d", d.label(), *d.UsageLimit)
	}
	// The row changed between the two statements; let the caller retry.
	return apperr.Conflictf("%s could not be redeemed; try again", d.label())
}
