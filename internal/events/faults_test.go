package events_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/models"
)

// TestWebhookKilledServerDeliveryResentOnce: a delivery whose process was
// killed during its attempt (its River job left running, attempted by a
// client that is gone, which was also the leader) is sent again by the next
// engine to start, as soon as the dead leader's term lapses, once; the
// receiver can tell it is the same event. The interrupted attempt was no
// failure of the subscriber's, so it goes again at once, not after the
// backoff of a failed attempt (an hour here).
func TestWebhookKilledServerDeliveryResentOnce(t *testing.T) {
	f := newFixture(t)
	r := newReceiver(t, nil)
	sub := f.subscribe(r.URL, true, "order.refunded")
	cfg := fast()
	cfg.Backoff = func(int) time.Duration { return time.Hour }
	id := f.emit(f.engine(cfg), f.refund(11))

	// What kill -9 leaves: the job running, attempt 1, under the dead
	// process's id, begun longer ago than any live attempt runs (so the
	// rescue delay has passed by the time the restarted process looks);
	// and the dead process's leadership, still valid for two seconds.
	ctx := context.Background()
	rescueAfter := cfg.RescueAfter()
	if rescueAfter >= time.Minute {
		t.Fatalf("rescue delay %v: a killed delivery would wait over a minute", rescueAfter)
	}
	if _, err := f.db.NewRaw(`UPDATE river_job SET state = 'running', attempt = 1,
		attempted_at = now() - ? * interval '1 millisecond', attempted_by = ARRAY['killed-process']`,
		(rescueAfter + time.Second).Milliseconds()).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.NewRaw(`INSERT INTO river_leader (leader_id, elected_at, expires_at)
		VALUES ('killed-process', now() - interval '10 seconds', now() + interval '2 seconds')`).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	restart := time.Now()
	f.started(cfg)
	d := f.settled(sub.ID, 1)[0]
	t.Logf("re-sent %v after the restart", time.Since(restart).Round(time.Millisecond))
	waitFor(t, "River to finish", f.jobsSettled)
	if d.Status != models.DeliverySucceeded || d.EventID != id || d.Attempts != 1 {
		t.Fatalf("delivery after the rescue: %+v", d)
	}
	got := r.requests()
	if len(got) != 1 {
		t.Fatalf("%d requests after the restart, want 1", len(got))
	}
	if h := got[0].header; h.Get("X-Shop-Event-Id") != strconv.FormatInt(id, 10) || h.Get("webhook-id") != "evt_"+strconv.FormatInt(id, 10) {
		t.Fatalf("the re-sent delivery has event id %q, webhook-id %q; want the event's", h.Get("X-Shop-Event-Id"), h.Get("webhook-id"))
	}
	var job struct {
		State   string   `bun:"state"`
		Attempt int      `bun:"attempt"`
		Errors  []string `bun:"errors,array"`
	}
	if err := f.db.NewRaw(`SELECT state, attempt, errors::text[] AS errors FROM river_job`).Scan(ctx, &job); err != nil {
		t.Fatal(err)
	}
	if job.State != "completed" || job.Attempt != 2 || len(job.Errors) != 1 || !strings.Contains(job.Errors[0], "Stuck job rescued") {
		t.Fatalf("River job: %+v; want completed on attempt 2 after one rescue", job)
	}
}
