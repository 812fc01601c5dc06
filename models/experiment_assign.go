package models

import "hash/fnv"

// Assignment of storefront visitors to the arms of an A/B test (README "A/B
// tests", "Storefront: assignment and exposures"). It is a pure function
// of the test's key and the visitor's id, so every replica, a restarted
// server and any later day give a visitor the same arm, with nothing
// stored: FNV-1a 64 of key + ":" + visitor id, modulo AssignBuckets, and
// the arms take consecutive ranges of buckets by position, split_pct ×
// 100 buckets each (arm 1 buckets 0 to its share − 1, arm 2 the next, …).

// AssignBuckets is the number of buckets visitors are hashed into: one
// per hundredth of a percent of the traffic.
const AssignBuckets = 10_000

// bucketsPerPct is the buckets one percent of split takes.
const bucketsPerPct = AssignBuckets / ExperimentSplits

// fnv1a is the house's hash of a text: FNV-1a 64. Assignment and the
// funnel a checkout falls on (PickFunnel) both hash with it.
func fnv1a(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// AssignBucket is the bucket, 0 to AssignBuckets − 1, of visitor anonID in
// the test of key.
func AssignBucket(key, anonID string) int64 {
	return int64(fnv1a(key+":"+anonID) % AssignBuckets)
}

// AssignArm is the index in splits (the arms' split_pct by position) of
// the arm bucket falls in; -1 when the splits do not reach it (they sum
// to less than 100, which the API never lets an experiment have).
func AssignArm(bucket int64, splits []int64) int {
	at := bucket
	for i, pct := range splits {
		n := max(pct, 0) * bucketsPerPct
		if at < n {
			return i
		}
		at -= n
	}
	return -1
}

// AssignVariant is the arm of arms (an experiment's, by position) visitor
// anonID sees in the test of key; nil when it has none.
func AssignVariant(key, anonID string, arms []ExperimentVariant) *ExperimentVariant {
	splits := make([]int64, len(arms))
	for i, a := range arms {
		splits[i] = a.SplitPct
	}
	if i := AssignArm(AssignBucket(key, anonID), splits); i >= 0 {
		return &arms[i]
	}
	return nil
}
