package experimentstats

import (
	"math"
	"testing"
)

// alphaArms is the number of arms whose Bonferroni level is the reference's
// alpha (0.05 two arms, 0.025 three, 0.05/3 four).
var alphaArms = map[float64]int{0.05: 2, 0.025: 3, 0.016666666666666666: 4}

func TestSessionsPerArm(t *testing.T) {
	// statsmodels.stats.proportion.samplesize_proportions_2indep_onetail(
	// rate·lift, rate, 0.8, alpha=alpha) (two-sided, ratio 1): the same
	// Fleiss formula, written by others.
	for _, c := range [][4]float64{
		{0.05, 0.2, 0.05, 8157.731447849273},
		{0.05, -0.1, 0.05, 28407.84123318726},
		{0.02, 0.1, 0.025, 97705.72784156621},
		{0.3, 0.05, 0.016666666666666666, 19814.926397363353},
		{0.001, 1.5, 0.05, 12186.8230776148},
	} {
		got, ok := ProportionMetric(c[0]).SessionsPerArm(c[1], alphaArms[c[2]])
		if !ok || got != int64(math.Ceil(c[3])) {
			t.Errorf("rate %g lift %g alpha %g: %d %v, want %g", c[0], c[1], c[2], got, ok, c[3])
		}
		if math.Abs(ProportionMetric(c[0]).sessionsFor(c[0]*c[1], c[2])-c[3]) > 1e-6*c[3] {
			t.Errorf("rate %g lift %g alpha %g: n %.12g, want %.12g", c[0], c[1], c[2], ProportionMetric(c[0]).sessionsFor(c[0]*c[1], c[2]), c[3])
		}
	}
	// statsmodels.stats.power.normal_sample_size_one_tail(mean·lift, 0.8,
	// alpha/2, std_null=sd·√2, std_alternative=sd·√2).
	for _, c := range [][5]float64{
		{250, 1800, 0.1, 0.05, 81377.18508573137},
		{1200, 5000, 0.05, 0.025, 132014.39923884478},
	} {
		got, ok := MeanMetric(c[0], c[1]).SessionsPerArm(c[2], alphaArms[c[3]])
		if !ok || got != int64(math.Ceil(c[4])) {
			t.Errorf("mean %g sd %g lift %g alpha %g: %d %v, want %g", c[0], c[1], c[2], c[3], got, ok, c[4])
		}
		if lift, ok := MeanMetric(c[0], c[1]).MinDetectableLift(c[4], alphaArms[c[3]]); !ok || math.Abs(lift-c[2]) > 1e-9 {
			t.Errorf("mean %g sd %g at %g sessions: lift %.12g %v, want %g", c[0], c[1], c[4], lift, ok, c[2])
		}
	}
}

func TestMinDetectableLift(t *testing.T) {
	// The root p₂ of samplesize_proportions_2indep_onetail(p₂ − rate, rate,
	// 0.8, alpha=alpha) = sessions by scipy.optimize.brentq (xtol 1e-15),
	// as (p₂ − rate)/rate.
	for _, c := range [][4]float64{
		{0.05, 20000, 0.05, 0.1256848330906203},
		{0.02, 5000, 0.025, 0.4793317647609086},
		{0.3, 700, 0.016666666666666666, 0.27301231485345856},
		{0.001, 100000, 0.05, 0.43709157582294156},
		{0.5, 30, 0.05, 0.6684564182076362},
	} {
		got, ok := ProportionMetric(c[0]).MinDetectableLift(c[1], alphaArms[c[2]])
		if !ok || math.Abs(got-c[3]) > 1e-6*c[3] {
			t.Errorf("rate %g, %g sessions, alpha %g: %.12g %v, want %.12g", c[0], c[1], c[2], got, ok, c[3])
		}
	}
	// From a rate of 0.5 even a rise to 1 needs 10.51 sessions per arm
	// (samplesize_proportions_2indep_onetail(0.5, 0.5, 0.8)): 10 detect
	// nothing.
	if lift, ok := ProportionMetric(0.5).MinDetectableLift(10, 2); ok {
		t.Errorf("10 sessions from 0.5 detect %g", lift)
	}
}

func TestHorizonsAndLifts(t *testing.T) {
	m := ProportionMetric(0.05)
	got := m.Horizons(1000, 2)
	if len(got) != len(HorizonDays) {
		t.Fatalf("horizons %+v", got)
	}
	for i, h := range got {
		want, _ := m.MinDetectableLift(float64(h.Days)*500, 2)
		if h.Days != HorizonDays[i] || h.MinDetectableLift != want || (i > 0 && h.MinDetectableLift >= got[i-1].MinDetectableLift) {
			t.Errorf("horizon %+v, want %g and falling", h, want)
		}
	}
	// Three arms split the traffic three ways and test at 0.025.
	three := m.Horizons(1000, 3)
	if want, _ := m.MinDetectableLift(7*1000.0/3, 3); three[0].MinDetectableLift != want {
		t.Errorf("three arms at 7 days: %g, want %g", three[0].MinDetectableLift, want)
	}
	// A tiny store: 7 sessions per arm in a week detect nothing from 0.5
	// (a rise to 1 needs 10.51), 14 in two weeks do.
	if short := ProportionMetric(0.5).Horizons(2, 2); len(short) != 3 || short[0].Days != 14 {
		t.Errorf("2 sessions a day from 0.5: %+v", short)
	}
	row, ok := m.ForLift(0.2, 1000, 2)
	if !ok || row != (LiftRow{Days: 16.316, Lift: 0.2, SessionsPerArm: 8158, TotalSessions: 16316}) {
		t.Errorf("a 20%% lift at 1000 sessions a day: %+v %v", row, ok)
	}
}

// No power answer is a number that JSON cannot carry; the impossible ones
// say so.
func TestPowerDegenerate(t *testing.T) {
	for _, m := range []PowerMetric{ProportionMetric(0), ProportionMetric(1), ProportionMetric(-1), ProportionMetric(math.NaN()), MeanMetric(0, 10), MeanMetric(-5, 10), MeanMetric(10, math.Inf(1))} {
		if _, ok := m.MinDetectableLift(1000, 2); ok {
			t.Errorf("%+v: a minimum detectable lift", m)
		}
		if _, ok := m.SessionsPerArm(0.1, 2); ok {
			t.Errorf("%+v: sessions per arm", m)
		}
		if h := m.Horizons(1000, 2); h == nil || len(h) != 0 {
			t.Errorf("%+v: horizons %v", m, h)
		}
	}
	m := ProportionMetric(0.05)
	for _, c := range []struct {
		lift float64
		arms int
	}{{0, 2}, {0.1, 1}, {19, 2}, {-1, 2}, {1e-9, 2}, {math.NaN(), 2}} {
		if n, ok := m.SessionsPerArm(c.lift, c.arms); ok {
			t.Errorf("lift %g with %d arms: %d sessions", c.lift, c.arms, n)
		}
	}
	for _, n := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if _, ok := m.MinDetectableLift(n, 2); ok {
			t.Errorf("%g sessions: a lift", n)
		}
	}
	if _, ok := m.ForLift(0.2, 0, 2); ok {
		t.Error("a lift row without traffic")
	}
	// A mean without variance detects any lift.
	if lift, ok := MeanMetric(100, 0).MinDetectableLift(10, 2); !ok || lift != 0 {
		t.Errorf("no variance: %g %v", lift, ok)
	}
	if n, ok := MeanMetric(100, 0).SessionsPerArm(0.1, 2); !ok || n != 1 {
		t.Errorf("no variance: %d sessions %v", n, ok)
	}
}
