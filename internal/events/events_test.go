package events_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/webhooks"
	"storeadmin/internal/events"
	"storeadmin/internal/testkit/testdb"
	"storeadmin/models"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// patience bounds every wait: generous, for a loaded two-core machine. The
// tests poll for the state they expect; none sleeps to assert.
const patience = 60 * time.Second

// fast is the engine configuration of the tests: loopback receivers, quick
// retries, quick polling.
func fast() events.Config {
	return events.Config{
		AllowPrivate:      true,
		Backoff:           func(int) time.Duration { return 5 * time.Millisecond },
		FetchPollInterval: 20 * time.Millisecond,
		Timeout:           5 * time.Second,
	}
}

// fixture is one database with a store.
type fixture struct {
	t     *testing.T
	db    *bun.DB
	dsn   string // the database's URL
	store *models.Store
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db, dsn := testdb.New(t)
	s := &models.Store{Handle: "acme", Name: "Acme"}
	if err := models.CreateStore(context.Background(), db, s); err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, db: db, dsn: dsn, store: s}
}

// engine builds an engine on the fixture's database, stopped at the end of
// the test.
func (f *fixture) engine(cfg events.Config) *events.Engine {
	f.t.Helper()
	if testing.Verbose() {
		cfg.Log = slog.New(slog.NewTextHandler(testLog{f.t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	e, err := events.New(f.db, cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := e.Stop(ctx); err != nil {
			f.t.Errorf("stop engine: %v", err)
		}
	})
	return e
}

// started is engine, started.
func (f *fixture) started(cfg events.Config) *events.Engine {
	f.t.Helper()
	e := f.engine(cfg)
	if err := e.Start(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	return e
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// subscribe stores a subscription of the fixture's store straight into the
// database (no URL check: tests point it at loopback).
func (f *fixture) subscribe(url string, active bool, topics ...string) *models.WebhookSubscription {
	f.t.Helper()
	return f.subscribeStore(f.store.ID, url, active, topics...)
}

func (f *fixture) subscribeStore(storeID int64, url string, active bool, topics ...string) *models.WebhookSubscription {
	f.t.Helper()
	w := &models.WebhookSubscription{StoreID: storeID, URL: url, Topics: topics, Active: active, SigningSecret: webhooks.NewSecret()}
	if err := models.CreateWebhook(context.Background(), f.db, w); err != nil {
		f.t.Fatal(err)
	}
	return w
}

// refund is an order.refunded event of the fixture's store.
func (f *fixture) refund(orderID int64) events.Event {
	return events.Event{StoreID: f.store.ID, Topic: "order.refunded", Resource: "order", ResourceID: orderID,
		Data: json.RawMessage(fmt.Sprintf(`{"order": {"id": %d, "total_cents": 4200, "note": "déjà vu <&>"}}`, orderID))}
}

// emit emits ev with e in a transaction it commits and returns the event id.
func (f *fixture) emit(e *events.Engine, ev events.Event) int64 {
	f.t.Helper()
	var id int64
	err := f.db.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		id, err = e.Emit(ctx, tx, ev)
		return err
	})
	if err != nil {
		f.t.Fatalf("emit: %v", err)
	}
	return id
}

// deliveries reads the deliveries of a subscription, oldest first.
func (f *fixture) deliveries(subID int64) []models.WebhookDelivery {
	f.t.Helper()
	var ds []models.WebhookDelivery
	if err := f.db.NewSelect().Model(&ds).Where("subscription_id = ?", subID).Order("id").Scan(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	return ds
}

func (f *fixture) subscription(id int64) *models.WebhookSubscription {
	f.t.Helper()
	w, err := models.GetWebhook(context.Background(), f.db, f.store.ID, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return w
}

// count runs a count query.
func (f *fixture) count(query string, args ...any) int {
	f.t.Helper()
	var n int
	if err := f.db.NewRaw(query, args...).Scan(context.Background(), &n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// jobsSettled reports whether River has finished with every job.
func (f *fixture) jobsSettled() bool {
	return f.count(`SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded')`) == 0
}

// waitFor polls until cond holds, failing the test after patience.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// settled waits until the subscription has n deliveries, none pending.
func (f *fixture) settled(subID int64, n int) []models.WebhookDelivery {
	f.t.Helper()
	var ds []models.WebhookDelivery
	waitFor(f.t, fmt.Sprintf("%d settled deliveries of subscription %d", n, subID), func() bool {
		ds = f.deliveries(subID)
		if len(ds) != n {
			return false
		}
		for _, d := range ds {
			if d.Status == models.DeliveryPending {
				return false
			}
		}
		return true
	})
	return ds
}

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
	at     time.Time
}

// receiver is a subscriber's endpoint on loopback. answer writes the
// answer to the nth request (1 for the first); nil answers 200.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	answer func(n int, w http.ResponseWriter)
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter)) *receiver {
	r := &receiver{answer: answer}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{header: req.Header.Clone(), body: body, at: time.Now()})
		n := len(r.got)
		r.mu.Unlock()
		if r.answer != nil {
			r.answer(n, w)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// verifyShop checks X-Shop-Signature as a receiver would: hex HMAC-SHA256
// keyed with the secret as shown, over "<X-Shop-Timestamp>.<body>", and a
// timestamp of now.
func verifyShop(t *testing.T, secret string, r received) {
	t.Helper()
	ts := r.header.Get("X-Shop-Timestamp")
	checkFresh(t, ts)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(r.body)
	want := hex.EncodeToString(mac.Sum(nil))
	if got := r.header.Get("X-Shop-Signature"); !hmac.Equal([]byte(got), []byte(want)) {
		t.Fatalf("X-Shop-Signature %q does not verify (want %q)", got, want)
	}
}

// verifyStandard checks the Standard Webhooks signature as its libraries
// do: the key is the base64 after "whsec_"; the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>"; webhook-signature lists
// space-separated "v1,<base64>" signatures, one of which must match.
func verifyStandard(t *testing.T, secret string, r received) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatalf("secret %q is not whsec_<base64>: %v", secret, err)
	}
	id, ts := r.header.Get("webhook-id"), r.header.Get("webhook-timestamp")
	checkFresh(t, ts)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(r.body)
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(r.header.Get("webhook-signature")) {
		if version, value, _ := strings.Cut(sig, ","); version == "v1" && hmac.Equal([]byte(value), []byte(want)) {
			return
		}
	}
	t.Fatalf("webhook-signature %q does not verify (want v1,%s)", r.header.Get("webhook-signature"), want)
}

func checkFresh(t *testing.T, ts string) {
	t.Helper()
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		t.Fatalf("timestamp %q is not unix seconds", ts)
	}
	if d := time.Since(time.Unix(sec, 0)); d < -time.Minute || d > 5*time.Minute {
		t.Fatalf("timestamp %s is %v away from now", ts, d)
	}
}

// TestWebhookDeliveredOncePerSubscriptionSigned: an event committed with its change
// reaches each active subscription of its store and topic exactly once,
// with the documented body and headers, signed in both schemes.
func TestWebhookDeliveredOncePerSubscriptionSigned(t *testing.T) {
	f := newFixture(t)
	other := &models.Store{Handle: "bolt", Name: "Bolt"}
	if err := models.CreateStore(context.Background(), f.db, other); err != nil {
		t.Fatal(err)
	}
	r1, r2, never := newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil)
	s1 := f.subscribe(r1.URL+"/hooks", true, "order.paid", "order.refunded")
	s2 := f.subscribe(r2.URL, true, "order.refunded")
	f.subscribe(never.URL+"/other-topic", true, "order.paid")
	f.subscribe(never.URL+"/inactive", false, "order.refunded")
	f.subscribeStore(other.ID, never.URL+"/other-store", true, "order.refunded")
	e := f.started(fast())

	ev := f.refund(77)
	id := f.emit(e, ev)
	ds1, ds2 := f.settled(s1.ID, 1), f.settled(s2.ID, 1)
	waitFor(t, "River to finish", f.jobsSettled)

	var stored string
	if err := f.db.NewRaw(`SELECT payload::text FROM events WHERE id = ?`, id).Scan(context.Background(), &stored); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r   *receiver
		sub *models.WebhookSubscription
		d   models.WebhookDelivery
	}{{r1, s1, ds1[0]}, {r2, s2, ds2[0]}} {
		want := models.WebhookDelivery{ID: c.d.ID, StoreID: f.store.ID, SubscriptionID: c.sub.ID, EventID: id, Topic: "order.refunded",
			Status: models.DeliverySucceeded, Attempts: 1, LastStatusCode: 200, CreatedAt: c.d.CreatedAt, UpdatedAt: c.d.UpdatedAt}
		if c.d != want {
			t.Fatalf("delivery:\n got  %+v\n want %+v", c.d, want)
		}
		got := c.r.requests()
		if len(got) != 1 {
			t.Fatalf("%s got %d requests, want 1", c.sub.URL, len(got))
		}
		req := got[0]
		for h, v := range map[string]string{
			"Content-Type": "application/json", "User-Agent": "storeadmin-webhooks/1",
			"X-Shop-Topic": "order.refunded", "X-Shop-Event-Id": strconv.FormatInt(id, 10),
			"X-Shop-Delivery-Id": strconv.FormatInt(c.d.ID, 10), "webhook-id": "evt_" + strconv.FormatInt(id, 10),
		} {
			if req.header.Get(h) != v {
				t.Fatalf("%s: %q, want %q", h, req.header.Get(h), v)
			}
		}
		if req.header.Get("X-Shop-Timestamp") != req.header.Get("webhook-timestamp") {
			t.Fatal("the two timestamps differ")
		}
		verifyShop(t, c.sub.SigningSecret, req)
		verifyStandard(t, c.sub.SigningSecret, req)
		if string(req.body) != stored {
			t.Fatalf("body %s is not the stored payload %s", req.body, stored)
		}
		checkBody(t, req.body, id, f.store.ID, ev)
	}
	if n := len(never.requests()); n != 0 {
		t.Fatalf("%d requests reached subscriptions of another topic, store, or inactive", n)
	}
	if n := f.count(`SELECT count(*) FROM webhook_deliveries`); n != 2 {
		t.Fatalf("%d deliveries, want 2", n)
	}
}

