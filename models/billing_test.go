package models

import (
	"testing"
	"time"
)

func TestBillingPeriod(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 9, 30, 0, 0, time.UTC) }
	for _, c := range []struct {
		name               string
		anchor, at         time.Time
		interval           string
		wantStart, wantEnd time.Time
	}{
		{"the first period", day(2026, 3, 10), day(2026, 3, 20), "month", day(2026, 3, 10), day(2026, 4, 10)},
		{"at the anchor", day(2026, 3, 10), day(2026, 3, 10), "month", day(2026, 3, 10), day(2026, 4, 10)},
		{"the moment a period ends", day(2026, 3, 10), day(2026, 4, 10), "month", day(2026, 4, 10), day(2026, 5, 10)},
		{"just before a period ends", day(2026, 3, 10), day(2026, 4, 10).Add(-time.Nanosecond), "month", day(2026, 3, 10), day(2026, 4, 10)},
		{"an early day of a later month", day(2026, 3, 10), day(2026, 11, 2), "month", day(2026, 10, 10), day(2026, 11, 10)},
		{"over a year", day(2025, 12, 15), day(2027, 1, 20), "month", day(2027, 1, 15), day(2027, 2, 15)},
		// Anchored on the 31st: the short months end on their last day,
		// and the next period is back on the 31st, not drifting.
		{"the 31st into February", day(2026, 1, 31), day(2026, 2, 28), "month", day(2026, 2, 28), day(2026, 3, 31)},
		{"the 31st before February's end", day(2026, 1, 31), day(2026, 2, 27), "month", day(2026, 1, 31), day(2026, 2, 28)},
		{"the 31st in a leap year", day(2028, 1, 31), day(2028, 3, 1), "month", day(2028, 2, 29), day(2028, 3, 31)},
		{"the 31st into April", day(2026, 1, 31), day(2026, 4, 30), "month", day(2026, 4, 30), day(2026, 5, 31)},
		{"yearly", day(2024, 2, 29), day(2026, 3, 1), "year", day(2026, 2, 28), day(2027, 2, 28)},
		{"before the anchor", day(2026, 3, 10), day(2026, 1, 1), "month", day(2026, 3, 10), day(2026, 4, 10)},
	} {
		start, end := BillingPeriod(c.anchor, c.interval, c.at)
		if !start.Equal(c.wantStart) || !end.Equal(c.wantEnd) {
			t.Errorf("%s: [%v, %v), want [%v, %v)", c.name, start, end, c.wantStart, c.wantEnd)
		}
	}
}

func TestBillingSubscriptionStatus(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	anchor := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	later, earlier := now.Add(time.Hour), now.Add(-time.Hour)
	for _, c := range []struct {
		name    string
		s       BillingSubscription
		want    string
		wantEnd time.Time
		ending  bool
	}{
		{"running", BillingSubscription{}, SubscriptionActive, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},
		{"in its trial", BillingSubscription{TrialEndsAt: &later}, SubscriptionTrialing, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},
		{"after its trial", BillingSubscription{TrialEndsAt: &earlier}, SubscriptionActive, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},
		{"an invoice past due", BillingSubscription{PastDue: true}, SubscriptionPastDue, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},
		{"ending with the period", BillingSubscription{CancelAt: new(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))}, SubscriptionActive, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), true},
		// Ended: its last period, not the one the clock is in.
		{"ended", BillingSubscription{CancelAt: new(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)), PastDue: true}, SubscriptionCanceled, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), true},
	} {
		s := c.s
		s.StartedAt, s.BillingInterval = anchor, "month"
		s.settle(now)
		if s.Status != c.want || !s.CurrentPeriodEnd.Equal(c.wantEnd) || s.CancelAtPeriodEnd != c.ending {
			t.Errorf("%s: %s, period end %v, ending %v", c.name, s.Status, s.CurrentPeriodEnd, s.CancelAtPeriodEnd)
		}
	}
}
