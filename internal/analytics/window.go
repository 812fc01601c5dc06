package analytics

import (
	"slices"
	"strings"
	"time"

	"storeadmin/internal/base/apperr"
)

// Intervals a series may be bucketed by.
const (
	Hour  = "hour"
	Day   = "day"
	Week  = "week" // starting Monday (ISO 8601)
	Month = "month"
)

// Intervals lists them, finest first.
var Intervals = []string{Hour, Day, Week, Month}

// Window lengths: the default window is the last DefaultDays days up to
// today included; a window is at most MaxDays long, MaxHourDays when
// bucketed by the hour (744 points).
const (
	DefaultDays = 30
	MaxDays     = 731
	MaxHourDays = 31
)

// Slot is the grain of the rollups: every time zone in use is a whole number
// of quarter hours from UTC, so the local hours, days, weeks and months of
// any store are made of whole slots, and a window given in dates is read
// from the rollups alone.
const Slot = 15 * time.Minute

// Span is the instants [From, To).
type Span struct {
	From, To time.Time
}

// Empty says whether s holds no instant.
func (s Span) Empty() bool { return !s.From.Before(s.To) }

// Window is what a report reads: the instants [From, To) in the store's
// time zone, bucketed by Interval.
type Window struct {
	Span
	Interval string
	Loc      *time.Location
}

// WindowArgs is a report's window as a client asked for it: from and to
// are dates (YYYY-MM-DD, to included) or date-times (RFC 3339, or without
// an offset in the store's time zone; to excluded).
type WindowArgs struct {
	From, To, Interval *string
}

// ParseWindow checks args into a window of the store's time zone, today
// being the day of now there. A bad date, an empty or reversed window, an
// unknown interval or a window over its interval's bound is a 400 naming
// the argument.
func ParseWindow(args WindowArgs, now time.Time, loc *time.Location) (Window, error) {
	if loc == nil {
		loc = time.UTC
	}
	now = now.In(loc)
	w := Window{Interval: Day, Loc: loc}
	if args.Interval != nil {
		if !slices.Contains(Intervals, *args.Interval) {
			return w, apperr.InvalidField("interval", "must be one of %s, not %q", strings.Join(Intervals, ", "), *args.Interval)
		}
		w.Interval = *args.Interval
	}
	today := midnight(now)
	w.To = today.AddDate(0, 0, 1)
	if args.To != nil {
		t, isDate, err := parseInstant("to", *args.To, loc)
		if err != nil {
			return w, err
		}
		if w.To = t; isDate {
			w.To = t.AddDate(0, 0, 1)
		}
	}
	w.From = midnight(w.To.Add(-time.Nanosecond)).AddDate(0, 0, 1-DefaultDays)
	if args.From != nil {
		t, _, err := parseInstant("from", *args.From, loc)
		if err != nil {
			return w, err
		}
		w.From = t
	}
	if !w.From.Before(w.To) {
		return w, apperr.InvalidField("from", "must be before to (%s is not before %s)", w.From.Format(time.RFC3339), w.To.Format(time.RFC3339))
	}
	limit := MaxDays
	if w.Interval == Hour {
		limit = MaxHourDays
	}
	if w.To.After(w.From.AddDate(0, 0, limit)) {
		return w, apperr.InvalidField("from", "the window is too long: at most %d days by %s, and %s to %s is more", limit, w.Interval,
			w.From.Format(time.RFC3339), w.To.Format(time.RFC3339))
	}
	return w, nil
}

// parseInstant reads a date (its midnight in loc) or a date-time.
func parseInstant(field, v string, loc *time.Location) (t time.Time, isDate bool, err error) {
	if t, err := time.ParseInLocation(time.DateOnly, v, loc); err == nil {
		return t, true, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.In(loc), false, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t, false, nil
		}
	}
	return time.Time{}, false, apperr.InvalidField(field, "must be a date such as 2026-11-01 or a date-time such as 2026-11-01T09:00:00Z, not %q", v)
}

