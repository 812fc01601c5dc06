package events_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"storeadmin/internal/base/database"
	"storeadmin/internal/events"
	"storeadmin/internal/testkit/testlog"
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

// TestWebhookDatabaseOutageLoggedOnce: while the database is unreachable,
// the engine, logging through the outage filter serve uses, logs one WARN,
// not an ERROR per poll, and one INFO when it answers again; then
// deliveries resume.
func TestWebhookDatabaseOutageLoggedOnce(t *testing.T) {
	f := newFixture(t)
	dbURL, err := url.Parse(f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newDBProxy(t, dbURL.Host)
	proxied := *dbURL
	proxied.Host = proxy.addr()
	pdb, err := database.Open(context.Background(), proxied.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pdb.Close() })
	r := newReceiver(t, nil)
	sub := f.subscribe(r.URL, true, "order.refunded")
	logs := &testlog.Records{}
	cfg := fast()
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	cfg.Log = slog.New(database.QuietOutages(ctx, logs, pdb.DB))
	e, err := events.New(pdb, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := e.Stop(ctx); err != nil {
			t.Errorf("stop engine: %v", err)
		}
	})
	f.emit(e, f.refund(1))
	f.settled(sub.ID, 1)

	proxy.cut()
	waitFor(t, "the outage's warning", func() bool { return logs.Count(slog.LevelWarn, "unreachable") == 1 })
	// Poll after poll fails meanwhile (every 20 ms), and the elector's
	// and the maintenance services' loops too.
	time.Sleep(3 * time.Second)
	proxy.restore()
	waitFor(t, "the recovery's line", func() bool { return logs.Count(slog.LevelInfo, "answers again") == 1 })
	f.emit(e, f.refund(2))
	f.settled(sub.ID, 2)

	if n := logs.Count(slog.LevelError, ""); n != 0 {
		t.Fatalf("%d ERROR lines during the outage:\n%s", n, strings.Join(logs.Lines(slog.LevelError), "\n"))
	}
	if n := logs.Count(slog.LevelWarn, ""); n != 1 {
		t.Fatalf("%d WARN lines, want the outage's one:\n%s", n, strings.Join(logs.Lines(slog.LevelWarn), "\n"))
	}
}

// dbProxy forwards loopback connections to PostgreSQL until cut: then it
// drops the connections it carries and every new one, as a database that
// went away would, until restored.
type dbProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
}

func newDBProxy(t *testing.T, target string) *dbProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dbProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *dbProxy) addr() string { return p.ln.Addr().String() }

func (p *dbProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[s] = struct{}{}, struct{}{}
		p.mu.Unlock()
		go pipe(c, s)
		go pipe(s, c)
	}
}

func pipe(dst, src net.Conn) {
	io.Copy(dst, src)
	dst.Close()
	src.Close()
}

func (p *dbProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *dbProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}
