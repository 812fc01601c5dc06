// Package testlog keeps what a service logs, for tests of what it logs
// (an outage logged once, a hang-up not logged, a server that says it is
// serving).
package testlog

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// Records is a slog.Handler that keeps every record it is given, from any
// number of goroutines.
type Records struct {
	mu      sync.Mutex
	records []slog.Record
}

// Logger is a logger writing to r.
func (r *Records) Logger() *slog.Logger { return slog.New(r) }

func (r *Records) Enabled(context.Context, slog.Level) bool { return true }
func (r *Records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *Records) WithGroup(string) slog.Handler            { return r }

func (r *Records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec.Clone())
	return nil
}

// Count is how many records at exactly level have a message containing
// text ("" counts them all).
func (r *Records) Count(level slog.Level, text string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rec := range r.records {
		if rec.Level == level && strings.Contains(rec.Message, text) {
			n++
		}
	}
	return n
}

// Lines lists the records at least at level, one line each: the level, the
// message and the attributes.
func (r *Records) Lines(level slog.Level) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.records {
		if rec.Level < level {
			continue
		}
		line := rec.Level.String() + " " + rec.Message
		rec.Attrs(func(a slog.Attr) bool { line += " " + a.String(); return true })
		out = append(out, line)
	}
	return out
}

// String is every record, one line each, for a failing test's message.
func (r *Records) String() string { return strings.Join(r.Lines(slog.LevelDebug), "\n") }