// checkBody checks the documented body: id, topic, created_at, store_id and
// the event's data.
func checkBody(t *testing.T, body []byte, id, storeID int64, ev events.Event) {
	t.Helper()
	var b struct {
		ID        int64           `json:"id"`
		Topic     string          `json:"topic"`
		CreatedAt string          `json:"created_at"`
		StoreID   int64           `json:"store_id"`
		Data      json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	var keys map[string]any
	json.Unmarshal(body, &keys)
	if len(keys) != 5 {
		t.Fatalf("body has keys %v, want id, topic, created_at, store_id, data", keys)
	}
	at, err := time.Parse(time.RFC3339, b.CreatedAt)
	if err != nil || !strings.HasSuffix(b.CreatedAt, "Z") || time.Since(at) > 5*time.Minute {
		t.Fatalf("created_at %q is not a recent RFC 3339 UTC time (%v)", b.CreatedAt, err)
	}
	if b.ID != id || b.Topic != ev.Topic || b.StoreID != storeID {
		t.Fatalf("body %s: want id %d, topic %s, store_id %d", body, id, ev.Topic, storeID)
	}
	var got, want any
	json.Unmarshal(b.Data, &got)
	json.Unmarshal(ev.Data, &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("data %s, want %s", b.Data, ev.Data)
	}
}

// TestWebhookRolledBackEmitDeliversNothing: an event emitted in a transaction that
// rolls back leaves no event, delivery or job, and is never sent.
func TestWebhookRolledBackEmitDeliversNothing(t *testing.T) {
	f := newFixture(t)
	r := newReceiver(t, nil)
	sub := f.subscribe(r.URL, true, "order.refunded")
	e := f.started(fast())

	tx, err := f.db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Emit(context.Background(), tx, f.refund(1)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	// A committed event after it: once that one is delivered, the workers
	// have looked at everything there is.
	marker := f.emit(e, f.refund(2))
	f.settled(sub.ID, 1)
	waitFor(t, "River to finish", f.jobsSettled)

	got := r.requests()
	if len(got) != 1 || got[0].header.Get("X-Shop-Event-Id") != strconv.FormatInt(marker, 10) {
		t.Fatalf("%d requests; want only the committed event %d", len(got), marker)
	}
	if n := f.count(`SELECT count(*) FROM events`); n != 1 {
		t.Fatalf("%d events stored, want 1", n)
	}
	if n := f.count(`SELECT count(*) FROM river_job`); n != 1 {
		t.Fatalf("%d River jobs, want 1", n)
	}
}

// TestWebhookRetriedUntilSuccess: a receiver answering 500, 500, then 200 gets the
// same signed bytes three times; the delivery records three attempts and
// the success, and the subscription's failure streak ends.
func TestWebhookRetriedUntilSuccess(t *testing.T) {
	f := newFixture(t)
	r := newReceiver(t, func(n int, w http.ResponseWriter) {
		if n < 3 {
			http.Error(w, "database\nis down", http.StatusInternalServerError)
		}
	})
	sub := f.subscribe(r.URL, true, "order.refunded")
	e := f.started(fast())
	f.emit(e, f.refund(5))

	d := f.settled(sub.ID, 1)[0]
	if d.Status != models.DeliverySucceeded || d.Attempts != 3 || d.LastStatusCode != 200 || d.LastError != "" {
		t.Fatalf("delivery after 500, 500, 200: %+v", d)
	}
	got := r.requests()
	if len(got) != 3 {
		t.Fatalf("%d requests, want 3", len(got))
	}
	for _, req := range got {
		if string(req.body) != string(got[0].body) || req.header.Get("webhook-id") != got[0].header.Get("webhook-id") {
			t.Fatal("a retry sent other bytes or another webhook-id")
		}
		verifyShop(t, sub.SigningSecret, req)
		verifyStandard(t, sub.SigningSecret, req)
	}
	if s := f.subscription(sub.ID); !s.Active || s.FailingSince != nil || s.PausedAt != nil {
		t.Fatalf("subscription after a success: active %v, failing since %v, paused at %v", s.Active, s.FailingSince, s.PausedAt)
	}
}

// TestWebhookExhaustedAttemptsPauseSubscription: a receiver that always fails gets
// MaxAttempts tries per delivery; the delivery fails with the last answer,
// the subscription is paused, its other deliveries are failed, and later
// events are no longer delivered to it.
func TestWebhookExhaustedAttemptsPauseSubscription(t *testing.T) {
	f := newFixture(t)
	r := newReceiver(t, func(_ int, w http.ResponseWriter) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	sub := f.subscribe(r.URL, true, "order.refunded")
	cfg := fast()
	cfg.MaxAttempts = 3
	e := f.started(cfg)
	f.emit(e, f.refund(1))
	f.emit(e, f.refund(2))

	ds := f.settled(sub.ID, 2)
	exhausted := 0
	for _, d := range ds {
		switch {
		case d.Status != models.DeliveryFailed:
			t.Fatalf("delivery %+v, want failed", d)
		case d.Attempts == 3 && d.LastStatusCode == 500 && d.LastError == "HTTP 500: boom":
			exhausted++
		case d.Attempts < 3 && (d.LastError == "HTTP 500: boom" ||
			strings.HasPrefix(d.LastError, "not sent: the subscription was paused because a delivery failed all its attempts")):
			// pending, or being sent, when the other one paused the subscription
		default:
			t.Fatalf("delivery %+v: neither exhausted nor failed by the pause", d)
		}
	}
	if exhausted == 0 {
		t.Fatalf("no delivery exhausted its attempts: %+v", ds)
	}
	s := f.subscription(sub.ID)
	if s.Active || s.PausedAt == nil || s.FailingSince == nil {
		t.Fatalf("subscription: active %v, paused at %v, failing since %v; want paused", s.Active, s.PausedAt, s.FailingSince)
	}
	waitFor(t, "River to finish", f.jobsSettled)
	if n := len(r.requests()); n < 3 || n > 6 {
		t.Fatalf("%d requests for two deliveries of at most 3 attempts", n)
	}

	// Paused: a new event is not scheduled for it.
	f.emit(e, f.refund(3))
	if n := len(f.deliveries(sub.ID)); n != 2 {
		t.Fatalf("a paused subscription got delivery %d", n)
	}
	// Turned back on, it starts afresh.
	s.Active = true
	if err := models.UpdateWebhook(context.Background(), f.db, s); err != nil {
		t.Fatal(err)
	}
	if s := f.subscription(sub.ID); !s.Active || s.PausedAt != nil || s.FailingSince != nil {
		t.Fatalf("re-enabled subscription: active %v, paused at %v, failing since %v", s.Active, s.PausedAt, s.FailingSince)
	}
}

// TestWebhookLongFailureStreakPauses: a subscription whose failures began more
// than PauseAfter ago is paused by its next failure, without waiting for
// the delivery's last attempt, and its pending deliveries are failed.
func TestWebhookLongFailureStreakPauses(t *testing.T) {
	f := newFixture(t)
	r := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) })
	sub := f.subscribe(r.URL, true, "order.refunded")
	ctx := context.Background()
	if _, err := f.db.NewRaw(`UPDATE webhook_subscriptions SET failing_since = now() - interval '25 hours' WHERE id = ?`, sub.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// A delivery waiting without a job: only the pause can settle it.
	waiting := &models.Event{StoreID: f.store.ID, Topic: "order.refunded", Resource: "order", ResourceID: 9}
	if err := models.InsertEvent(ctx, f.db, waiting, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := models.CreateDeliveries(ctx, f.db, waiting); err != nil {
		t.Fatal(err)
	}
	e := f.started(fast())
	f.emit(e, f.refund(10))

	ds := f.settled(sub.ID, 2)
	if d := ds[0]; d.Attempts != 0 || d.LastError != "not sent: the subscription was paused because no delivery has succeeded for 25h" {
		t.Fatalf("waiting delivery: %+v", d)
	}
	if d := ds[1]; d.Attempts != 1 || d.LastStatusCode != 503 || d.LastError != "HTTP 503" {
		t.Fatalf("failing delivery: %+v", d)
	}
	if s := f.subscription(sub.ID); s.Active || s.PausedAt == nil {
		t.Fatal("subscription not paused")
	}
	waitFor(t, "River to finish", f.jobsSettled)
	if n := len(r.requests()); n != 1 {
		t.Fatalf("%d requests after the pause, want 1", n)
	}
}

// TestWebhookNothingLostWithoutWorkers: an engine that is never started still
// records events; a fresh engine started later (another process, say)
// delivers them.
func TestWebhookNothingLostWithoutWorkers(t *testing.T) {
	f := newFixture(t)
	r := newReceiver(t, nil)
	sub := f.subscribe(r.URL, true, "order.refunded")
	idle := f.engine(fast())
	id := f.emit(idle, f.refund(3))
	if n := f.count(`SELECT count(*) FROM river_job WHERE state = 'available'`); n != 1 {
		t.Fatalf("%d jobs waiting, want 1", n)
	}
	if err := idle.Stop(context.Background()); err != nil {
		t.Fatalf("stopping an engine never started: %v", err)
	}

	f.started(fast())
	d := f.settled(sub.ID, 1)[0]
	if d.Status != models.DeliverySucceeded || d.EventID != id {
		t.Fatalf("delivery: %+v", d)
	}
	if got := r.requests(); len(got) != 1 || got[0].header.Get("X-Shop-Event-Id") != strconv.FormatInt(id, 10) {
		t.Fatalf("requests: %d", len(got))
	}
}

// TestWebhookSubscriptionReadWhenSent: a subscription deleted before its delivery
// runs drops it; one turned off fails it without a request or retry.
func TestWebhookSubscriptionReadWhenSent(t *testing.T) {
	f := newFixture(t)
	r := newReceiver(t, nil)
	gone := f.subscribe(r.URL+"/gone", true, "order.refunded")
	off := f.subscribe(r.URL+"/off", true, "order.refunded")
	idle := f.engine(fast())
	f.emit(idle, f.refund(4))

	ctx := context.Background()
	if err := models.DeleteWebhook(ctx, f.db, f.store.ID, gone.ID); err != nil {
		t.Fatal(err)
	}
	off.Active = false
	if err := models.UpdateWebhook(ctx, f.db, off); err != nil {
		t.Fatal(err)
	}
	f.started(fast())
	waitFor(t, "River to finish", f.jobsSettled)

	d := f.settled(off.ID, 1)[0]
	if d.Status != models.DeliveryFailed || d.Attempts != 0 || d.LastError != "not sent: the subscription is inactive" {
		t.Fatalf("delivery of an inactive subscription: %+v", d)
	}
	if n := len(r.requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	if n := f.count(`SELECT count(*) FROM river_job WHERE state = 'completed'`); n != 2 {
		t.Fatalf("%d jobs completed, want 2 (no retries)", n)
	}
}

// TestWebhookRedirectNotFollowed: a 3xx is the answer, and a failure; its target
// is never requested.
func TestWebhookRedirectNotFollowed(t *testing.T) {
	f := newFixture(t)
	target := newReceiver(t, nil)
	r := newReceiver(t, func(_ int, w http.ResponseWriter) {
		w.Header().Set("Location", target.URL+"/elsewhere")
		w.WriteHeader(http.StatusFound)
	})
	sub := f.subscribe(r.URL, true, "order.refunded")
	cfg := fast()
	cfg.MaxAttempts = 1
	e := f.started(cfg)
	f.emit(e, f.refund(6))

	d := f.settled(sub.ID, 1)[0]
	want := "HTTP 302: redirects are not followed (Location: " + target.URL + "/elsewhere)"
	if d.Status != models.DeliveryFailed || d.LastStatusCode != 302 || d.LastError != want {
		t.Fatalf("delivery: %+v; want last_error %q", d, want)
	}
	if n := len(target.requests()); n != 0 {
		t.Fatalf("the redirect was followed (%d requests)", n)
	}
}

// TestWebhookPrivateTargetRefusedAtDial: without AllowPrivate, a subscription
// whose address is (or whose name resolves to) loopback is refused when
// dialling, so no request is made, whatever the URL check let through.
func TestWebhookPrivateTargetRefusedAtDial(t *testing.T) {
	f := newFixture(t)
	r := newReceiver(t, nil)
	port := r.Listener.Addr().(*net.TCPAddr).Port
	literal := f.subscribe(fmt.Sprintf("http://127.0.0.1:%d/", port), true, "order.refunded")
	named := f.subscribe(fmt.Sprintf("http://localhost:%d/", port), true, "order.refunded")
	cfg := fast()
	cfg.AllowPrivate = false
	cfg.MaxAttempts = 1
	e := f.started(cfg)
	f.emit(e, f.refund(7))

	refused := regexp.MustCompile(`^target address (127\.0\.0\.1|::1) is private$`)
	for _, sub := range []*models.WebhookSubscription{literal, named} {
		d := f.settled(sub.ID, 1)[0]
		if d.Status != models.DeliveryFailed || d.LastStatusCode != 0 || !refused.MatchString(d.LastError) {
			t.Fatalf("delivery to %s: %+v", sub.URL, d)
		}
	}
	if n := len(r.requests()); n != 0 {
		t.Fatalf("%d requests reached a loopback target", n)
	}
}

// TestWebhookAnswerReadIsBounded: an answer that never ends does not hold a
// worker (a 200 still counts), and a failure's body is cut to a snippet.
func TestWebhookAnswerReadIsBounded(t *testing.T) {
	f := newFixture(t)
	written := make(chan int64, 1)
	endless := newReceiver(t, func(_ int, w http.ResponseWriter) {
		w.WriteHeader(http.StatusOK)
		chunk := []byte(strings.Repeat("x", 32<<10))
		var n int64
		for {
			if _, err := w.Write(chunk); err != nil {
				written <- n // the sender hung up
				return
			}
			n += int64(len(chunk))
		}
	})
	huge := newReceiver(t, func(_ int, w http.ResponseWriter) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(strings.Repeat("e", 1<<20)))
	})
	s1 := f.subscribe(endless.URL, true, "order.refunded")
	s2 := f.subscribe(huge.URL, true, "order.refunded")
	cfg := fast()
	cfg.MaxAttempts = 1
	cfg.Timeout = 30 * time.Second // reading the endless answer to its end would time out
	e := f.started(cfg)
	f.emit(e, f.refund(8))

	if d := f.settled(s1.ID, 1)[0]; d.Status != models.DeliverySucceeded || d.LastStatusCode != 200 {
		t.Fatalf("delivery to an endless answer: %+v", d)
	}
	// The sender hangs up after 64 KiB; what the receiver wrote beyond that
	// sat in socket buffers (a few MiB at most). Reading on would take
	// gigabytes until the timeout.
	select {
	case n := <-written:
		if n > 64<<20 {
			t.Fatalf("the receiver wrote %d MiB before the sender hung up", n>>20)
		}
	case <-time.After(patience):
		t.Fatal("the sender never hung up on an endless answer")
	}
	d := f.settled(s2.ID, 1)[0]
	if d.LastStatusCode != 400 || !strings.HasPrefix(d.LastError, "HTTP 400: eee") || len(d.LastError) > 220 {
		t.Fatalf("delivery to a huge failure (%d bytes of last_error): %.80s", len(d.LastError), d.LastError)
	}
}

// TestWebhookEmitRefusesBadEvents: events the code should never emit are errors.
func TestWebhookEmitRefusesBadEvents(t *testing.T) {
	f := newFixture(t)
	e := f.engine(fast())
	good := f.refund(1)
	for name, ev := range map[string]events.Event{
		"unknown topic": {StoreID: good.StoreID, Topic: "order.exploded", Resource: "order", ResourceID: 1, Data: good.Data},
		"no store":      {Topic: good.Topic, Resource: "order", ResourceID: 1, Data: good.Data},
		"no resource":   {StoreID: good.StoreID, Topic: good.Topic, Data: good.Data},
		"bad data":      {StoreID: good.StoreID, Topic: good.Topic, Resource: "order", ResourceID: 1, Data: json.RawMessage(`{"order":`)},
	} {
		err := f.db.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
			_, err := e.Emit(ctx, tx, ev)
			return err
		})
		if err == nil {
			t.Fatalf("%s: emitted", name)
		}
	}
}

