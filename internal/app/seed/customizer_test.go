package seed

import (
	"context"
	"strconv"
	"testing"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// TestCustomizerSlice seeds the customizer on the catalogue: its records
// as the README lists them, fifteen products bound, a line of a seeded
// binding priced as the API prices it; seeding again adds nothing.
func TestCustomizerSlice(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	count := storeCounter(t, db, sid)
	if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return catalogue(ctx, tx, files, sid, seedNow) }); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"cz_product_bases": 3, "cz_mockups": 4, "cz_print_areas": 5, "cz_libraries": 2, "cz_library_items": 8,
		"cz_designs": 4, "cz_elements": 13, "cz_option_sets": 3, "cz_options": 13, "cz_option_values": 11, "cz_templates": 4,
		"cz_quantity_tiers": 7, "cz_product_bindings": czBoundProducts}
	for range 2 {
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return customizerSlice(ctx, tx, files, sid, seedNow) }); err != nil {
			t.Fatal(err)
		}
		for table, n := range want {
			if got := count(table, "true"); got != n {
				t.Errorf("%s: %d rows, want %d", table, got, n)
			}
		}
	}
	if n := count("cz_product_bindings", "product_id IN (SELECT id FROM products WHERE store_id = ?)", sid); n != czBoundProducts {
		t.Errorf("%d bindings of products that exist, want %d", n, czBoundProducts)
	}
	if n := count("cz_options", "conditions <> '[]'"); n != 3 {
		t.Errorf("%d options with conditions, want 3", n)
	}

	// A mug of the Name mug template: gold ink adds 2.50 to the variant.
	var b models.CzProductBinding
	err := db.NewSelect().Model(&b).Join("JOIN cz_templates AS t ON t.store_id = czpb.store_id AND t.id = czpb.template_id").
		Where("czpb.store_id = ? AND t.name = 'Name mug'", sid).Order("czpb.id").Limit(1).Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var variant models.ProductVariant
	if err := db.NewSelect().Model(&variant).Where("store_id = ? AND product_id = ?", sid, b.ProductID).Order("id").Limit(1).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewUpdate().Model(&variant).Set("inventory_quantity = 100").WherePK().Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var options []models.CzOption
	if err := db.NewSelect().Model(&options).Where("store_id = ? AND option_set_id = ?", sid, b.OptionSetID).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	answers := map[string]any{}
	for _, o := range options {
		switch o.Label {
		case "Name":
			answers[strconv.FormatInt(o.ID, 10)] = "Ada"
		case "Ink colour":
			answers[strconv.FormatInt(o.ID, 10)] = "gold"
		}
	}
	lines, err := models.BasketLines(ctx, db, sid, []models.LineAsk{{VariantID: variant.ID, Quantity: 1,
		Customization: &models.CzLineAsk{Selections: answers}}}, models.Platform{})
	if err != nil {
		t.Fatal(err)
	}
	priced, err := models.RepriceBasket(ctx, db, sid, lines, models.MoneyArms{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := priced[0].PriceCents, variant.PriceCents+250; got != want {
		t.Errorf("the customised mug costs %d, want %d", got, want)
	}
}
