package experimentstats

import (
	"math"
	"testing"
)

func TestSampleRatio(t *testing.T) {
	// Mendel's peas, the textbook goodness of fit: 315 round yellow, 108
	// round green, 101 wrinkled yellow, 32 wrinkled green against 9:3:3:1,
	// χ² = 0.470, p = 0.925 (splits are relative to their sum, so 9:3:3:1
	// needs no percentages). Exact: scipy.stats.chisquare([315, 108, 101,
	// 32], [556·9/16, 556·3/16, 556·3/16, 556/16]).pvalue.
	// The rest: scipy.stats.chisquare(observed, total·split/Σsplit).pvalue.
	for _, c := range []struct {
		observed, split []int64
		p               float64
	}{
		{[]int64{315, 108, 101, 32}, []int64{9, 3, 3, 1}, 0.925425895103616},
		{[]int64{5050, 4950}, []int64{50, 50}, 0.31731050786291115},
		{[]int64{5210, 4790}, []int64{50, 50}, 2.6691498031812692e-05},
		{[]int64{3400, 3250, 3350}, []int64{34, 33, 33}, 0.46880153914023537},
		{[]int64{2030, 1960, 2050, 3960}, []int64{20, 20, 20, 40}, 0.407301567035948},
		{[]int64{1100, 900}, []int64{60, 40}, 5.010331956390438e-06},
		{[]int64{502, 498}, []int64{50, 50}, 0.8993431885613663},
	} {
		got := SampleRatio(c.observed, c.split)
		if math.Abs(got.PValue-c.p) > 1e-9*c.p || got.Failed != (c.p < SRMThreshold) {
			t.Errorf("%v against %v: %+v, want p %.12g", c.observed, c.split, got, c.p)
		}
	}
	for _, c := range []struct {
		observed, split []int64
		want            SRM
	}{
		{nil, nil, SRM{PValue: 1}},
		{[]int64{0, 0}, []int64{50, 50}, SRM{PValue: 1}},
		{[]int64{40}, []int64{100}, SRM{PValue: 1}},
		{[]int64{40, 50}, []int64{100}, SRM{PValue: 1}},
		{[]int64{40, 50}, []int64{0, 0}, SRM{PValue: 1}},
		{[]int64{-5, 50}, []int64{50, 50}, SRM{PValue: 1}},
		{[]int64{40, 1}, []int64{100, 0}, SRM{PValue: 0, Failed: true}},
		{[]int64{40, 0, 41}, []int64{50, 0, 50}, SampleRatio([]int64{40, 41}, []int64{50, 50})},
	} {
		if got := SampleRatio(c.observed, c.split); got != c.want {
			t.Errorf("%v against %v: %+v, want %+v", c.observed, c.split, got, c.want)
		}
	}
}

func TestVerdict(t *testing.T) {
	significant := func(position int, diff float64, p float64) Comparison {
		return Comparison{Position: position, Alpha: 0.05, Diff: diff, PValue: p, Significant: p < 0.05}
	}
	enough := []int64{1000, 1000, 1000}
	failed := SRM{PValue: 1e-6, Failed: true}
	for _, c := range []struct {
		name     string
		in       VerdictInput
		verdict  string
		position int // 0: nil
	}{
		{"nothing", VerdictInput{}, VerdictInsufficientData, 0},
		{"one arm", VerdictInput{Exposed: []int64{5000}, Comparisons: []Comparison{}}, VerdictInsufficientData, 0},
		{"an arm short", VerdictInput{Exposed: []int64{1000, 99}, Comparisons: []Comparison{significant(2, 0.1, 0.001)}}, VerdictInsufficientData, 0},
		{"srm on no data", VerdictInput{Exposed: []int64{0, 0}, SRM: failed}, VerdictInsufficientData, 0},
		{"srm over a short arm", VerdictInput{Exposed: []int64{1000, 20}, SRM: failed}, VerdictSRMFailed, 0},
		{"srm over a winner", VerdictInput{Exposed: enough[:2], SRM: failed, Comparisons: []Comparison{significant(2, 0.1, 0.001)}}, VerdictSRMFailed, 0},
		{"winner", VerdictInput{Exposed: enough[:2], Comparisons: []Comparison{significant(2, 0.01, 0.01)}}, VerdictWinner, 2},
		{"largest significant diff wins", VerdictInput{Exposed: enough, Comparisons: []Comparison{significant(2, 0.01, 0.001), significant(3, 0.02, 0.02)}}, VerdictWinner, 3},
		{"a larger diff that is not significant", VerdictInput{Exposed: enough, Comparisons: []Comparison{significant(2, 0.01, 0.001), significant(3, 0.05, 0.2)}}, VerdictWinner, 2},
		{"tie on diff: smaller p", VerdictInput{Exposed: enough, Comparisons: []Comparison{significant(2, 0.01, 0.01), significant(3, 0.01, 0.001)}}, VerdictWinner, 3},
		{"better and worse", VerdictInput{Exposed: enough, Comparisons: []Comparison{significant(2, -0.01, 0.001), significant(3, 0.01, 0.01)}}, VerdictWinner, 3},
		{"loser", VerdictInput{Exposed: enough, Comparisons: []Comparison{significant(2, -0.01, 0.001), significant(3, -0.02, 0.01)}}, VerdictLoser, 1},
		{"one worse, one level", VerdictInput{Exposed: enough, Comparisons: []Comparison{significant(2, -0.01, 0.001), significant(3, 0.02, 0.3)}}, VerdictNoDifference, 0},
		{"no difference", VerdictInput{Exposed: enough[:2], Comparisons: []Comparison{significant(2, 0.01, 0.3)}}, VerdictNoDifference, 0},
	} {
		verdict, position := Verdict(c.in)
		if verdict != c.verdict || (position == nil) != (c.position == 0) || (position != nil && *position != c.position) {
			t.Errorf("%s: %s at %v, want %s at %d", c.name, verdict, position, c.verdict, c.position)
		}
	}
}
