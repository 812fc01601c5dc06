package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// ShippingZone is a set of countries a store ships to, with its rates.
type ShippingZone struct {
	bun.BaseModel `bun:"table:shipping_zones,alias:z"`

	ID            int64    `bun:"id,pk,autoincrement" json:"id"`
	StoreID       int64    `bun:"store_id" json:"-"`
	Name          string   `bun:"name" json:"name"`
	Countries     []string `bun:"countries,array" json:"countries"`
	Position      int64    `bun:"position" json:"position"`
	DefaultRateID *int64   `bun:"default_rate_id" json:"default_rate_id"`
	// RegionWarning names the countries another zone also lists; computed
	// by the query that reads the zone.
	RegionWarning *string   `bun:"region_warning,scanonly" json:"region_warning"`
	CreatedAt     time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt     time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// ShippingRate is a price for shipping to a zone within weight and
// subtotal bounds.
type ShippingRate struct {
	bun.BaseModel `bun:"table:shipping_rates,alias:sr"`

	ID               int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID          int64     `bun:"store_id" json:"-"`
	ZoneID           int64     `bun:"zone_id" json:"zone_id"`
	Name             string    `bun:"name" json:"name"`
	PriceCents       int64     `bun:"price_cents" json:"price_cents"`
	Position         int64     `bun:"position" json:"position"`
	MinWeightGrams   *int64    `bun:"min_weight_grams" json:"min_weight_grams"`
	MaxWeightGrams   *int64    `bun:"max_weight_grams" json:"max_weight_grams"`
	MinSubtotalCents *int64    `bun:"min_subtotal_cents" json:"min_subtotal_cents"`
	MaxSubtotalCents *int64    `bun:"max_subtotal_cents" json:"max_subtotal_cents"`
	CreatedAt        time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt        time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// WorldCountry in a zone's countries is every country no other zone lists.
const WorldCountry = "*"

// MaxPosition bounds the position of zones, rates and tax rates: far more
// than any store has, and room to count on after it.
const MaxPosition = 1_000_000

// sqlAndList words the SQL text[] expression arr for people: "A", "A and B",
// "A, B and C".
func sqlAndList(arr string) string {
	return fmt.Sprintf(`CASE WHEN cardinality(%[1]s) = 1 THEN %[1]s[1]
		ELSE array_to_string(%[1]s[1:cardinality(%[1]s) - 1], ', ') || ' and ' || %[1]s[cardinality(%[1]s)] END`, arr)
}

// zoneWarning computes the region_warning of a zone of table (shipping or
// checkout zones: tried by position, then id, the first that lists a
// country wins), read as z: for each other zone of the store that lists
// some of its countries (in position order), "FR and DE are also in zone
// Europe (2), which comes first" (or "..., which comes later"); NULL when
// no other zone shares a country.
func zoneWarning(table string) string {
	return `(SELECT string_agg(` + sqlAndList("s.shared") + `
		|| CASE WHEN cardinality(s.shared) = 1 THEN ' is' ELSE ' are' END
		|| ' also in zone ' || o.name || ' (' || o.id || ')'
		|| CASE WHEN (o.position, o.id) < (z.position, z.id) THEN ', which comes first' ELSE ', which comes later' END,
		'; ' ORDER BY o.position, o.id)
	FROM ` + table + ` AS o
	CROSS JOIN LATERAL (SELECT array_agg(u.c ORDER BY u.n) AS shared
		FROM unnest(z.countries) WITH ORDINALITY AS u(c, n) WHERE u.c = ANY (o.countries)) AS s
	WHERE o.store_id = z.store_id AND o.id <> z.id AND o.countries && z.countries) AS region_warning`
}

// shippingZoneWarning is zoneWarning of shipping zones.
var shippingZoneWarning = zoneWarning("shipping_zones")

// selectZones reads zones of the store with their region warnings.
func selectZones(db bun.IDB, storeID int64, out any) *bun.SelectQuery {
	return db.NewSelect().Model(out).ColumnExpr("z.*").ColumnExpr(shippingZoneWarning).Where("z.store_id = ?", storeID)
}

// ListShippingZones lists a store's zones by position (then id), with
// their region warnings.
func ListShippingZones(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]ShippingZone, error) {
	var out []ShippingZone
	q := selectZones(db, storeID, &out).Order("z.position", "z.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountShippingZones counts a store's zones.
func CountShippingZones(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*ShippingZone)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// GetShippingZone reads one zone of the store, with its region warning.
func GetShippingZone(ctx context.Context, db bun.IDB, storeID, id int64) (*ShippingZone, error) {
	z := new(ShippingZone)
	err := selectZones(db, storeID, z).Where("z.id = ?", id).Scan(ctx)
	return z, classify(err, "the shipping zone")
}

// NextShippingZonePosition is the position after the store's last zone (0
// for the first).
func NextShippingZonePosition(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	var n int64
	err := db.NewSelect().Model((*ShippingZone)(nil)).ColumnExpr("coalesce(max(position) + 1, 0)").
		Where("store_id = ?", storeID).Scan(ctx, &n)
	return n, err
}

// InsertShippingZone stores a new zone row.
func InsertShippingZone(ctx context.Context, db bun.IDB, z *ShippingZone) error {
	_, err := db.NewInsert().Model(z).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the shipping zone")
}

// UpdateShippingZone writes the zone row and bumps updated_at.
func UpdateShippingZone(ctx context.Context, db bun.IDB, z *ShippingZone) error {
	res, err := db.NewUpdate().Model(z).Column("name", "countries", "position", "default_rate_id").
		Set("updated_at = now()").Where("store_id = ? AND id = ?", z.StoreID, z.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the shipping zone")
}

// DeleteShippingZone removes a zone with its rates.
func DeleteShippingZone(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*ShippingZone)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the shipping zone")
}

// ZoneHasRate reports whether rateID names a rate of the store's zone.
func ZoneHasRate(ctx context.Context, db bun.IDB, storeID, zoneID, rateID int64) (bool, error) {
	return db.NewSelect().Model((*ShippingRate)(nil)).
		Where("store_id = ? AND zone_id = ? AND id = ?", storeID, zoneID, rateID).Exists(ctx)
}

// ZoneDefaultRateID is the default rate of the store's zone; nil when it
// has none, or when the store has no such zone.
func ZoneDefaultRateID(ctx context.Context, db bun.IDB, storeID, zoneID int64) (*int64, error) {
	var rows []struct {
		DefaultRateID *int64 `bun:"default_rate_id"`
	}
	err := db.NewSelect().Model((*ShippingZone)(nil)).Column("default_rate_id").
		Where("store_id = ? AND id = ?", storeID, zoneID).Scan(ctx, &rows)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[0].DefaultRateID, nil
}

// RatesByZone loads the rates of several zones, by position, for a
// dataloader.
func RatesByZone(ctx context.Context, db bun.IDB, storeID int64, zoneIDs []int64, cols Columns) ([]ShippingRate, error) {
	out := manyRows[ShippingRate](len(zoneIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND zone_id IN (?)", storeID, bun.List(zoneIDs)).
		Order("zone_id", "position", "id"), &out)
	return out, err
}

// GetShippingRate reads one rate of the store: another store's rate, or a
// rate of another store's zone, is not found.
func GetShippingRate(ctx context.Context, db bun.IDB, storeID, id int64) (*ShippingRate, error) {
	r := new(ShippingRate)
	err := db.NewSelect().Model(r).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return r, classify(err, "the shipping rate")
}

// NextShippingRatePosition is the position after the zone's last rate (0
// for the first).
func NextShippingRatePosition(ctx context.Context, db bun.IDB, storeID, zoneID int64) (int64, error) {
	var n int64
	err := db.NewSelect().Model((*ShippingRate)(nil)).ColumnExpr("coalesce(max(position) + 1, 0)").
		Where("store_id = ? AND zone_id = ?", storeID, zoneID).Scan(ctx, &n)
	return n, err
}

// InsertShippingRate stores a new rate row; r.ZoneID must name a zone of
// r.StoreID (the caller checks: the foreign key alone does not see stores).
func InsertShippingRate(ctx context.Context, db bun.IDB, r *ShippingRate) error {
	_, err := db.NewInsert().Model(r).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the shipping rate")
}

// UpdateShippingRate writes the rate row and bumps updated_at.
func UpdateShippingRate(ctx context.Context, db bun.IDB, r *ShippingRate) error {
	res, err := db.NewUpdate().Model(r).
		Column("name", "price_cents", "position", "min_weight_grams", "max_weight_grams", "min_subtotal_cents", "max_subtotal_cents").
		Set("updated_at = now()").Where("store_id = ? AND id = ?", r.StoreID, r.ID).Exec(ctx)
	if err := notFoundIfNone(res, err, "the shipping rate"); err != nil {
		return err
	}
	return db.NewSelect().Model(r).Column("updated_at").Where("id = ?", r.ID).Scan(ctx)
}

// DeleteShippingRate removes a rate; a zone whose default it was has no
// default any more.
func DeleteShippingRate(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*ShippingRate)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the shipping rate")
}

// MatchingShippingRates lists the rates a shipment to country (ISO 3166-1
// alpha-2, any case) of weightGrams and subtotalCents can use, cheapest
// first (then by position). The zone is the store's first, by position,
// that lists the country, else its first that lists "*"; its rates count
// whose bounds (inclusive; NULL: unbounded) hold both the weight and the
// subtotal. No zone, or an empty country: none.
func MatchingShippingRates(ctx context.Context, db bun.IDB, storeID int64, country string, weightGrams, subtotalCents int64) ([]ShippingRate, error) {
	country = strings.ToUpper(strings.TrimSpace(country))
	out := []ShippingRate{}
	if country == "" || country == WorldCountry {
		return out, nil
	}
	zone := db.NewSelect().Model((*ShippingZone)(nil)).Column("id").
		Where("store_id = ?", storeID).
		Where("(? = ANY (countries) OR ? = ANY (countries))", country, WorldCountry).
		OrderExpr("? = ANY (countries) DESC, position, id", country).Limit(1)
	err := db.NewSelect().Model(&out).
		Where("sr.store_id = ? AND sr.zone_id = (?)", storeID, zone).
		Where("(sr.min_weight_grams IS NULL OR sr.min_weight_grams <= ?)", weightGrams).
		Where("(sr.max_weight_grams IS NULL OR sr.max_weight_grams >= ?)", weightGrams).
		Where("(sr.min_subtotal_cents IS NULL OR sr.min_subtotal_cents <= ?)", subtotalCents).
		Where("(sr.max_subtotal_cents IS NULL OR sr.max_subtotal_cents >= ?)", subtotalCents).
		Order("sr.price_cents", "sr.position", "sr.id").Scan(ctx)
	return out, err
}

// DefaultShippingRate picks, among rates MatchingShippingRates answered,
// the zone's default rate (defaultRateID, from ZoneDefaultRateID) when it
// is among them, else the first (the cheapest); nil when rates is empty.
func DefaultShippingRate(rates []ShippingRate, defaultRateID *int64) *ShippingRate {
	if len(rates) == 0 {
		return nil
	}
	if defaultRateID != nil {
		for i := range rates {
			if rates[i].ID == *defaultRateID {
				return &rates[i]
			}
		}
	}
	return &rates[0]
}

// ShippingRatesByID loads rates of the store by id, for a dataloader.
func ShippingRatesByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]ShippingRate, error) {
	out := make([]ShippingRate, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("sr.store_id = ? AND sr.id IN (?)", storeID, bun.List(ids)), &out)
	return out, err
}
