package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// discounts seeds a discount of every type and class on the seeded
// catalogue: the codes the seeded orders were placed with (their uses
// recorded as redemptions, so used_count is what the orders show), codes
// for the catalogue's collections and socks, an automatic discount, an
// expired one, a paused one and one whose usage limit is partly used.
func discounts(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	n, err := models.CountDiscounts(ctx, tx, storeID, models.DiscountFilter{})
	if err != nil || n > 0 {
		return err
	}
	cols, err := discCollections(ctx, tx, storeID, "layering-system", "trail-day-essentials")
	if err != nil {
		return err
	}
	var socks []int64
	if err := tx.NewSelect().Table("products").Column("id").
		Where("store_id = ? AND status = ? AND lower(title) LIKE ?", storeID, models.ProductActive, "%hiking sock%").
		Order("id").Limit(20).Scan(ctx, &socks); err != nil {
		return err
	}

	day := 24 * time.Hour
	at := func(d time.Duration) *time.Time { t := now.Add(d).Truncate(time.Hour).UTC(); return &t }
	midnight := func(days int) *time.Time {
		t := now.UTC().Truncate(day).Add(time.Duration(days) * day)
		return &t
	}
	pct := func(code string, value int64) models.Discount {
		return models.Discount{Class: models.DiscountCode, Code: code, Type: models.DiscountPercentage, Value: value, ValueType: models.DiscountPercentage,
			Enabled: true}
	}
	fixed := func(code string, value int64) models.Discount {
		return models.Discount{Class: models.DiscountCode, Code: code, Type: models.DiscountFixedAmount, Value: value, ValueType: models.DiscountFixedAmount,
			Enabled: true}
	}

	welcome := pct("WELCOME10", 10)
	welcome.OncePerCustomer = true

	summer := pct("SUMMER25", 25)
	summer.MinimumSubtotalCents = 5000
	summer.StartsAt, summer.EndsAt = midnight(-20), midnight(40)
	if id := cols["trail-day-essentials"]; id != 0 {
		summer.AppliesTo, summer.CollectionIDs = models.AppliesToCollections, []int64{id}
	}

	freeShip := models.Discount{Class: models.DiscountCode, Code: "FREESHIP", Type: models.DiscountFreeShipping, ValueType: models.DiscountPercentage,
		MinimumSubtotalCents: 7500, Enabled: true}

	buy2 := models.Discount{Class: models.DiscountCode, Code: "BUY2GET1", Type: models.DiscountBuyXGetY, ValueType: models.DiscountPercentage,
		BuyQuantity: 2, GetQuantity: 1, GetValue: 100, GetValueType: models.DiscountPercentage,
		BuyProductIDs: socks, GetProductIDs: socks, Enabled: true}

	vip50 := fixed("VIP50", 5000)
	vip50.MinimumSubtotalCents, vip50.PerCustomerLimit = 25000, ptr[int64](2)

	save25 := fixed("SAVE25", 2500)
	save25.MinimumSubtotalCents = 15000

	// The flash sale of the seeded orders, over since.
	flash := pct("FLASH20", 20)
	flash.StartsAt, flash.EndsAt = midnight(-42), midnight(-37)

	spring := pct("SPRING30", 30)
	spring.Enabled = false
	spring.StartsAt, spring.EndsAt = midnight(-200), midnight(-150)

	// A code with a limit, partly used by the seeded orders; the limit is
	// set once the uses are counted.
	trail := pct("TRAIL15", 15)

	vip20 := pct("VIP20", 20)
	vip20.PerCustomerLimit = ptr[int64](5)

	auto := models.Discount{Class: models.DiscountAutomatic, Code: "10% off the Layering System", Type: models.DiscountPercentage,
		Value: 10, ValueType: models.DiscountPercentage, StartsAt: at(-30 * day), Enabled: true}
	if id := cols["layering-system"]; id != 0 {
		auto.AppliesTo, auto.CollectionIDs = models.AppliesToCollections, []int64{id}
	}

	specs := []struct {
		d       models.Discount
		created time.Duration
	}{
		{welcome, 300 * day}, {save25, 240 * day}, {spring, 210 * day}, {trail, 180 * day}, {vip20, 150 * day},
		{freeShip, 120 * day}, {vip50, 100 * day}, {flash, 45 * day}, {buy2, 35 * day}, {auto, 30 * day}, {summer, 21 * day},
	}
	for _, s := range specs {
		d := s.d
		d.StoreID = storeID
		if d.AppliesTo == "" {
			d.AppliesTo = models.AppliesToAll
		}
		if d.GetValueType == "" {
			d.GetValueType = models.DiscountPercentage
		}
		if d.Type == models.DiscountBuyXGetY && len(socks) == 0 {
			d.BuyProductIDs, d.GetProductIDs = nil, nil // any product
		}
		d.CreatedAt = now.Add(-s.created).Truncate(time.Second)
		d.UpdatedAt = d.CreatedAt
		if err := models.InsertDiscount(ctx, tx, &d); err != nil {
			return fmt.Errorf("discount %s: %w", d.Code, err)
		}
	}

	if err := redeemOrderCodes(ctx, tx, storeID); err != nil {
		return err
	}
	// TRAIL15's limit: its uses so far plus room for about half as many
	// again, in fifties, set as an admin would once the uses are known.
	trail15, err := models.DiscountByCode(ctx, tx, storeID, "TRAIL15")
	if err != nil {
		return err
	}
	limit := ((trail15.UsedCount+trail15.UsedCount/2)/50 + 1) * 50
	trail15.UsageLimit = &limit
	return models.UpdateDiscount(ctx, tx, trail15)
}

// redeemOrderCodes records the use of each code the seeded orders were
// placed with, oldest order first, by the rule the API applies when an
// order takes a code (models.RedeemDiscount: within the code's window at
// the order's time, per-customer limits), so used_count is what the orders
// show.
func redeemOrderCodes(ctx context.Context, tx bun.Tx, storeID int64) error {
	var uses []struct {
		OrderID    int64     `bun:"order_id"`
		DiscountID int64     `bun:"discount_id"`
		Email      string    `bun:"email"`
		At         time.Time `bun:"created_at"`
	}
	if err := tx.NewRaw(`SELECT o.id AS order_id, d.id AS discount_id, o.email, o.created_at
		FROM orders o JOIN discounts d ON d.store_id = o.store_id AND d.class = ? AND lower(d.code) = lower(o.discount_code)
		WHERE o.store_id = ? AND o.discount_code <> ''
		ORDER BY o.created_at, o.id`, models.DiscountCode, storeID).Scan(ctx, &uses); err != nil {
		return err
	}
	for _, u := range uses {
		if err := models.RedeemDiscount(ctx, tx, storeID, u.DiscountID, u.Email, u.OrderID, u.At); err != nil {
			return fmt.Errorf("order %d: %w", u.OrderID, err)
		}
	}
	return nil
}

// discCollections finds the seeded collections by handle.
func discCollections(ctx context.Context, tx bun.Tx, storeID int64, handles ...string) (map[string]int64, error) {
	var rows []struct {
		ID     int64  `bun:"id"`
		Handle string `bun:"handle"`
	}
	if err := tx.NewSelect().Table("collections").Column("id", "handle").
		Where("store_id = ? AND handle IN (?)", storeID, bun.List(handles)).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Handle] = r.ID
	}
	return out, nil
}
