package analytics

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/testkit/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// TestTopProductsRanks: over rollup slots drawn at random across four
// months (many ties of revenue, some of units too, zeros, and a few heavy
// sellers), TopProducts equals the brute force over the slots for windows
// that cover months whole, in part, or not at all, from every first depth
// (1 makes most windows need several rounds, and the bound decide).
func TestTopProductsRanks(t *testing.T) {
	db, _ := testdb.New(t)
	ctx := context.Background()
	var storeID int64
	if err := db.NewRaw(`INSERT INTO stores (handle, name) VALUES ('top', 'Top') RETURNING id`).Scan(ctx, &storeID); err != nil {
		t.Fatal(err)
	}
	const products = 60
	var ids []int64
	if err := db.NewRaw(`INSERT INTO products (store_id, handle, title) SELECT ?, 'p' || i, 'Product ' || i
		FROM generate_series(1, ?) AS i RETURNING id`, storeID, products).Scan(ctx, &ids); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	start := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	var deltas []string
	for range 900 {
		p := ids[rng.IntN(len(ids))]
		if rng.IntN(10) == 0 {
			p = ids[rng.IntN(5)] // the heavy sellers
		}
		slot := start.Add(time.Duration(rng.IntN(4*30*96)) * Slot)
		units := int64(1 + rng.IntN(3))
		revenue := int64(rng.IntN(4)) * 500 // ties, and zeros
		deltas = append(deltas, fmt.Sprintf("ROW(%d, '%s', %d, %d, %d)::analytics_product_delta",
			storeID, slot.Format(time.RFC3339), p, units, revenue))
	}
	if _, err := db.ExecContext(ctx, "SELECT analytics_product_apply(ARRAY["+strings.Join(deltas, ", ")+"])"); err != nil {
		t.Fatal(err)
	}
	d := func(month, day, hour int) time.Time {
		return time.Date(2026, time.Month(month), day, hour, 0, 0, 0, time.UTC)
	}
	windows := []Span{
		{From: d(7, 1, 0), To: d(11, 1, 0)},   // four whole months
		{From: d(7, 14, 5), To: d(10, 2, 0)},  // two whole, two in part
		{From: d(8, 3, 0), To: d(8, 29, 12)},  // one month in part
		{From: d(8, 1, 0), To: d(9, 1, 0)},    // one whole month
		{From: d(9, 30, 23), To: d(10, 1, 1)}, // two hours across months
		{From: d(6, 1, 0), To: d(12, 31, 0)},  // beyond the data both sides
		{From: d(12, 1, 0), To: d(12, 2, 0)},  // no sales
	}
	defer func(depth int) { topFirstDepth = depth }(topFirstDepth)
	for _, depth := range []int{1, 2, 5, 256} {
		topFirstDepth = depth
		for _, w := range windows {
			for _, limit := range []int{1, 3, 10, 100} {
				got, err := TopProducts(ctx, db, storeID, w, limit)
				if err != nil {
					t.Fatal(err)
				}
				var all []AnalyticsProductStat
				if err := db.NewRaw(`SELECT s.product_id, p.title, sum(s.units)::bigint AS units, sum(s.revenue_cents)::bigint AS revenue_cents
					FROM analytics_product_slots AS s JOIN products AS p ON p.id = s.product_id
					WHERE s.store_id = ? AND s.slot >= ? AND s.slot < ? GROUP BY 1, 2`, storeID, w.From, w.To).Scan(ctx, &all); err != nil {
					t.Fatal(err)
				}
				slices.SortFunc(all, func(a, b AnalyticsProductStat) int {
					return cmp.Or(cmp.Compare(b.RevenueCents, a.RevenueCents), cmp.Compare(b.Units, a.Units), cmp.Compare(a.ProductID, b.ProductID))
				})
				want := all[:min(limit, len(all))]
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("depth %d, %v, limit %d:\n got %v\nwant %v", depth, w, limit, got, want)
				}
			}
		}
	}
}
