package abandonment

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"storeadmin/internal/events"
	"storeadmin/internal/testkit/testdb"
	"storeadmin/models"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// recorder is an Emitter that keeps what it is given.
type recorder struct{ got []events.Event }

func (r *recorder) Emit(_ context.Context, tx bun.Tx, ev events.Event) (int64, error) {
	if tx.Tx == nil {
		panic("emitted outside the flag's transaction")
	}
	r.got = append(r.got, ev)
	return int64(len(r.got)), nil
}

// TestWorkerFlagsWithTheJobsClockAndEngine: the periodic run runs Run with
// the job's clock and emits through the job's engine, set after Work made
// the worker (as serve does); the periodic job is on the job's own queue.
func TestWorkerFlagsWithTheJobsClockAndEngine(t *testing.T) {
	ctx := context.Background()
	db, _ := testdb.New(t)
	s := &models.Store{Handle: "acme", Name: "Acme"}
	if err := models.CreateStore(ctx, db, s); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	_, err := db.ExecContext(ctx, `INSERT INTO carts (store_id, token, currency, email, item_count, subtotal_cents, updated_at)
		VALUES (?, 'due', 'EUR', 'ana@example.com', 1, 100, ?), (?, 'fresh', 'EUR', 'ana@example.com', 1, 100, ?)`,
		s.ID, now.Add(-61*time.Minute), s.ID, now.Add(-59*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	j := &Job{DB: db, Now: func() time.Time { return now }}
	w := j.Work()
	if w.Queue != queue || w.Workers != 1 || len(w.Periodic) != 1 || (flagArgs{}).InsertOpts().Queue != queue {
		t.Fatalf("work %+v", w)
	}
	rec := &recorder{}
	j.Events = rec
	if err := w.Add(river.NewWorkers()); err != nil {
		t.Fatal(err)
	}
	if err := j.run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(rec.got) != 1 || rec.got[0].Topic != "cart.abandoned" || rec.got[0].StoreID != s.ID || rec.got[0].Resource != "cart" {
		t.Fatalf("events %+v", rec.got)
	}
	var at time.Time
	if err := db.NewRaw(`SELECT abandoned_at FROM carts WHERE token = 'due'`).Scan(ctx, &at); err != nil || !at.Equal(now) {
		t.Fatalf("abandoned_at %v (%v), want the job's clock %v", at, err, now)
	}
}
