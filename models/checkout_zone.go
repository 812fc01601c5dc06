package models

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// CheckoutZone routes the checkouts of a group of countries to upsell
// funnels (checkout_zones, migration 20261124180000). Zones are tried by
// position, then id, and the first that lists a checkout's country wins,
// as in shipping; the catch-all zone (at most one a store) lists no
// countries and takes every country no zone lists.
type CheckoutZone struct {
	bun.BaseModel `bun:"table:checkout_zones,alias:z"`

	ID        int64    `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64    `bun:"store_id" json:"-"`
	Name      string   `bun:"name" json:"name"`
	Position  int64    `bun:"position" json:"position"`
	Countries []string `bun:"countries,array" json:"countries"`
	CatchAll  bool     `bun:"catch_all" json:"catch_all"`
	// RegionWarning names the countries another zone also lists; computed
	// by the query that reads the zone.
	RegionWarning *string   `bun:"region_warning,scanonly" json:"region_warning"`
	CreatedAt     time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt     time.Time `bun:"updated_at,nullzero,default:now()" json:"-"`
}

// CheckoutZoneFunnel is a funnel a zone routes to: its weight among the
// zone's enabled funnels and its place in the zone's list.
type CheckoutZoneFunnel struct {
	bun.BaseModel `bun:"table:checkout_zone_funnels,alias:zf"`

	StoreID  int64 `bun:"store_id" json:"-"`
	ZoneID   int64 `bun:"zone_id" json:"-"`
	FunnelID int64 `bun:"funnel_id" json:"funnel_id"`
	// FunnelName is the funnel's, read with the row.
	FunnelName string `bun:"funnel_name,scanonly" json:"funnel_name"`
	Enabled    bool   `bun:"enabled" json:"enabled"`
	Weight     int64  `bun:"weight" json:"weight"`
	Position   int64  `bun:"position" json:"position"`
}

// MaxFunnelWeight bounds a funnel's weight in a zone: a share of
// 1/10,000 is fine enough for any split.
const MaxFunnelWeight = 10_000

// checkoutZoneWarning is zoneWarning of checkout zones (a catch-all lists
// no countries, so it shares none).
var checkoutZoneWarning = zoneWarning("checkout_zones")

// selectCheckoutZones reads zones of the store with their region warnings.
func selectCheckoutZones(db bun.IDB, storeID int64, out any) *bun.SelectQuery {
	return db.NewSelect().Model(out).ColumnExpr("z.*").ColumnExpr(checkoutZoneWarning).Where("z.store_id = ?", storeID)
}

// ListCheckoutZones lists a store's zones by position (then id), with
// their region warnings.
func ListCheckoutZones(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]CheckoutZone, error) {
	var out []CheckoutZone
	q := selectCheckoutZones(db, storeID, &out).Order("z.position", "z.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountCheckoutZones counts a store's zones.
func CountCheckoutZones(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*CheckoutZone)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// GetCheckoutZone reads one zone of the store, with its region warning.
func GetCheckoutZone(ctx context.Context, db bun.IDB, storeID, id int64) (*CheckoutZone, error) {
	z := new(CheckoutZone)
	err := selectCheckoutZones(db, storeID, z).Where("z.id = ?", id).Scan(ctx)
	return z, classify(err, "the checkout zone")
}

// CatchAllCheckoutZone is the store's catch-all zone, nil when it has none.
func CatchAllCheckoutZone(ctx context.Context, db bun.IDB, storeID int64) (*CheckoutZone, error) {
	var out []CheckoutZone
	err := db.NewSelect().Model(&out).Where("store_id = ? AND catch_all", storeID).Scan(ctx)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// NextCheckoutZonePosition is the position after the store's last zone (0
// for the first).
func NextCheckoutZonePosition(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	var n int64
	err := db.NewSelect().Model((*CheckoutZone)(nil)).ColumnExpr("coalesce(max(position) + 1, 0)").
		Where("store_id = ?", storeID).Scan(ctx, &n)
	return n, err
}

// errSecondCatchAll is a second catch-all zone that got past the check
// (two written at once): the index allows one a store.
var errSecondCatchAll = apperr.Conflictf("the store already has a catch-all checkout zone; a store has at most one")

// classifyZone is classify for a zone's row, whose only unique index
// besides its id is the one catch-all a store.
func classifyZone(err error) error {
	if err = classify(err, "the checkout zone"); apperr.CodeOf(err) == apperr.Conflict {
		return errSecondCatchAll
	}
	return err
}

// InsertCheckoutZone stores a new zone row.
func InsertCheckoutZone(ctx context.Context, db bun.IDB, z *CheckoutZone) error {
	if z.Countries == nil {
		z.Countries = []string{} // the catch-all's: the column is never NULL
	}
	_, err := db.NewInsert().Model(z).Returning("id, created_at, updated_at").Exec(ctx)
	return classifyZone(err)
}

// UpdateCheckoutZone writes the zone row and bumps updated_at.
func UpdateCheckoutZone(ctx context.Context, db bun.IDB, z *CheckoutZone) error {
	if z.Countries == nil {
		z.Countries = []string{}
	}
	res, err := db.NewUpdate().Model(z).Column("name", "countries", "position", "catch_all").
		Set("updated_at = now()").Where("store_id = ? AND id = ?", z.StoreID, z.ID).Exec(ctx)
	if err != nil {
		return classifyZone(err)
	}
	return notFoundIfNone(res, nil, "the checkout zone")
}

// DeleteCheckoutZone removes a zone with its funnels' routing (the funnels
// stay).
func DeleteCheckoutZone(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*CheckoutZone)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the checkout zone")
}

// SetCheckoutZoneFunnels replaces the funnels the store's zone routes to;
// each names a funnel of the store (the caller checks: the foreign key
// alone does not see stores).
func SetCheckoutZoneFunnels(ctx context.Context, db bun.IDB, storeID, zoneID int64, funnels []CheckoutZoneFunnel) error {
	if _, err := db.NewDelete().Model((*CheckoutZoneFunnel)(nil)).Where("store_id = ? AND zone_id = ?", storeID, zoneID).Exec(ctx); err != nil {
		return err
	}
	if len(funnels) == 0 {
		return nil
	}
	for i := range funnels {
		funnels[i].StoreID, funnels[i].ZoneID = storeID, zoneID
	}
	_, err := db.NewInsert().Model(&funnels).Exec(ctx)
	return classify(err, "the zone's funnel")
}

// selectZoneFunnels reads zone funnels of the store with their funnels'
// names, by position, then funnel id.
func selectZoneFunnels(db bun.IDB, storeID int64, out any) *bun.SelectQuery {
	return db.NewSelect().Model(out).ColumnExpr("zf.*, f.name AS funnel_name").
		Join("JOIN upsell_funnels AS f ON f.id = zf.funnel_id").
		Where("zf.store_id = ?", storeID).Order("zf.zone_id", "zf.position", "zf.funnel_id")
}

// FunnelsByCheckoutZone loads the funnels of several zones, by position,
// for a dataloader.
func FunnelsByCheckoutZone(ctx context.Context, db bun.IDB, storeID int64, zoneIDs []int64, _ Columns) ([]CheckoutZoneFunnel, error) {
	out := manyRows[CheckoutZoneFunnel](len(zoneIDs))
	err := scanRows(ctx, db, selectZoneFunnels(db, storeID, &out).Where("zf.zone_id IN (?)", bun.List(zoneIDs)), &out)
	return out, err
}

// CheckoutRoute is where a checkout goes: its zone and the funnels it may
// be given there.
type CheckoutRoute struct {
	Zone CheckoutZone
	// Funnels are those a checkout can be given, with their weights: the
	// zone's enabled ones, whose funnel is enabled, of weight above 0, by
	// position. Empty: the zone offers no upsell.
	Funnels []CheckoutZoneFunnel
}

// CheckoutZoneFor is the route of a checkout shipping to country (ISO
// 3166-1 alpha-2, any case): the store's first zone, by position then id,
// that lists it, else its catch-all zone (also for no country); nil when
// neither exists.
func CheckoutZoneFor(ctx context.Context, db bun.IDB, storeID int64, country string) (*CheckoutRoute, error) {
	country = strings.ToUpper(strings.TrimSpace(country))
	var zones []CheckoutZone
	err := db.NewSelect().Model(&zones).Where("store_id = ?", storeID).
		Where("(? = ANY (countries) OR catch_all)", country).
		OrderExpr("catch_all, position, id").Limit(1).Scan(ctx)
	if err != nil || len(zones) == 0 {
		return nil, err
	}
	r := &CheckoutRoute{Zone: zones[0], Funnels: []CheckoutZoneFunnel{}}
	err = selectZoneFunnels(db, storeID, &r.Funnels).
		Where("zf.zone_id = ? AND zf.enabled AND zf.weight > 0 AND f.enabled", r.Zone.ID).Scan(ctx)
	return r, err
}
