package models

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

// Upsell funnels (upsell_funnels and funnel_steps, migration
// 20261124180000): the post-purchase offers a shopper sees between a
// payment's authorization and its capture, as a graph of steps. The rules
// every writer shares (the API and the seed) are in
// upsell_funnel_rules.go, the checkout page a funnel ensures in
// upsell_funnel_page.go.

// UpsellFunnel is a funnel: its steps are FunnelSteps. PP15 and Tipping
// override the store's surcharge and tipping (nil: the store's); they are
// written by their own calls (PUT …/pp15, …/tipping), never by a save of
// the funnel.
type UpsellFunnel struct {
	bun.BaseModel `bun:"table:upsell_funnels,alias:uf"`

	ID             int64          `bun:"id,pk,autoincrement" json:"id"`
	StoreID        int64          `bun:"store_id" json:"-"`
	Name           string         `bun:"name" json:"name"`
	Enabled        bool           `bun:"enabled" json:"enabled"`
	TimeoutSeconds int64          `bun:"timeout_seconds" json:"timeout_seconds"`
	CheckoutPageID *int64         `bun:"checkout_page_id" json:"checkout_page_id"`
	UpsellPage     any            `bun:"upsell_page,type:jsonb" json:"upsell_page"`
	PP15           *PP15Config    `bun:"pp15,type:jsonb" json:"pp15"`
	Tipping        *TippingConfig `bun:"tipping,type:jsonb" json:"tipping"`
	CreatedAt      time.Time      `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt      time.Time      `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// FunnelStep is one offer of a funnel, at its position (1 is where every
// run starts). AcceptNextPosition and DeclineNextPosition are where the
// shopper goes on accepting or declining it: a later position, or nil for
// the funnel's end.
type FunnelStep struct {
	bun.BaseModel `bun:"table:funnel_steps,alias:fs"`

	ID                  int64       `bun:"id,pk,autoincrement" json:"id"`
	StoreID             int64       `bun:"store_id" json:"-"`
	FunnelID            int64       `bun:"funnel_id" json:"funnel_id"`
	Position            int64       `bun:"position" json:"position"`
	Name                string      `bun:"name" json:"name"`
	Type                string      `bun:"type" json:"type"`
	Offer               FunnelOffer `bun:"config,type:jsonb" json:"-"`
	AcceptNextPosition  *int64      `bun:"accept_next_position" json:"accept_next_position"`
	DeclineNextPosition *int64      `bun:"decline_next_position" json:"decline_next_position"`
	// UpsellPage is the step's own design; nil shows the funnel's.
	UpsellPage any `bun:"upsell_page,type:jsonb" json:"upsell_page"`
	// Unavailable says why the offer cannot be sold now (an
	// OfferUnavailable… reason), nil when it can; computed by the
	// statement that reads the step (offerUnavailable).
	Unavailable *string `bun:"unavailable,scanonly" json:"-"`
}

// FunnelOffer is what a step offers, stored as the step's config: a
// product (the shopper picks one of its variants that can be sold) or one
// variant of it, a quantity, and a discount off its price (nil: none).
type FunnelOffer struct {
	ProductID int64          `json:"product_id"`
	VariantID *int64         `json:"variant_id"`
	Quantity  int64          `json:"quantity"`
	Discount  *OfferDiscount `json:"discount"`
}

// OfferDiscount is a step's discount: Value percent off the price
// (OfferPercentage, 0 to 100) or Value minor units off each item
// (OfferFixedAmount, at most the price).
type OfferDiscount struct {
	Type  string `json:"type"`
	Value int64  `json:"value"`
}

// View is the step's config as the API answers it: the stored offer, and
// whether it can be sold now (available, unavailable_reason).
func (s *FunnelStep) View() map[string]any {
	var discount any
	if d := s.Offer.Discount; d != nil {
		discount = map[string]any{"type": d.Type, "value": d.Value}
	}
	var variant, reason any
	if s.Offer.VariantID != nil {
		variant = *s.Offer.VariantID
	}
	if s.Unavailable != nil {
		reason = *s.Unavailable
	}
	return map[string]any{
		"product_id": s.Offer.ProductID, "variant_id": variant, "quantity": s.Offer.Quantity, "discount": discount,
		"available": s.Unavailable == nil, "unavailable_reason": reason,
	}
}

// Why an offer cannot be sold now: what a step's unavailable_reason says.
const (
	OfferProductDeleted  = "product_deleted"
	OfferVariantDeleted  = "variant_deleted"
	OfferProductDraft    = "product_draft"
	OfferProductArchived = "product_archived"
	OfferOutOfStock      = "out_of_stock"
)

// offerUnavailable computes a step's Unavailable from the catalogue as it
// is now: the product or the variant deleted, the product not active, or
// no variant it may sell (the offered one, or any of the product's) that
// has the offer's quantity in stock. A variant without tracked inventory,
// or one that may be oversold (policy continue), always has stock.
const offerUnavailable = `(SELECT CASE
		WHEN p.id IS NULL THEN '` + OfferProductDeleted + `'
		WHEN fs.config->'variant_id' <> 'null' AND NOT EXISTS (SELECT 1 FROM product_variants v
			WHERE v.product_id = p.id AND v.id = (fs.config->>'variant_id')::bigint) THEN '` + OfferVariantDeleted + `'
		WHEN p.status = '` + ProductDraft + `' THEN '` + OfferProductDraft + `'
		WHEN p.status <> '` + ProductActive + `' THEN '` + OfferProductArchived + `'
		WHEN NOT EXISTS (SELECT 1 FROM product_variants v WHERE v.product_id = p.id
			AND (fs.config->'variant_id' = 'null' OR v.id = (fs.config->>'variant_id')::bigint)
			AND (NOT v.track_inventory OR v.inventory_policy = '` + InventoryContinue + `'
				OR v.inventory_quantity >= (fs.config->>'quantity')::bigint)) THEN '` + OfferOutOfStock + `'
		END
	FROM (SELECT 1) AS one
	LEFT JOIN products p ON p.store_id = fs.store_id AND p.id = (fs.config->>'product_id')::bigint) AS unavailable`

// selectSteps reads steps of the store with their availability.
func selectSteps(db bun.IDB, storeID int64, out any) *bun.SelectQuery {
	return db.NewSelect().Model(out).ColumnExpr("fs.*").ColumnExpr(offerUnavailable).Where("fs.store_id = ?", storeID)
}

// ListUpsellFunnels lists a store's funnels, oldest first.
func ListUpsellFunnels(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]UpsellFunnel, error) {
	var out []UpsellFunnel
	q := db.NewSelect().Model(&out).Where("store_id = ?", storeID).Order("id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// UpsellFunnelsByID loads funnels of the store by id, for a dataloader
// (the funnels a zone routes to).
func UpsellFunnelsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]UpsellFunnel, error) {
	out := make([]UpsellFunnel, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)), &out)
	return out, err
}