// midnight is the start of t's day in its location (not always 00:00: a
// day may begin at 01:00 where clocks spring forward at midnight).
func midnight(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// Previous is the window of the same length just before w, bucketed alike:
// the same number of calendar days when w is whole days (a DST change makes
// them differ in hours), else the same duration.
func (w Window) Previous() Window {
	p := w
	if days, ok := w.wholeDays(); ok {
		p.From, p.To = w.From.AddDate(0, 0, -days), w.From
		return p
	}
	p.From, p.To = w.From.Add(-w.To.Sub(w.From)), w.From
	return p
}

// wholeDays is the number of local days w covers when it runs from a
// midnight to a midnight.
func (w Window) wholeDays() (int, bool) {
	from, to := w.From.In(w.Loc), w.To.In(w.Loc)
	if !midnight(from).Equal(from) || !midnight(to).Equal(to) {
		return 0, false
	}
	days := 0
	for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
		days++
	}
	return days, true
}

// Bucket is one point of a series: the instants of its interval that are
// in the window, and its label.
type Bucket struct {
	Span
	// Label is the bucket's start as the series shows it: YYYY-MM-DD for a
	// day, week or month; RFC 3339 with the offset for an hour, so the two
	// 01:00 of a night clocks fall back are told apart.
	Label string
}

// Buckets are w's buckets in order, every one of them (a report answers a
// point for each, zeros included); the first and last are cut to the
// window.
func (w Window) Buckets() []Bucket {
	var out []Bucket
	for start := w.bucketStart(w.From.In(w.Loc)); start.Before(w.To); {
		next := w.next(start)
		b := Bucket{Span: Span{From: maxTime(start, w.From), To: minTime(next, w.To)}, Label: w.label(start)}
		out = append(out, b)
		start = next
	}
	return out
}

// BucketOf is the index in Buckets of the bucket t falls in; t must be in w.
// buckets must be w.Buckets().
func BucketOf(buckets []Bucket, t time.Time) int {
	i, _ := slices.BinarySearchFunc(buckets, t, func(b Bucket, t time.Time) int {
		switch {
		case !b.To.After(t):
			return -1
		case b.From.After(t):
			return 1
		}
		return 0
	})
	return i
}

// bucketStart is the start of the bucket t is in.
func (w Window) bucketStart(t time.Time) time.Time {
	switch w.Interval {
	case Hour:
		return t.Truncate(time.Hour).Add(hourOffset(t))
	case Week:
		d := midnight(t)
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	case Month:
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, t.Location())
	}
	return midnight(t)
}

// hourOffset moves a UTC hour boundary to the local one, for zones a half or
// quarter hour from UTC: Truncate works on absolute time.
func hourOffset(t time.Time) time.Duration {
	_, off := t.Zone()
	d := time.Duration(off) * time.Second % time.Hour
	if d < 0 {
		d += time.Hour
	}
	if t.Truncate(time.Hour).Add(d).After(t) {
		d -= time.Hour
	}
	return d
}

// next is the start of the bucket after the one starting at start.
func (w Window) next(start time.Time) time.Time {
	switch w.Interval {
	case Hour:
		return start.Add(time.Hour)
	case Week:
		return start.AddDate(0, 0, 7)
	case Month:
		return start.AddDate(0, 1, 0)
	}
	return start.AddDate(0, 0, 1)
}

func (w Window) label(start time.Time) string {
	if w.Interval == Hour {
		return start.Format(time.RFC3339)
	}
	return start.Format(time.DateOnly)
}

// Split cuts the window into what whole rollup slots cover, read from the
// rollups, and the edges before and after it (empty for a window of dates),
// read from the raw rows.
func (s Span) Split() (inner Span, edges []Span) {
	inner = Span{From: ceilSlot(s.From), To: s.To.Truncate(Slot)}
	if !inner.From.Before(inner.To) {
		return Span{From: s.From, To: s.From}, []Span{s}
	}
	if s.From.Before(inner.From) {
		edges = append(edges, Span{From: s.From, To: inner.From})
	}
	if inner.To.Before(s.To) {
		edges = append(edges, Span{From: inner.To, To: s.To})
	}
	return inner, edges
}

// SlotOf is the start of the rollup slot t is in.
func SlotOf(t time.Time) time.Time { return t.UTC().Truncate(Slot) }

func ceilSlot(t time.Time) time.Time {
	if c := t.Truncate(Slot); !c.Equal(t) {
		return c.Add(Slot)
	}
	return t
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// FormatTime is how a report shows an instant: RFC 3339 in the store's time
// zone.
func (w Window) FormatTime(t time.Time) string { return t.In(w.Loc).Format(time.RFC3339) }
