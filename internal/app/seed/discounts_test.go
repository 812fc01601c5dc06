package seed

import (
	"context"
	"slices"
	"testing"

	"storeadmin/models"
)

// TestDiscounts seeds a whole store and checks its discounts: every type
// and class, on real products and collections, with used_count matching
// the orders placed with each code; seeding again adds nothing.
func TestDiscounts(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	now := seedNow
	seedAll(t, db, files, sid)
	count := storeCounter(t, db, sid)

	ds, err := models.ListDiscounts(ctx, db, sid, models.DiscountFilter{}, models.Paging{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	byCode := map[string]models.Discount{}
	types, classes := map[string]int{}, map[string]int{}
	var expired, disabled, limited, automatic int
	for _, d := range ds {
		byCode[d.Code] = d
		types[d.Type]++
		classes[d.Class]++
		if d.EndsAt != nil && !d.EndsAt.After(now) {
			expired++
		}
		if !d.Enabled {
			disabled++
		}
		if d.UsageLimit != nil && d.UsedCount > 0 && d.UsedCount < *d.UsageLimit {
			limited++
		}
		if d.Class == models.DiscountAutomatic && d.ActiveAt(now) && d.AppliesTo == models.AppliesToCollections {
			automatic++
		}
		// The rules the API enforces hold for the seeded rows too.
		wantValueType := models.DiscountPercentage
		if d.Type == models.DiscountFixedAmount {
			wantValueType = models.DiscountFixedAmount
		}
		switch {
		case d.ValueType != wantValueType,
			d.Type == models.DiscountPercentage && (d.Value < 1 || d.Value > 100),
			d.Type == models.DiscountFixedAmount && d.Value < 1,
			(d.Type == models.DiscountFreeShipping || d.Type == models.DiscountBuyXGetY) && (d.Value != 0 || d.AppliesTo != models.AppliesToAll),
			d.Type == models.DiscountBuyXGetY && (d.BuyQuantity < 1 || d.GetQuantity < 1 || d.GetValue < 1),
			d.Type != models.DiscountBuyXGetY && (d.BuyQuantity != 0 || d.GetQuantity != 0 || d.GetValue != 0 || len(d.GetProductIDs) != 0),
			d.AppliesTo == models.AppliesToProducts && len(d.ProductIDs) == 0,
			d.AppliesTo == models.AppliesToCollections && len(d.CollectionIDs) == 0,
			d.AppliesTo != models.AppliesToCollections && len(d.CollectionIDs) != 0,
			d.StartsAt != nil && d.EndsAt != nil && !d.EndsAt.After(*d.StartsAt),
			d.OncePerCustomer && d.PerCustomerLimit != nil && *d.PerCustomerLimit > 1,
			d.CreatedAt.After(now):
			t.Errorf("discount %s breaks a rule: %+v", d.Code, d)
		}
		// Targets are the store's own records.
		for table, ids := range map[string][]int64{
			"products":    slices.Concat(d.ProductIDs, d.BuyProductIDs, d.GetProductIDs),
			"collections": slices.Concat(d.CollectionIDs, d.BuyCollectionIDs, d.GetCollectionIDs),
		} {
			found, err := models.ExistingIDs(ctx, db, table, sid, ids)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				if !found[id] {
					t.Errorf("discount %s names %s %d, not of the store", d.Code, table, id)
				}
			}
		}
		// used_count is its redemptions, which are the orders placed with
		// the code.
		if r := count("discount_redemptions", "discount_id = ?", d.ID); r != d.UsedCount {
			t.Errorf("discount %s: used_count %d, %d redemptions", d.Code, d.UsedCount, r)
		}
		// No customer used it more often than it allows.
		if limit := d.PerCustomerLimit; d.OncePerCustomer || limit != nil {
			if d.OncePerCustomer {
				limit = ptr[int64](1)
			}
			var most int64
			if err := db.NewRaw(`SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM discount_redemptions
				WHERE discount_id = ? GROUP BY lower(email)) AS per`, d.ID).Scan(ctx, &most); err != nil {
				t.Fatal(err)
			}
			if most > *limit {
				t.Errorf("discount %s: a customer used it %d times, limit %d", d.Code, most, *limit)
			}
		}
		if d.Class == models.DiscountCode {
			if o := count("orders", "lower(discount_code) = lower(?)", d.Code); o != d.UsedCount {
				t.Errorf("discount %s: used_count %d, %d orders with the code", d.Code, d.UsedCount, o)
			}
		}
	}
	t.Logf("%d discounts: types %v, classes %v", len(ds), types, classes)
	for _, d := range ds {
		t.Logf("%-28s %-13s %-9s used %4d limit %v enabled %v active %v", d.Code, d.Type, d.Class, d.UsedCount, dcLimit(d.UsageLimit), d.Enabled, d.ActiveAt(now))
	}
	for _, typ := range models.DiscountTypes {
		if types[typ] == 0 {
			t.Errorf("no %s discount", typ)
		}
	}
	for _, c := range models.DiscountClasses {
		if classes[c] == 0 {
			t.Errorf("no %s discount", c)
		}
	}
	if expired == 0 || disabled == 0 || limited == 0 || automatic == 0 {
		t.Errorf("expired %d, disabled %d, partly used limits %d, active automatic on collections %d: want each", expired, disabled, limited, automatic)
	}
	for _, code := range []string{"WELCOME10", "SUMMER25", "FREESHIP", "BUY2GET1", "VIP50"} {
		if _, ok := byCode[code]; !ok {
			t.Errorf("no discount %s", code)
		}
	}
	if b := byCode["BUY2GET1"]; len(b.BuyProductIDs) == 0 || len(b.GetProductIDs) == 0 {
		t.Errorf("BUY2GET1 names no products: %+v", b)
	}
	if v := byCode["VIP50"]; v.Type != models.DiscountFixedAmount || v.Value != 5000 {
		t.Errorf("VIP50: %+v", v)
	}
	// Every code the seeded orders used is a discount, and was used.
	var codes []string
	if err := db.NewSelect().Table("orders").ColumnExpr("DISTINCT discount_code").
		Where("store_id = ? AND discount_code <> ''", sid).Scan(ctx, &codes); err != nil {
		t.Fatal(err)
	}
	if len(codes) == 0 {
		t.Fatal("no order used a code")
	}
	for _, c := range codes {
		if d, ok := byCode[c]; !ok || d.UsedCount == 0 {
			t.Errorf("orders used %s: discount %+v", c, d)
		}
	}
	// The flash sale's orders fall inside its (past) window.
	if f := byCode["FLASH20"]; f.ActiveAt(now) || f.StartsAt == nil || f.EndsAt == nil ||
		count("orders", "discount_code = 'FLASH20' AND (created_at < ? OR created_at >= ?)", *f.StartsAt, *f.EndsAt) != 0 {
		t.Errorf("FLASH20 window %v..%v does not hold its orders", f.StartsAt, f.EndsAt)
	}
	// What checkout and the draft orders look up.
	if d, err := models.DiscountByCode(ctx, db, sid, "welcome10"); err != nil || d.Code != "WELCOME10" || !d.ActiveAt(now) || !d.OncePerCustomer {
		t.Errorf("WELCOME10 by code: %+v, %v", d, err)
	}
	auto, err := models.AutomaticDiscounts(ctx, db, sid, now)
	if err != nil || len(auto) != 1 || auto[0].Type != models.DiscountPercentage {
		t.Errorf("automatic discounts at %v: %+v, %v", now, auto, err)
	}

	// Seeding again adds nothing.
	before := tableCounts(count, "discounts", "discount_redemptions")
	seedAll(t, db, files, sid)
	expectSameCounts(t, before, tableCounts(count, "discounts", "discount_redemptions"))
	if before["discount_redemptions"] == 0 {
		t.Error("no redemptions")
	}
}

func dcLimit(p *int64) any {
	if p == nil {
		return "-"
	}
	return *p
}