// CountUpsellFunnels counts a store's funnels.
func CountUpsellFunnels(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*UpsellFunnel)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// GetUpsellFunnel reads one funnel of the store.
func GetUpsellFunnel(ctx context.Context, db bun.IDB, storeID, id int64) (*UpsellFunnel, error) {
	f := new(UpsellFunnel)
	err := db.NewSelect().Model(f).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return f, classify(err, "the upsell funnel")
}

// LockUpsellFunnel reads one funnel of the store and locks its row until
// the transaction ends: the writes of one funnel take turns.
func LockUpsellFunnel(ctx context.Context, tx bun.IDB, storeID, id int64) (*UpsellFunnel, error) {
	f := new(UpsellFunnel)
	err := tx.NewSelect().Model(f).Where("store_id = ? AND id = ?", storeID, id).For("UPDATE").Scan(ctx)
	return f, classify(err, "the upsell funnel")
}

// DeleteUpsellFunnel removes a funnel with its steps; the zones that
// routed to it lose it (checkout_zone_funnels cascades).
func DeleteUpsellFunnel(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*UpsellFunnel)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the upsell funnel")
}

// FunnelSteps reads a funnel's steps by position, with their
// availability: what a run of the funnel walks.
func FunnelSteps(ctx context.Context, db bun.IDB, storeID, funnelID int64) ([]FunnelStep, error) {
	return StepsByFunnel(ctx, db, storeID, []int64{funnelID}, AllColumns)
}

