package seed

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"storeadmin/internal/analytics"
)

// TestInsights: the seed computes the insights of its yesterday over the
// demo's data (whatever they find, the day is computed and current), and a
// second seed leaves them alone, even when they were computed since.
func TestInsights(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	seedAll(t, db, files, sid)
	count := storeCounter(t, db, sid)
	if n := count("insight_runs", "day = ?", seedNow.AddDate(0, 0, -1).Format("2006-01-02")); n != 1 {
		t.Fatalf("%d runs of the seed's yesterday", n)
	}
	found, err := analytics.Insights(ctx, db, sid)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Logf("%s %s: %s (n %d)", f.Day, f.Kind, f.Headline, f.SampleSize)
	}
	if int64(len(found)) != count("insights", "true") {
		t.Fatalf("%d current findings of %d", len(found), count("insights", "true"))
	}
	// Another day computed since: a second seed adds no run and keeps it.
	if _, err := db.NewRaw("INSERT INTO insight_runs (store_id, day) VALUES (?, ?)", sid, seedNow.Format("2006-01-02")).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	before := tableCounts(count, "insight_runs", "insights")
	if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return insights(ctx, tx, sid, seedNow) }); err != nil {
		t.Fatal(err)
	}
	expectSameCounts(t, before, tableCounts(count, "insight_runs", "insights"))
}
