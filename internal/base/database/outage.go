package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unavailable tells whether err says the database cannot be reached or is
// not accepting work right now (stopped, restarting, out of connections),
// as opposed to refusing this particular statement. Such a failure passes
// by itself: clients are asked to retry (503), not told of a bug.
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the caller gave up, whatever the database is doing
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), // connection exception
			pgErr.Code == "57P01", // admin_shutdown
			pgErr.Code == "57P02", // crash_shutdown
			pgErr.Code == "57P03", // cannot_connect_now (starting up)
			pgErr.Code == "53300": // too_many_connections
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	if errors.As(err, &connectErr) || errors.As(err, &netErr) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	return false
}

// QuietOutages wraps a log handler so that an outage of the database is
// logged as two lines, not as an ERROR per request, poll and worker (River's
// producer, elector, maintenance services and completer each poll
// PostgreSQL and each logs every failure).
//
// A WARN-or-worse record starts an outage when its error says the database
// is unreachable (Unavailable), or when the database does not answer a ping
// at that moment: River hands its errors to the log as text, so asking the
// database is what tells an outage from any other error. The outage is
// logged as one WARN; while it lasts every warning and error is dropped (they
// are its symptoms) and counted; a watcher pings db every second and logs
// one INFO when it answers again, with how long it was out and how many
// lines were dropped. The watcher ends with ctx.
func QuietOutages(ctx context.Context, h slog.Handler, db *sql.DB) slog.Handler {
	return &outageHandler{next: h, o: &outage{ctx: ctx, log: slog.New(h), ping: db.PingContext}}
}

type outageHandler struct {
	next slog.Handler
	o    *outage // shared by the handlers WithAttrs and WithGroup derive
}

func (h *outageHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *outageHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &outageHandler{next: h.next.WithAttrs(as), o: h.o}
}

func (h *outageHandler) WithGroup(name string) slog.Handler {
	return &outageHandler{next: h.next.WithGroup(name), o: h.o}
}

func (h *outageHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn && h.o.absorbs(ctx, r) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

// pingTimeout bounds one check of the database; recheckEvery is how often
// it is checked during an outage.
const (
	pingTimeout  = 2 * time.Second
	recheckEvery = time.Second
)

type outage struct {
	ctx  context.Context
	log  *slog.Logger // the wrapped handler: the outage's own two lines
	ping func(context.Context) error

	// mu is held across the first ping, so that loops failing at the same
	// moment wait for one check instead of each making their own.
	mu      sync.Mutex
	down    bool
	since   time.Time
	dropped int
}

// absorbs reports whether r, a warning or error, is a symptom of the
// database being unreachable, and so is not logged. The first one of an
// outage is logged as the outage's WARN.
func (o *outage) absorbs(ctx context.Context, r slog.Record) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.down {
		o.dropped++
		return true
	}
	err := outageError(r)
	if err == nil {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pingTimeout)
		defer cancel()
		if err = o.ping(pctx); err == nil {
			return false
		}
	}
	o.down, o.since, o.dropped = true, time.Now(), 1
	o.log.Warn("the database is unreachable: requests answer 503 and webhook deliveries wait until it answers; "+
		"further warnings and errors are counted, not logged", "error", err.Error(), "first", r.Message)
	go o.watch()
	return true
}

// watch pings the database until it answers, then ends the outage.
func (o *outage) watch() {
	t := time.NewTicker(recheckEvery)
	defer t.Stop()
	for {
		select {
		case <-o.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(o.ctx, pingTimeout)
		err := o.ping(ctx)
		cancel()
		if err == nil {
			o.mu.Lock()
			o.down = false
			o.log.Info("the database answers again",
				"down_for", time.Since(o.since).Round(time.Second).String(), "lines_dropped", o.dropped)
			o.mu.Unlock()
			return
		}
	}
}

// outageError is the error of a record that says the database is
// unreachable, in any attribute holding an error, or nil.
func outageError(r slog.Record) error {
	var found error
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Resolve().Any().(error); ok && Unavailable(err) {
			found = err
		}
		return found == nil
	})
	return found
}
