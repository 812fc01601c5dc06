package models

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/testkit/testdb"
)

// TestRowScanReadsAsBunDoes: scanRows reads every column of products (with
// their joined summaries, present and absent) and orders (with their joined
// buyers, present and absent: an order without an email has none) into the
// records bun reads from the same statements, NULLs, JSON and arrays
// included, and reads them itself rather than handing them to bun.
func TestRowScanReadsAsBunDoes(t *testing.T) {
	db, _ := testdb.New(t)
	ctx := context.Background()
	storeID, _, ps := placeFixture(t, db, "rowscan", time.Now())
	if _, err := PlaceOrders(ctx, db, ps); err != nil {
		t.Fatal(err)
	}
	bare := &Product{StoreID: storeID, Handle: "bare", Title: "Bare", Status: ProductDraft, Tags: []string{"a", "b,c", `d"e`},
		SEO: map[string]any{"title": "Bare"}, Options: []ProductOption{{Name: "Size", Position: 1, Values: []string{"S", "M"}}}}
	if err := InsertProduct(ctx, db, bare); err != nil {
		t.Fatal(err)
	}

	sameAsBun(t, db, func(out *[]Product) *bun.SelectQuery {
		return db.NewSelect().Model(out).Relation(ProductSummaryJoin).Where("product.store_id = ?", storeID).Order("product.id")
	}, 2)
	sameAsBun(t, db, func(out *[]Order) *bun.SelectQuery {
		return db.NewSelect().Model(out).Relation(OrderBuyer).Where("o.store_id = ?", storeID).Order("o.id")
	}, 3)
	sameAsBun(t, db, func(out *[]OrderLineItem) *bun.SelectQuery {
		return db.NewSelect().Model(out).Where("store_id = ?", storeID).Order("id")
	}, 3)
	sameAsBun(t, db, func(out *[]OrderTransaction) *bun.SelectQuery {
		return db.NewSelect().Model(out).Where("store_id = ?", storeID).Order("id")
	}, 2)
	sameAsBun(t, db, func(out *[]ProductVariant) *bun.SelectQuery {
		return db.NewSelect().Model(out).Where("store_id = ?", storeID).Order("id")
	}, 1)
	sameAsBun(t, db, func(out *[]Customer) *bun.SelectQuery {
		return db.NewSelect().Model(out).Where("store_id = ?", storeID).Order("id")
	}, 1)
}

// sameAsBun reads the statement build makes with scanRows and with bun,
// and fails unless both read want records, the same ones, and scanRows
// read them itself.
func sameAsBun[T any](t *testing.T, db *bun.DB, build func(*[]T) *bun.SelectQuery, want int) {
	t.Helper()
	ctx := context.Background()
	var fast, slow []T
	if err := scanRows(ctx, db, build(&fast), &fast); err != nil {
		t.Fatalf("scanRows: %v", err)
	}
	if err := build(&slow).Scan(ctx); err != nil {
		t.Fatalf("bun: %v", err)
	}
	typ := reflect.TypeFor[T]()
	if bunOnly(db.Table(typ)) {
		t.Fatalf("scanRows left %s to bun", typ)
	}
	if len(fast) != want || len(slow) != want {
		t.Fatalf("%s: %d rows read, bun %d, want %d", typ, len(fast), len(slow), want)
	}
	for i := range fast {
		if !reflect.DeepEqual(fast[i], slow[i]) {
			t.Errorf("%s row %d:\nscanRows %+v\nbun      %+v", typ, i, fast[i], slow[i])
		}
	}
}

// countHook counts the statements bun runs.
type countHook struct{ n int }

func (h *countHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }
func (h *countHook) AfterQuery(context.Context, *bun.QueryEvent)                        { h.n++ }

// TestRowScanLeavesHookedDatabasesToBun: a query hook sees every read, so
// on a database with one, scanRows lets bun read.
func TestRowScanLeavesHookedDatabasesToBun(t *testing.T) {
	db, _ := testdb.New(t)
	hook := &countHook{}
	hooked := db.WithQueryHook(hook)
	var out []Customer
	if err := scanRows(context.Background(), hooked, hooked.NewSelect().Model(&out), &out); err != nil {
		t.Fatal(err)
	}
	if hook.n != 1 {
		t.Fatalf("the hook saw %d statements, want 1", hook.n)
	}
}
