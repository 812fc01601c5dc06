package models

import (
	"fmt"
	"math"
	"testing"
)

// TestPickFunnelIsStable: a token always gets the same funnel, whatever
// else was picked before.
func TestPickFunnelIsStable(t *testing.T) {
	route := &CheckoutRoute{Funnels: []CheckoutZoneFunnel{{FunnelID: 1, Weight: 1}, {FunnelID: 2, Weight: 3}}}
	for i := range 200 {
		token := fmt.Sprintf("%032x", i*7919)
		first := PickFunnel(route, token)
		for range 3 {
			if again := PickFunnel(route, token); again.FunnelID != first.FunnelID {
				t.Fatalf("token %s: funnel %d, then %d", token, first.FunnelID, again.FunnelID)
			}
		}
	}
	if PickFunnel(nil, "x") != nil || PickFunnel(&CheckoutRoute{}, "x") != nil {
		t.Fatal("no route, or a route without funnels, picks none")
	}
	if got := PickFunnel(&CheckoutRoute{Funnels: []CheckoutZoneFunnel{{FunnelID: 5, Weight: 0}, {FunnelID: 6, Weight: 2}}}, "x"); got.FunnelID != 6 {
		t.Fatalf("a weight of 0 is never picked: %d", got.FunnelID)
	}
}

// TestPickFunnelFollowsWeights: over many tokens, each funnel gets its
// share of the weights, within a few percent.
func TestPickFunnelFollowsWeights(t *testing.T) {
	route := &CheckoutRoute{Funnels: []CheckoutZoneFunnel{{FunnelID: 1, Weight: 1}, {FunnelID: 2, Weight: 3}, {FunnelID: 3, Weight: 6}}}
	const n = 20000
	got := map[int64]int{}
	for i := range n {
		got[PickFunnel(route, NewStorefrontToken()+fmt.Sprint(i)).FunnelID]++
	}
	for id, share := range map[int64]float64{1: 0.1, 2: 0.3, 3: 0.6} {
		if f := float64(got[id]) / n; math.Abs(f-share) > 0.02 {
			t.Errorf("funnel %d got %.3f of the checkouts, want %.2f ± 0.02 (%v)", id, f, share, got)
		}
	}
}
