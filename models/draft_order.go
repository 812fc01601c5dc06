package models

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Draft order statuses: open while edited, invoice_sent once invoiced,
// completed once paid (final: it is an order now).
const (
	DraftOpen        = "open"
	DraftInvoiceSent = "invoice_sent"
	DraftCompleted   = "completed"
)

// DraftOrder is an order the merchant builds; its money fields are the
// pricing engine's, recomputed on every change.
type DraftOrder struct {
	bun.BaseModel `bun:"table:draft_orders,alias:dro"`

	ID               int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID          int64      `bun:"store_id" json:"-"`
	Number           int64      `bun:"number" json:"-"`
	Name             string     `bun:"name" json:"name"`
	Status           string     `bun:"status" json:"status"`
	Email            string     `bun:"email" json:"email"`
	Currency         string     `bun:"currency" json:"currency"`
	Note             string     `bun:"note" json:"note"`
	Tags             []string   `bun:"tags,array" json:"tags"`
	Token            string     `bun:"token" json:"token"`
	BillingAddress   any        `bun:"billing_address,type:jsonb" json:"billing_address"`
	ShippingAddress  any        `bun:"shipping_address,type:jsonb" json:"shipping_address"`
	RequiresShipping bool       `bun:"requires_shipping" json:"requires_shipping"`
	ShippingRateID   int64      `bun:"shipping_rate_id" json:"shipping_rate_id"`
	ShippingTitle    string     `bun:"shipping_title" json:"shipping_title"`
	ShippingCents    int64      `bun:"shipping_cents" json:"shipping_cents"`
	SubtotalCents    int64      `bun:"subtotal_cents" json:"subtotal_cents"`
	DiscountCents    int64      `bun:"discount_cents" json:"discount_cents"`
	TaxCents         int64      `bun:"tax_cents" json:"tax_cents"`
	TotalCents       int64      `bun:"total_cents" json:"total_cents"`
	DiscountCode     string     `bun:"discount_code" json:"discount_code"`
	DiscountID       *int64     `bun:"discount_id" json:"-"`
	WeightGrams      int64      `bun:"weight_grams" json:"weight_grams"`
	InvoiceSentAt    *time.Time `bun:"invoice_sent_at" json:"invoice_sent_at"`
	OrderID          *int64     `bun:"order_id" json:"order_id"`
	CompletedAt      *time.Time `bun:"completed_at" json:"completed_at"`
	CreatedAt        time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt        time.Time  `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// DraftOrderLine is one line of a draft: a catalogue variant or a custom
// line.
type DraftOrderLine struct {
	bun.BaseModel `bun:"table:draft_order_lines,alias:drl"`

	ID               int64  `bun:"id,pk,autoincrement" json:"id"`
	StoreID          int64  `bun:"store_id" json:"-"`
	DraftOrderID     int64  `bun:"draft_order_id" json:"-"`
	Position         int64  `bun:"position" json:"-"`
	Custom           bool   `bun:"custom" json:"custom"`
	VariantID        *int64 `bun:"variant_id" json:"variant_id"`
	ProductID        *int64 `bun:"product_id" json:"product_id"`
	Title            string `bun:"title" json:"title"`
	VariantTitle     string `bun:"variant_title" json:"variant_title"`
	SKU              string `bun:"sku" json:"sku"`
	PriceCents       int64  `bun:"price_cents" json:"price_cents"`
	Quantity         int64  `bun:"quantity" json:"quantity"`
	LineTotalCents   int64  `bun:"line_total_cents" json:"line_total_cents"`
	DiscountCents    int64  `bun:"discount_cents" json:"discount_cents"`
	RequiresShipping bool   `bun:"requires_shipping" json:"requires_shipping"`
	Taxable          bool   `bun:"taxable" json:"taxable"`
	WeightGrams      int64  `bun:"weight_grams" json:"weight_grams"`
	// Properties are the line's properties; a customised line keeps its
	// selections under CzPropertyKey. Nil for none.
	Properties map[string]any `bun:"properties,type:jsonb" json:"properties"`
}

// DraftOrderFilter narrows a draft orders list.
type DraftOrderFilter struct {
	Status *string `json:"status"`
	Q      *string `json:"q"`
}

// Check refuses values the filter cannot mean.
func (f DraftOrderFilter) Check() error {
	if f.Status != nil && !slices.Contains([]string{DraftOpen, DraftInvoiceSent, DraftCompleted}, *f.Status) {
		return apperr.Invalidf("status must be one of open, invoice_sent, completed, not %q", *f.Status)
	}
	return nil
}

func (f DraftOrderFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f.Status != nil {
		q = q.Where("dro.status = ?", *f.Status)
	}
	if f.Q != nil {
		if s := strings.TrimSpace(*f.Q); s != "" {
			like := containsPattern(s)
			q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
				return q.Where("dro.name ILIKE ?", like).WhereOr("dro.email ILIKE ?", like)
			})
		}
	}
	return q
}

// draftsNewestFirst is the drafts list's one order.
var draftsNewestFirst = Sort[DraftOrder]{Desc: true, Keys: []SortKey[DraftOrder]{
	{SQL: "dro.created_at", Of: func(d *DraftOrder) any { return d.CreatedAt }},
	{SQL: "dro.id", Of: func(d *DraftOrder) any { return d.ID }},
}}

// ListDraftOrders lists a store's drafts under f, newest first.
func ListDraftOrders(ctx context.Context, db bun.IDB, storeID int64, f DraftOrderFilter, p Paging) ([]DraftOrder, error) {
	page, err := PageDraftOrders(ctx, db, storeID, f, p)
	return page.Rows, err
}

// PageDraftOrders is ListDraftOrders with the cursor of the next page.
func PageDraftOrders(ctx context.Context, db bun.IDB, storeID int64, f DraftOrderFilter, p Paging) (Page[DraftOrder], error) {
	scope, err := PageScope("draft-orders", storeID, f)
	if err != nil {
		return Page[DraftOrder]{}, err
	}
	var out []DraftOrder
	q := db.NewSelect().Model(&out).Where("dro.store_id = ?", storeID).Apply(f.apply)
	return ReadPage(ctx, db, q, &out, draftsNewestFirst, scope, p)
}

// CountDraftOrders counts what ListDraftOrders would list without paging.
func CountDraftOrders(ctx context.Context, db bun.IDB, storeID int64, f DraftOrderFilter) (int64, error) {
	return db.NewSelect().Model((*DraftOrder)(nil)).Where("dro.store_id = ?", storeID).Apply(f.apply).Count(ctx)
}

// GetDraftOrder reads one draft of the store.
func GetDraftOrder(ctx context.Context, db bun.IDB, storeID, id int64) (*DraftOrder, error) {
	d := new(DraftOrder)
	err := db.NewSelect().Model(d).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return d, classify(err, "the draft order")
}

// LockDraftOrder reads one draft of the store and locks it until tx ends.
func LockDraftOrder(ctx context.Context, tx bun.IDB, storeID, id int64) (*DraftOrder, error) {
	d := new(DraftOrder)
	err := tx.NewSelect().Model(d).Where("store_id = ? AND id = ?", storeID, id).For("UPDATE").Scan(ctx)
	return d, classify(err, "the draft order")
}

// NextDraftNumber takes the store's next draft number: #D1, #D2, ...
func NextDraftNumber(ctx context.Context, tx bun.IDB, storeID int64) (int64, string, error) {
	var n int64
	err := tx.NewUpdate().Table("stores").Set("last_draft_number = last_draft_number + 1").
		Where("id = ?", storeID).Returning("last_draft_number").Scan(ctx, &n)
	if err != nil {
		return 0, "", classify(err, "the store")
	}
	return n, "#D" + strconv.FormatInt(n, 10), nil
}

// InsertDraftOrder stores a new draft; d must carry its number and name.
func InsertDraftOrder(ctx context.Context, tx bun.IDB, d *DraftOrder) error {
	if d.Token == "" {
		d.Token = NewOrderToken()
	}
	_, err := tx.NewInsert().Model(d).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the draft order")
}

// SaveDraftOrder writes every field of d a change or the pricing sets.
func SaveDraftOrder(ctx context.Context, tx bun.IDB, d *DraftOrder) error {
	_, err := tx.NewUpdate().Model(d).
		Column("status", "email", "note", "tags", "billing_address", "shipping_address", "requires_shipping",
			"shipping_rate_id", "shipping_title", "shipping_cents", "subtotal_cents", "discount_cents", "tax_cents",
			"total_cents", "discount_code", "discount_id", "weight_grams", "order_id", "completed_at", "updated_at").
		Where("store_id = ? AND id = ?", d.StoreID, d.ID).Exec(ctx)
	return classify(err, "the draft order")
}

// DraftLines reads one draft's lines, in order.
func DraftLines(ctx context.Context, db bun.IDB, storeID, draftID int64) ([]DraftOrderLine, error) {
	return LinesByDraftOrder(ctx, db, storeID, []int64{draftID}, AllColumns)
}

// LinesByDraftOrder loads the lines of several drafts, for a dataloader.
func LinesByDraftOrder(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]DraftOrderLine, error) {
	out := manyRows[DraftOrderLine](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND draft_order_id IN (?)", storeID, bun.List(ids)).
		Order("draft_order_id", "position", "id"), &out)
	return out, err
}

// InsertDraftLines adds lines to a draft after its last one.
func InsertDraftLines(ctx context.Context, tx bun.IDB, d *DraftOrder, lines []DraftOrderLine) error {
	if len(lines) == 0 {
		return nil
	}
	var last int64
	err := tx.NewSelect().Table("draft_order_lines").ColumnExpr("coalesce(max(position), -1)").
		Where("draft_order_id = ?", d.ID).Scan(ctx, &last)
	if err != nil {
		return err
	}
	for i := range lines {
		lines[i].StoreID, lines[i].DraftOrderID, lines[i].Position = d.StoreID, d.ID, last+1+int64(i)
	}
	_, err = tx.NewInsert().Model(&lines).Returning("id").Exec(ctx)
	return classify(err, "the draft order's lines")
}

// DeleteDraftLine removes one line of a draft.
func DeleteDraftLine(ctx context.Context, tx bun.IDB, d *DraftOrder, lineID int64) error {
	res, err := tx.NewDelete().Model((*DraftOrderLine)(nil)).
		Where("store_id = ? AND draft_order_id = ? AND id = ?", d.StoreID, d.ID, lineID).Exec(ctx)
	return notFoundIfNone(res, err, "the draft order's line")
}

// SaveDraftLinePricing writes the pricing's line totals and discount
// shares.
func SaveDraftLinePricing(ctx context.Context, tx bun.IDB, lines []DraftOrderLine) error {
	if len(lines) == 0 {
		return nil
	}
	_, err := tx.NewUpdate().Model(&lines).Column("line_total_cents", "discount_cents").Bulk().Exec(ctx)
	return err
}

// CatalogueVariant is a variant with what a draft line takes from it.
type CatalogueVariant struct {
	ID               int64  `bun:"id"`
	ProductID        int64  `bun:"product_id"`
	ProductTitle     string `bun:"product_title"`
	ProductHandle    string `bun:"product_handle"`
	ProductStatus    string `bun:"product_status"`
	Title            string `bun:"title"`
	SKU              string `bun:"sku"`
	PriceCents       int64  `bun:"price_cents"`
	WeightGrams      int64  `bun:"weight_grams"`
	Taxable          bool   `bun:"taxable"`
	RequiresShipping bool   `bun:"requires_shipping"`
	TrackInventory   bool   `bun:"track_inventory"`
	InventoryPolicy  string `bun:"inventory_policy"`
	Inventory        int64  `bun:"inventory_quantity"`
	// The variant's option values and its product's options, by which a
	// customised line finds its binding (HasOption).
	Option1        string          `bun:"option1"`
	Option2        string          `bun:"option2"`
	Option3        string          `bun:"option3"`
	ProductOptions []ProductOption `bun:"product_options,type:jsonb"`
}

// HasOption says whether the variant's value of its product's option name
// is value.
func (v CatalogueVariant) HasOption(name, value string) bool {
	i := slices.IndexFunc(v.ProductOptions, func(o ProductOption) bool { return o.Name == name })
	return i >= 0 && i < 3 && []string{v.Option1, v.Option2, v.Option3}[i] == value
}

// label names the variant for a shopper: its product's title, and the
// variant's when it has one.
func (v CatalogueVariant) label() string {
	if v.LineTitle() == "" {
		return v.ProductTitle
	}
	return v.ProductTitle + " (" + v.Title + ")"
}

// LineTitle is the variant's title as a line shows it: empty for the one
// variant of a product without options ("Default Title").
func (v CatalogueVariant) LineTitle() string {
	if v.Title == "Default Title" {
		return ""
	}
	return v.Title
}

// CatalogueVariants reads variants of the store by id with their product's
// title.
func CatalogueVariants(ctx context.Context, db bun.IDB, storeID int64, ids []int64) (map[int64]CatalogueVariant, error) {
	var rows []CatalogueVariant
	err := db.NewSelect().TableExpr("product_variants AS v").Join("JOIN products AS p ON p.id = v.product_id").
		ColumnExpr("v.id, v.product_id, p.title AS product_title, p.handle AS product_handle, p.status AS product_status, v.title, v.sku, v.price_cents, v.weight_grams").
		ColumnExpr("v.taxable, v.requires_shipping, v.track_inventory, v.inventory_policy, v.inventory_quantity").
		ColumnExpr("v.option1, v.option2, v.option3, p.options AS product_options").
		Where("v.store_id = ? AND v.id IN (?)", storeID, bun.List(ids)).Scan(ctx, &rows)
	out := make(map[int64]CatalogueVariant, len(rows))
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, err
}

// CollectionIDsOf maps products to the collections they are in.
func CollectionIDsOf(ctx context.Context, db bun.IDB, storeID int64, productIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if len(productIDs) == 0 {
		return out, nil
	}
	ms, err := MembershipsByProduct(ctx, db, storeID, productIDs, AllColumns)
	for _, m := range ms {
		out[m.ProductID] = append(out[m.ProductID], m.CollectionID)
	}
	return out, err
}