// TestWebhookDefaultBackoff: the documented schedule, ±25%, about a day in all.
func TestWebhookDefaultBackoff(t *testing.T) {
	schedule := []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 8 * time.Hour}
	if events.DefaultMaxAttempts != len(schedule)+1 {
		t.Fatalf("DefaultMaxAttempts = %d, want %d", events.DefaultMaxAttempts, len(schedule)+1)
	}
	var total time.Duration
	for i, step := range schedule {
		total += step
		for range 200 {
			if d := events.DefaultBackoff(i + 1); d < step*3/4 || d > step*5/4 {
				t.Fatalf("wait after attempt %d: %v, want %v ±25%%", i+1, d, step)
			}
		}
	}
	if total < 20*time.Hour || total > 26*time.Hour {
		t.Fatalf("the schedule spans %v, want about a day", total)
	}
	if d := events.DefaultBackoff(50); d < 6*time.Hour || d > 10*time.Hour {
		t.Fatalf("wait after attempt 50: %v", d)
	}
}

// BenchmarkEmit: recording an event for three subscriptions, in its own
// committed transaction.
func BenchmarkEmit(b *testing.B) {
	db, _ := testdb.New(b)
	ctx := context.Background()
	s := &models.Store{Handle: "bench", Name: "Bench"}
	if err := models.CreateStore(ctx, db, s); err != nil {
		b.Fatal(err)
	}
	for i := range 3 {
		w := &models.WebhookSubscription{StoreID: s.ID, URL: "https://example.com/" + strconv.Itoa(i), Topics: []string{"order.refunded"}, Active: true, SigningSecret: webhooks.NewSecret()}
		if err := models.CreateWebhook(ctx, db, w); err != nil {
			b.Fatal(err)
		}
	}
	e, err := events.New(db, events.Config{})
	if err != nil {
		b.Fatal(err)
	}
	ev := events.Event{StoreID: s.ID, Topic: "order.refunded", Resource: "order", ResourceID: 1, Data: json.RawMessage(`{"order": {"id": 1}}`)}
	for b.Loop() {
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			_, err := e.Emit(ctx, tx, ev)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
