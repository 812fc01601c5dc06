package models

import (
	"math"
	"strconv"
	"testing"
)

// TestAssignBucketIsPinned: the buckets of a few visitors are written
// down, so that a change of the hash (or of what it hashes) fails here
// rather than moving every running test's visitors to other arms. The
// values were computed apart from this code (FNV-1a 64 written out in
// Python: offset 0xcbf29ce484222325, prime 0x100000001b3).
func TestAssignBucketIsPinned(t *testing.T) {
	for _, c := range []struct {
		key, anon string
		bucket    int64
	}{
		{"hero-banner", "v-1", 3740},
		{"hero-banner", "v-2", 8373},
		{"price-up", "0f8fad5b-d9cb-469f-a165-70867728950e", 2198},
		{"free-shipping", "anon", 8308},
	} {
		if got := AssignBucket(c.key, c.anon); got != c.bucket {
			t.Errorf("AssignBucket(%q, %q) = %d, pinned %d", c.key, c.anon, got, c.bucket)
		}
	}
	// The bucket is the hash of key:visitor, not of the two apart.
	if AssignBucket("a", "b:c") != AssignBucket("a:b", "c") {
		t.Error("the key and the visitor id are hashed as key:visitor")
	}
}

// TestAssignArmRanges: arms take consecutive ranges of buckets by position,
// split_pct × 100 each.
func TestAssignArmRanges(t *testing.T) {
	splits := []int64{50, 30, 20}
	for _, c := range []struct {
		bucket int64
		arm    int
	}{{0, 0}, {4999, 0}, {5000, 1}, {7999, 1}, {8000, 2}, {9999, 2}} {
		if got := AssignArm(c.bucket, splits); got != c.arm {
			t.Errorf("bucket %d: arm %d, want %d", c.bucket, got, c.arm)
		}
	}
	if got := AssignArm(9999, []int64{50, 40}); got != -1 {
		t.Errorf("splits short of 100 leave the last buckets to no arm, got %d", got)
	}
}

// TestAssignFollowsSplits: over 100,000 visitor ids each arm gets its
// split within 1 percentage point (the binomial's standard deviation at
// n = 100,000 is at most 0.16 points, so 1 point is over 6 of them: a
// failure is a biased hash, not chance), and a visitor's arm is the same
// on every call.
func TestAssignFollowsSplits(t *testing.T) {
	const n = 100_000
	for _, splits := range [][]int64{{50, 50}, {10, 90}, {25, 25, 25, 25}, {60, 30, 10}} {
		arms := make([]ExperimentVariant, len(splits))
		for i, s := range splits {
			arms[i] = ExperimentVariant{Position: int64(i + 1), SplitPct: s}
		}
		counts := make([]int, len(splits))
		for i := 0; i < n; i++ {
			anon := "visitor-" + strconv.Itoa(i)
			v := AssignVariant("split-test", anon, arms)
			if v == nil {
				t.Fatalf("%v: visitor %s has no arm", splits, anon)
			}
			if again := AssignVariant("split-test", anon, arms); again.Position != v.Position {
				t.Fatalf("%v: visitor %s moved from arm %d to %d", splits, anon, v.Position, again.Position)
			}
			counts[v.Position-1]++
		}
		for i, s := range splits {
			got := 100 * float64(counts[i]) / n
			if math.Abs(got-float64(s)) > 1 {
				t.Errorf("%v: arm %d got %.2f%% of the visitors, split %d%%", splits, i+1, got, s)
			}
		}
	}
}
