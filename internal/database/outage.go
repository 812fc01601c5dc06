package database

import (
	"context"
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
	// River and pgx sometimes hand over only the text.
	return unavailableText(err.Error())
}

// unavailableTexts are what the errors of an unreachable server say.
var unavailableTexts = []string{
	"connection refused", "failed to connect", "bad connection", "conn closed", "broken pipe",
	"connection reset", "the database system is", "SQLSTATE 57P0", "SQLSTATE 08",
	"terminating connection", "server closed the connection",
}

func unavailableText(s string) bool {
	for _, t := range unavailableTexts {
		if strings.Contains(s, t) {
			return true
		}
	}
	return false
}

// QuietOutages wraps a log handler so that an outage of the database is
// logged once, not once per request, poll and worker: the first record at
// WARN or above whose error says the database is unreachable is logged as a
// WARN, the others of the same outage are dropped, and when none has come
// for quiet, one INFO line says how many were.
func QuietOutages(h slog.Handler, quiet time.Duration) slog.Handler {
	return &outageHandler{next: h, state: &outageState{quiet: quiet, next: h}}
}

type outageHandler struct {
	next  slog.Handler
	state *outageState // shared by the handlers WithAttrs and WithGroup derive
}

type outageState struct {
	quiet time.Duration
	next  slog.Handler

	mu         sync.Mutex
	down       bool
	suppressed int
	last       time.Time
	timer      *time.Timer
}

func (h *outageHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *outageHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &outageHandler{next: h.next.WithAttrs(as), state: h.state}
}

func (h *outageHandler) WithGroup(name string) slog.Handler {
	return &outageHandler{next: h.next.WithGroup(name), state: h.state}
}

func (h *outageHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn || !outageRecord(r) {
		return h.next.Handle(ctx, r)
	}
	if !h.state.report() {
		return nil
	}
	w := slog.NewRecord(r.Time, slog.LevelWarn, "database unavailable: "+r.Message+
		" (further database errors are not logged until it answers again)", r.PC)
	r.Attrs(func(a slog.Attr) bool { w.AddAttrs(a); return true })
	return h.next.Handle(ctx, w)
}

// report counts one outage error and tells whether it is the first.
func (s *outageState) report() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = time.Now()
	if s.down {
		s.suppressed++
		return false
	}
	s.down, s.suppressed = true, 0
	s.timer = time.AfterFunc(s.quiet, s.check)
	return true
}

// check ends the outage once no error has come for quiet.
func (s *outageState) check() {
	s.mu.Lock()
	if wait := s.quiet - time.Since(s.last); wait > 0 {
		s.timer.Reset(wait)
		s.mu.Unlock()
		return
	}
	n := s.suppressed
	s.down = false
	s.mu.Unlock()
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "database errors stopped", 0)
	r.AddAttrs(slog.Int("suppressed", n))
	s.next.Handle(context.Background(), r) //nolint:errcheck // nowhere to report a failing log
}

// outageRecord tells whether a record reports an unreachable database, in
// any attribute holding an error (or an error's text).
func outageRecord(r slog.Record) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		v := a.Value.Resolve()
		switch v.Kind() {
		case slog.KindAny:
			if err, ok := v.Any().(error); ok && Unavailable(err) {
				found = true
			}
		case slog.KindString:
			if k := a.Key; (k == "err" || k == "error") && unavailableText(v.String()) {
				found = true
			}
		}
		return !found
	})
	return found || unavailableText(r.Message)
}
