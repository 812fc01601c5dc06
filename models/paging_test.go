package models

import (
	"context"
	"strings"
	"testing"

	"storeadmin/internal/testkit/testdb"
)

// TestUnreadColumnsLeaveOutJSONB: a page whose reader does not read an
// order's addresses does not select (and decode) them, and one that does
// reads them; a statement of another table is left whole.
func TestUnreadColumnsLeaveOutJSONB(t *testing.T) {
	db, _ := testdb.New(t)
	readsNothing := func(string) bool { return false }
	readsAddress := func(f string) bool { return f == "shipping_address" }

	sql := func(p Paging, model any) string {
		return p.Apply(db.NewSelect().Model(model)).String()
	}
	p := UnreadColumns[Order](Paging{Limit: 50}, readsNothing)
	got := sql(p, (*Order)(nil))
	for _, col := range []string{"shipping_address", "billing_address", "shipping_line", "attribution", "upsell"} {
		if strings.Contains(got, col) {
			t.Errorf("a page reading no jsonb field selects %s: %s", col, got)
		}
	}
	if !strings.Contains(got, `"o"."total_cents"`) || !strings.Contains(got, `"o"."tags"`) {
		t.Errorf("a page leaves out more than jsonb: %s", got)
	}
	if got := sql(UnreadColumns[Order](Paging{Limit: 50}, readsAddress), (*Order)(nil)); !strings.Contains(got, "shipping_address") || strings.Contains(got, "billing_address") {
		t.Errorf("a page reading shipping_address: %s", got)
	}
	ctx := context.Background()
	var orders []Order
	if err := p.Apply(db.NewSelect().Model(&orders)).Scan(ctx); err != nil {
		t.Fatalf("scan without the unread columns: %v", err)
	}
	var customers []Customer
	if err := p.Apply(db.NewSelect().Model(&customers)).Scan(ctx); err != nil {
		t.Fatalf("a statement of another table: %v", err)
	}
}
