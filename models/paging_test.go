package models

import (
	"context"
	"slices"
	"strings"
	"testing"

	"storeadmin/internal/testkit/testdb"
)

// TestColumnsLeaveOutWhatIsNotRead: Columns leave out the columns of the
// fields not read, never the primary key, keep what a statement needs, and
// leave a statement of another table whole; a page keeps its sort keys.
func TestColumnsLeaveOutWhatIsNotRead(t *testing.T) {
	db, _ := testdb.New(t)
	ctx := context.Background()
	sql := func(c Columns, model any) string { return c.Apply(db.NewSelect().Model(model)).String() }

	readsTotal := Reading[Order](func(f string) bool { return f == "TotalCents" })
	got := sql(readsTotal, (*Order)(nil))
	for _, col := range []string{"shipping_address", "email", "created_at", "tags"} {
		if strings.Contains(got, `"o"."`+col+`"`) {
			t.Errorf("reading total_cents selects %s: %s", col, got)
		}
	}
	if !strings.Contains(got, `"o"."total_cents"`) || !strings.Contains(got, `"o"."id"`) {
		t.Errorf("reading total_cents leaves out it or the key: %s", got)
	}
	if got := sql(readsTotal.Keep("email"), (*Order)(nil)); !strings.Contains(got, `"o"."email"`) {
		t.Errorf("Keep(email): %s", got)
	}
	if got := sql(readsTotal, (*Customer)(nil)); !strings.Contains(got, `"email"`) {
		t.Errorf("a statement of another table is not left whole: %s", got)
	}
	if Reading[Order](func(string) bool { return true }) != AllColumns {
		t.Error("reading every field is not AllColumns")
	}
	var orders []Order
	if err := readsTotal.Apply(db.NewSelect().Model(&orders)).Scan(ctx); err != nil {
		t.Fatalf("scan without the unread columns: %v", err)
	}

	// A page by title reads the title its cursor holds, whatever it is
	// asked to read.
	readsID := Reading[Product](func(string) bool { return false })
	for _, sort := range []string{"title", "-updated_at", "price", "vendor"} {
		var out []Product
		q := db.NewSelect().Model(&out).Where("product.store_id = 0")
		if _, err := ReadPage(ctx, db, q, &out, productSorts[sort], "s", Paging{Limit: 1, Columns: readsID}); err != nil {
			t.Fatalf("%s: %v", sort, err)
		}
	}
	if cols := productSorts["price"].columns(); !slices.Contains(cols, "min_price_cents") {
		t.Errorf("the price sort reads %v", cols)
	}
	if cols := productSorts["vendor"].columns(); !slices.Equal(cols, []string{"vendor", "id"}) {
		t.Errorf("the vendor sort reads %v", cols)
	}
}
