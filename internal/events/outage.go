package events

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// River logs through outageLog. Each of River's loops that polls PostgreSQL
// (the producer every FetchPollInterval, the elector, every maintenance
// service, the completer) logs an ERROR each time the database cannot be
// reached, so a database down for a minute wrote thousands of lines. While
// the database answers, River's messages pass unchanged. A WARN or ERROR
// from River when the database does not answer a ping starts an outage: one
// WARN line says so, River's warnings and errors are dropped while it
// lasts (they are its symptoms), and one INFO line says when the database
// answers again and how many were dropped.
//
// Asking the database, rather than matching River's error text, is what
// tells an outage from any other error: River hands its errors to the
// logger as strings.
type outageLog struct {
	next   slog.Handler
	outage *outage
}

func (h *outageLog) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h *outageLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn && h.outage.absorbs(ctx, r) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h *outageLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &outageLog{next: h.next.WithAttrs(attrs), outage: h.outage}
}

func (h *outageLog) WithGroup(name string) slog.Handler {
	return &outageLog{next: h.next.WithGroup(name), outage: h.outage}
}

// pingTimeout bounds one check of the database; recheckEvery is how often
// it is checked during an outage.
const (
	pingTimeout  = 2 * time.Second
	recheckEvery = time.Second
)

// outage is the state outageLog shares among its derived handlers: whether
// the database is down, since when, and how many of River's messages were
// dropped since.
type outage struct {
	log  *slog.Logger // the engine's logger, unwrapped: our own two lines
	ping func(context.Context) error
	done chan struct{}
	once sync.Once

	// mu is held across the first ping, so that River's loops failing at
	// the same moment wait for one check instead of each making their own.
	mu      sync.Mutex
	down    bool
	since   time.Time
	dropped int
}

func newOutage(log *slog.Logger, ping func(context.Context) error) *outage {
	return &outage{log: log, ping: ping, done: make(chan struct{})}
}

// absorbs reports whether r, a warning or error from River, is a symptom of
// the database being unreachable, and so is not logged. The first one of an
// outage is logged as the outage's WARN.
func (o *outage) absorbs(ctx context.Context, r slog.Record) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.down {
		o.dropped++
		return true
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pingTimeout)
	defer cancel()
	err := o.ping(ctx)
	if err == nil {
		return false
	}
	o.down, o.since, o.dropped = true, time.Now(), 1
	o.log.Warn("webhook engine: the database is unreachable; deliveries wait until it answers",
		"error", err.Error(), "river", r.Message)
	go o.watch()
	return true
}

// watch pings the database until it answers, then ends the outage.
func (o *outage) watch() {
	t := time.NewTicker(recheckEvery)
	defer t.Stop()
	for {
		select {
		case <-o.done:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
		err := o.ping(ctx)
		cancel()
		if err == nil {
			o.mu.Lock()
			o.down = false
			o.log.Info("webhook engine: the database answers again",
				"down_for", time.Since(o.since).Round(time.Second).String(), "river_messages_dropped", o.dropped)
			o.mu.Unlock()
			return
		}
	}
}

// stop ends the watch of an outage in progress (the engine is stopping).
func (o *outage) stop() { o.once.Do(func() { close(o.done) }) }
