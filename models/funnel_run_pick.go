package models

// PickFunnel is the funnel route gives the checkout of token: the route's
// funnels share the checkouts by weight, and a token always falls on the
// same one, so a reload (or the next pricing) sees the funnel the last
// one did. FNV-1a of the token, modulo the sum of the weights, walks the
// funnels in their position order. Nil when the route is nil or offers no
// funnel.
func PickFunnel(route *CheckoutRoute, token string) *CheckoutZoneFunnel {
	if route == nil {
		return nil
	}
	var sum uint64
	for _, f := range route.Funnels {
		sum += uint64(max(f.Weight, 0))
	}
	if sum == 0 {
		return nil
	}
	at := fnv1a(token) % sum
	for i, f := range route.Funnels {
		w := uint64(max(f.Weight, 0))
		if at < w {
			return &route.Funnels[i]
		}
		at -= w
	}
	return nil // not reached: at < sum
}
