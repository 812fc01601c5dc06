package events_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/events"
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

// TestWebhookHangingSubscriberDoesNotDelayOthers: while one store's
// subscriber hangs on twenty deliveries, another store's deliveries arrive;
// the hanging one has at most DefaultPerSubscription attempts in flight.
// Workers and polling are the defaults serve runs with; the hanging
// attempts last longer than the test, so without the per-subscription share
// they would hold every worker and the healthy deliveries would never come.
func TestWebhookHangingSubscriberDoesNotDelayOthers(t *testing.T) {
	f := newFixture(t)
	other := &models.Store{Handle: "bolt", Name: "Bolt"}
	if err := models.CreateStore(context.Background(), f.db, other); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	hanging := newReceiver(t, func(int, http.ResponseWriter) { <-release })
	defer close(release) // before the receivers close and the engine stops
	healthy := newReceiver(t, nil)
	f.subscribe(hanging.URL, true, "order.refunded")
	good := f.subscribeStore(other.ID, healthy.URL, true, "order.refunded")
	cfg := fast()
	cfg.FetchPollInterval = 0 // serve's default
	cfg.Timeout = 2 * patience
	e := f.started(cfg)

	for i := range 20 {
		f.emit(e, f.refund(int64(100+i)))
	}
	waitFor(t, "the subscriber to hang", func() bool { return len(hanging.requests()) > 0 })
	emitted := map[string]time.Time{}
	for i := range 10 {
		ev := f.refund(int64(200 + i))
		ev.StoreID = other.ID
		emitted[strconv.FormatInt(f.emit(e, ev), 10)] = time.Now()
	}
	f.settled(good.ID, 10)

	if n := len(hanging.requests()); n < 1 || n > events.DefaultPerSubscription {
		t.Fatalf("the hanging subscriber has %d attempts in flight, want 1 to %d", n, events.DefaultPerSubscription)
	}
	var waits []time.Duration
	for _, req := range healthy.requests() {
		waits = append(waits, req.at.Sub(emitted[req.header.Get("X-Shop-Event-Id")]))
	}
	slices.Sort(waits)
	t.Logf("healthy deliveries while another subscriber hangs: median %v, max %v",
		waits[len(waits)/2].Round(time.Millisecond), waits[len(waits)-1].Round(time.Millisecond))
}
