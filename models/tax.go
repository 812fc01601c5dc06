package models

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// TaxRate is a sales tax rate of a country, or of one province of it.
type TaxRate struct {
	bun.BaseModel `bun:"table:tax_rates,alias:tr"`

	ID       int64  `bun:"id,pk,autoincrement" json:"id"`
	StoreID  int64  `bun:"store_id" json:"-"`
	Name     string `bun:"name" json:"name"`
	Country  string `bun:"country" json:"country"`
	Province string `bun:"province" json:"province"`
	RateBps  int64  `bun:"rate_bps" json:"rate_bps"`
	Position int64  `bun:"position" json:"position"`
	// RegionWarning names another rate of the same region; computed by the
	// query that reads the rate.
	RegionWarning *string   `bun:"region_warning,scanonly" json:"region_warning"`
	CreatedAt     time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt     time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// taxRegion words a rate's region for people: "CA" for the whole country,
// "CA-ON" for a province.
const taxRegion = `CASE WHEN tr.province = '' THEN tr.country ELSE tr.country || '-' || tr.province END`

// taxWarning computes a rate's region_warning: the other rates of its
// store with the same country and province, and which one applies (only
// the first by position, then id, counts); NULL when it is alone, e.g.
// "CA-ON is also covered by rate HST (4); only this rate, the first by
// position, applies".
var taxWarning = `(SELECT CASE WHEN w.names IS NOT NULL THEN ` + taxRegion + ` || ' is also covered by ' || ` + sqlAndList("w.names") + `
		|| '; only ' || coalesce(w.first, 'this rate') || ', the first by position, applies' END
	FROM (SELECT array_agg('rate ' || o.name || ' (' || o.id || ')' ORDER BY o.position, o.id) AS names,
			(array_agg('rate ' || o.name || ' (' || o.id || ')' ORDER BY o.position, o.id)
				FILTER (WHERE (o.position, o.id) < (tr.position, tr.id)))[1] AS first
		FROM tax_rates AS o
		WHERE o.store_id = tr.store_id AND o.country = tr.country AND o.province = tr.province AND o.id <> tr.id) AS w) AS region_warning`

// selectTaxRates reads rates of the store with their region warnings.
func selectTaxRates(db bun.IDB, storeID int64, out any) *bun.SelectQuery {
	return db.NewSelect().Model(out).ColumnExpr("tr.*").ColumnExpr(taxWarning).Where("tr.store_id = ?", storeID)
}

// ListTaxRates lists a store's tax rates by country, province (the whole
// country first), position and id, with their region warnings.
func ListTaxRates(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]TaxRate, error) {
	var out []TaxRate
	q := selectTaxRates(db, storeID, &out).Order("tr.country", "tr.province", "tr.position", "tr.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountTaxRates counts a store's tax rates.
func CountTaxRates(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*TaxRate)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// GetTaxRate reads one tax rate of the store, with its region warning.
func GetTaxRate(ctx context.Context, db bun.IDB, storeID, id int64) (*TaxRate, error) {
	r := new(TaxRate)
	err := selectTaxRates(db, storeID, r).Where("tr.id = ?", id).Scan(ctx)
	return r, classify(err, "the tax rate")
}

// NextTaxRatePosition is the position after the store's last tax rate (0
// for the first).
func NextTaxRatePosition(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	var n int64
	err := db.NewSelect().Model((*TaxRate)(nil)).ColumnExpr("coalesce(max(position) + 1, 0)").
		Where("store_id = ?", storeID).Scan(ctx, &n)
	return n, err
}

// InsertTaxRate stores a new tax rate row.
func InsertTaxRate(ctx context.Context, db bun.IDB, r *TaxRate) error {
	rates := []TaxRate{*r}
	err := InsertTaxRates(ctx, db, rates)
	*r = rates[0]
	return err
}

// InsertTaxRates stores new tax rate rows in one statement (a store's
// whole table at once, as the seed writes it); each receives its id and
// times.
func InsertTaxRates(ctx context.Context, db bun.IDB, rates []TaxRate) error {
	if len(rates) == 0 {
		return nil
	}
	_, err := db.NewInsert().Model(&rates).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the tax rate")
}

// UpdateTaxRate writes the tax rate row and bumps updated_at.
func UpdateTaxRate(ctx context.Context, db bun.IDB, r *TaxRate) error {
	res, err := db.NewUpdate().Model(r).Column("name", "country", "province", "rate_bps", "position").
		Set("updated_at = now()").Where("store_id = ? AND id = ?", r.StoreID, r.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the tax rate")
}

// DeleteTaxRate removes a tax rate.
func DeleteTaxRate(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*TaxRate)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the tax rate")
}

// TaxBpsFor is the tax, in basis points, of a sale to country and province
// (ISO codes, any case; an empty province: none): the country's
// whole-country rate plus the province's rate, as GST + PST. When several
// rates cover one region only the first by position (then id) counts; the
// others carry a region_warning. No rate: 0.
func TaxBpsFor(ctx context.Context, db bun.IDB, storeID int64, country, province string) (int64, error) {
	country = strings.ToUpper(strings.TrimSpace(country))
	province = strings.ToUpper(strings.TrimSpace(province))
	if country == "" {
		return 0, nil
	}
	firstPerRegion := db.NewSelect().Model((*TaxRate)(nil)).
		DistinctOn("province").Column("rate_bps").
		Where("store_id = ? AND country = ?", storeID, country).
		Where("province IN ('', ?)", province).
		Order("province", "position", "id")
	var bps int64
	err := db.NewSelect().TableExpr("(?) AS first_per_region", firstPerRegion).
		ColumnExpr("coalesce(sum(rate_bps), 0)").Scan(ctx, &bps)
	return bps, err
}

// Store setting that makes shipping taxable: namespace "tax", key
// "charge_on_shipping", a JSON boolean.
const (
	TaxSettingNamespace        = "tax"
	TaxSettingChargeOnShipping = "charge_on_shipping"
)

// ChargeTaxOnShipping reports whether the store taxes shipping: its setting
// tax/charge_on_shipping is JSON true. Left unset, or any other value: false.
func ChargeTaxOnShipping(ctx context.Context, db bun.IDB, storeID int64) (bool, error) {
	var on bool
	err := db.NewSelect().Model((*StoreSetting)(nil)).
		ColumnExpr("coalesce(bool_or(value = 'true'::jsonb), false)").
		Where("store_id = ? AND namespace = ? AND key = ?", storeID, TaxSettingNamespace, TaxSettingChargeOnShipping).
		Scan(ctx, &on)
	return on, err
}
