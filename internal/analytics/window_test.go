package analytics

import (
	"testing"
	"time"

	"storeadmin/internal/base/apperr"
)

func str(s string) *string { return &s }

// TestWindowDaysAreLocal: a window of dates runs from the first day's
// local midnight to the midnight after the last, a DST day has 23 or 25
// hours, and a day series has a point for every day.
func TestWindowDaysAreLocal(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	w, err := ParseWindow(WindowArgs{From: str("2026-10-24"), To: str("2026-10-26")}, now, berlin)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.From.UTC(); !got.Equal(time.Date(2026, 10, 23, 22, 0, 0, 0, time.UTC)) {
		t.Errorf("from %s", got)
	}
	if got := w.To.UTC(); !got.Equal(time.Date(2026, 10, 26, 23, 0, 0, 0, time.UTC)) {
		t.Errorf("to %s", got)
	}
	b := w.Buckets()
	if len(b) != 3 || b[1].Label != "2026-10-25" || b[1].To.Sub(b[1].From) != 25*time.Hour {
		t.Fatalf("buckets %+v", b)
	}
	p := w.Previous()
	if !p.To.Equal(w.From) || p.From.In(berlin).Format(time.DateTime) != "2026-10-21 00:00:00" {
		t.Errorf("previous %s..%s", p.From.In(berlin), p.To.In(berlin))
	}
	h, err := ParseWindow(WindowArgs{From: str("2026-10-25"), To: str("2026-10-25"), Interval: str(Hour)}, now, berlin)
	if err != nil {
		t.Fatal(err)
	}
	hb := h.Buckets()
	if len(hb) != 25 || hb[2].Label != "2026-10-25T02:00:00+02:00" || hb[3].Label != "2026-10-25T02:00:00+01:00" {
		t.Fatalf("%d hour buckets: %v %v", len(hb), hb[2].Label, hb[3].Label)
	}
	if i := BucketOf(hb, hb[3].From.Add(time.Minute)); i != 3 {
		t.Errorf("BucketOf = %d", i)
	}
}

// TestWindowHalfHourZoneAndWeeks: hours of a zone half an hour from UTC
// start on the half hour; weeks start on Monday and the first is cut to the
// window.
func TestWindowHalfHourZoneAndWeeks(t *testing.T) {
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	w, err := ParseWindow(WindowArgs{From: str("2026-11-18T10:15:00+05:30"), To: str("2026-11-18T12:00:00+05:30"), Interval: str(Hour)}, now, kolkata)
	if err != nil {
		t.Fatal(err)
	}
	b := w.Buckets()
	if len(b) != 2 || b[0].Label != "2026-11-18T10:00:00+05:30" || !b[0].From.Equal(w.From) {
		t.Fatalf("buckets %+v", b)
	}
	wk, err := ParseWindow(WindowArgs{From: str("2026-11-18"), To: str("2026-11-30"), Interval: str(Week)}, now, kolkata)
	if err != nil {
		t.Fatal(err)
	}
	if b := wk.Buckets(); len(b) != 3 || b[0].Label != "2026-11-16" || b[2].Label != "2026-11-30" {
		t.Fatalf("weeks %+v", b)
	}
	inner, edges := w.Split()
	if !inner.From.Equal(w.From) || len(edges) != 0 {
		t.Errorf("split %v %v", inner, edges)
	}
}

// TestWindowRefusals: bad values are 400s naming the argument.
func TestWindowRefusals(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		args  WindowArgs
		field string
	}{
		{WindowArgs{From: str("yesterday")}, "from"},
		{WindowArgs{To: str("2026-13-01")}, "to"},
		{WindowArgs{Interval: str("minute")}, "interval"},
		{WindowArgs{From: str("2026-11-02"), To: str("2026-11-01")}, "from"},
		{WindowArgs{From: str("2024-01-01"), To: str("2026-11-01")}, "from"},
		{WindowArgs{From: str("2026-09-01"), To: str("2026-11-01"), Interval: str(Hour)}, "from"},
	} {
		_, err := ParseWindow(tc.args, now, time.UTC)
		if apperr.CodeOf(err) != apperr.Invalid || apperr.FieldOf(err) != tc.field {
			t.Errorf("%+v: %v", tc.args, err)
		}
	}
	w, err := ParseWindow(WindowArgs{}, now, time.UTC)
	if err != nil || w.To.Sub(w.From) != DefaultDays*24*time.Hour || !w.To.Equal(time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("default window %v..%v %v", w.From, w.To, err)
	}
}

func TestDivRoundAndDelta(t *testing.T) {
	if DivRound(5, 2) != 3 || DivRound(-5, 2) != -3 || DivRound(4, 3) != 1 || DivRound(1, 0) != 0 {
		t.Error("DivRound")
	}
	if DeltaPct(1, 0) != nil || *DeltaPct(150, 100) != 50 {
		t.Error("DeltaPct")
	}
}
