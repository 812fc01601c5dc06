package seed

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/media"
	"storeadmin/internal/testkit/testdb"
	"storeadmin/models"
)

// seedNow is the fixed "now" every seed test seeds at, so that dates are
// reproducible.
var seedNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// newSeedStore gives a seed test its fresh database, media in a temporary folder and
// the id of the empty demo store, as the seed command would find them.
func newSeedStore(t *testing.T) (db *bun.DB, files *media.Media, storeID int64) {
	t.Helper()
	ctx := context.Background()
	db, _ = testdb.New(t)
	files, err := media.Open(ctx, media.Config{
		BucketURL: "file://" + filepath.ToSlash(t.TempDir()), PublicURL: "http://127.0.0.1:8080", SigningKey: []byte(strings.Repeat("k", 32)),
	}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	store := &models.Store{Handle: "demo-outfitters", Name: "Demo Outfitters"}
	if err := models.CreateStore(ctx, db, store); err != nil {
		t.Fatal(err)
	}
	return db, files, store.ID
}

// seedAll seeds the whole store, as the seed command does; tests run it a
// second time to check that seeding again adds nothing.
func seedAll(t *testing.T, db *bun.DB, files *media.Media, storeID int64) {
	t.Helper()
	if err := Store(context.Background(), db, files, storeID, seedNow); err != nil {
		t.Fatal(err)
	}
}

// storeCounter returns count(table, where, args...): the rows of table (a
// table or a join with its alias) of storeID that match where; the seed
// tests check every area by such counts.
func storeCounter(t *testing.T, db bun.IDB, storeID int64) func(table, where string, args ...any) int64 {
	return func(table, where string, args ...any) int64 {
		t.Helper()
		n, err := db.NewSelect().TableExpr(table).Where("store_id = ?", storeID).Where(where, args...).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return int64(n)
	}
}

// tableCounts counts every row of each table, for comparing a second seed
// with the first.
func tableCounts(count func(table, where string, args ...any) int64, tables ...string) map[string]int64 {
	out := map[string]int64{}
	for _, tb := range tables {
		out[tb] = count(tb, "true")
	}
	return out
}

// expectSameCounts fails for every table whose count a second seed changed:
// seeding a store again must add nothing.
func expectSameCounts(t *testing.T, first, second map[string]int64) {
	t.Helper()
	for tb, n := range first {
		if second[tb] != n {
			t.Errorf("second run changed %s: %d -> %d", tb, n, second[tb])
		}
	}
}