// StepsByFunnel loads the steps of several funnels, by position, with
// their availability, for a dataloader.
func StepsByFunnel(ctx context.Context, db bun.IDB, storeID int64, funnelIDs []int64, _ Columns) ([]FunnelStep, error) {
	out := manyRows[FunnelStep](len(funnelIDs))
	err := selectSteps(db, storeID, &out).Where("fs.funnel_id IN (?)", bun.List(funnelIDs)).
		Order("fs.funnel_id", "fs.position").Scan(ctx)
	return out, err
}

// GetFunnelStep reads one step of the store's funnel, with its
// availability: a step of another funnel or store is not found.
func GetFunnelStep(ctx context.Context, db bun.IDB, storeID, funnelID, stepID int64) (*FunnelStep, error) {
	s := new(FunnelStep)
	err := selectSteps(db, storeID, s).Where("fs.funnel_id = ? AND fs.id = ?", funnelID, stepID).Scan(ctx)
	return s, classify(err, "the funnel step")
}

// SetFunnelUpsellPage writes the design every step of the funnel shows
// unless it has its own.
func SetFunnelUpsellPage(ctx context.Context, db bun.IDB, storeID, funnelID int64, page map[string]any) error {
	f := &UpsellFunnel{UpsellPage: page}
	res, err := db.NewUpdate().Model(f).Column("upsell_page").Set("updated_at = now()").
		Where("store_id = ? AND id = ?", storeID, funnelID).Exec(ctx)
	return notFoundIfNone(res, err, "the upsell funnel")
}

// SetFunnelStepUpsellPage writes one step's own design; nil clears it, so
// the step shows the funnel's again. A step of another funnel or store is
// not found. The funnel's updated_at moves too, in the same statement.
func SetFunnelStepUpsellPage(ctx context.Context, db bun.IDB, storeID, funnelID, stepID int64, page map[string]any) error {
	var design any // SQL NULL
	if page != nil {
		b, err := json.Marshal(page)
		if err != nil {
			return err
		}
		design = string(b)
	}
	res, err := db.NewRaw(`WITH step AS (UPDATE funnel_steps SET upsell_page = ?::jsonb
			WHERE store_id = ? AND funnel_id = ? AND id = ? RETURNING funnel_id)
		UPDATE upsell_funnels SET updated_at = now() FROM step WHERE upsell_funnels.id = step.funnel_id`,
		design, storeID, funnelID, stepID).Exec(ctx)
	return notFoundIfNone(res, err, "the funnel step")
}

// UpsellFunnelZone is a checkout zone that routes shoppers to a funnel: the
// zone, and the funnel's place among the zone's funnels.
type UpsellFunnelZone struct {
	FunnelID int64  `bun:"funnel_id" json:"-"`
	ZoneID   int64  `bun:"zone_id" json:"zone_id"`
	ZoneName string `bun:"zone_name" json:"zone_name"`
	Enabled  bool   `bun:"enabled" json:"enabled"`
	Weight   int64  `bun:"weight" json:"weight"`
	Position int64  `bun:"position" json:"position"`
}

// ZoneRoutesByFunnel loads the zones that route to several funnels, in
// the zones' order (position, then id), for a dataloader.
func ZoneRoutesByFunnel(ctx context.Context, db bun.IDB, storeID int64, funnelIDs []int64, _ Columns) ([]UpsellFunnelZone, error) {
	out := manyRows[UpsellFunnelZone](len(funnelIDs))
	err := db.NewSelect().TableExpr("checkout_zone_funnels AS zf").
		Join("JOIN checkout_zones AS z ON z.id = zf.zone_id").
		ColumnExpr("zf.funnel_id, zf.zone_id, z.name AS zone_name, zf.enabled, zf.weight, zf.position").
		Where("zf.store_id = ? AND zf.funnel_id IN (?)", storeID, bun.List(funnelIDs)).
		Order("zf.funnel_id", "z.position", "z.id").Scan(ctx, &out)
	return out, err
}
