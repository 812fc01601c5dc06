package pricing

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

func clamp(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }

// satAdd adds two non-negative numbers, stopping at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// satMul multiplies two non-negative numbers, stopping at MaxCents.
func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > MaxCents/b {
		return MaxCents
	}
	return min(a*b, MaxCents)
}

// mulDiv answers a×b / d and its remainder for a, b >= 0 and d > 0, exactly
// (the product is 128 bits wide). Callers keep the quotient within int64; it
// saturates rather than panic if they do not.
func mulDiv(a, b, d int64) (q, r int64) {
	if a <= 0 || b <= 0 || d <= 0 {
		return 0, 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(d) {
		return math.MaxInt64, 0
	}
	uq, ur := bits.Div64(hi, lo, uint64(d))
	if uq > math.MaxInt64 {
		return math.MaxInt64, 0
	}
	return int64(uq), int64(ur)
}

// mulDivRound answers a×b / d rounded half up, for a, b >= 0 and d > 0.
func mulDivRound(a, b, d int64) int64 {
	q, r := mulDiv(a, b, d)
	if r >= d-r { // r/d >= 1/2
		q = satAdd(q, 1)
	}
	return q
}

// Allocate shares amount among weights in proportion to them by the
// largest-remainder method: each gets the floor of its exact share, and the
// units left over go one each to the largest remainders, the earlier on a tie.
// The shares sum to amount when amount >= 0 and the weights (>= 0) have a
// positive sum; a share exceeds its weight only if amount exceeds the sum.
// Weights must sum within int64. Orders placed without the engine's
// per-line figures get their shares by it too (models.PlaceOrders).
func Allocate(amount int64, weights []int64) []int64 {
	shares := make([]int64, len(weights))
	var total int64
	for _, w := range weights {
		total += max(w, 0)
	}
	if amount <= 0 || total <= 0 {
		return shares
	}
	rems := make([]int64, len(weights))
	left := amount
	for i, w := range weights {
		shares[i], rems[i] = mulDiv(amount, max(w, 0), total)
		left -= shares[i]
	}
	if left == 0 {
		return shares
	}
	// left is below the number of non-zero remainders: one unit each to the
	// largest remainders, the earlier on a tie.
	order := make([]int, 0, len(weights))
	for i, r := range rems {
		if r > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rems[b], rems[a]) })
	for _, i := range order[:min(int64(len(order)), left)] {
		shares[i]++
	}
	return shares
}

// idSet is a set of ids: the list itself when short, a map when long.
type idSet struct {
	list []int64
	m    map[int64]struct{}
}

func newIDSet(ids []int64) idSet {
	s := idSet{list: ids}
	if len(ids) > 16 {
		s.m = make(map[int64]struct{}, len(ids))
		for _, id := range ids {
			s.m[id] = struct{}{}
		}
	}
	return s
}

func (s idSet) empty() bool { return len(s.list) == 0 }

func (s idSet) has(id int64) bool {
	if s.m != nil {
		_, ok := s.m[id]
		return ok
	}
	for _, v := range s.list {
		if v == id {
			return true
		}
	}
	return false
}

func (s idSet) hasAny(ids []int64) bool {
	for _, id := range ids {
		if s.has(id) {
			return true
		}
	}
	return false
}
