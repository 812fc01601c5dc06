package benchdata

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

var (
	firstNames = []string{"Ava", "Liam", "Noah", "Emma", "Mia", "Lucas", "Sofia", "Ethan", "Chloe", "Mateo",
		"Zoe", "Amara", "Kai", "Nora", "Omar", "Priya", "Hana", "Leo", "Isla", "Felix"}
	lastNames = []string{"Smith", "Garcia", "Chen", "Okafor", "Nguyen", "Müller", "Rossi", "Kowalski", "Haddad",
		"Tanaka", "Silva", "Johansson", "Patel", "Dubois", "Moreau", "Kim", "Novak", "Brown", "Lopez", "Ivanova"}
)

// plan is when each order was placed (ascending, as its number is) and by
// which customer, decided before anything is copied because a customer's
// row records its first and last order.
type plan struct {
	at       []time.Time // order k's created_at
	customer []int32     // order k's customer, an index in the customers copied
	first    []time.Time // each customer's first order, zero if none
	last     []time.Time
}

// planOrders spreads n.Orders over Span before now, denser as now nears,
// and gives them to customers: a tenth of the customers (the regulars)
// place a third of the orders.
func planOrders(rng *rand.Rand, n Sizes, now time.Time) plan {
	p := plan{at: make([]time.Time, n.Orders), customer: make([]int32, n.Orders),
		first: make([]time.Time, n.Customers), last: make([]time.Time, n.Customers)}
	start := now.Add(-Span)
	regulars := max(1, n.Customers/10)
	for k := range n.Orders {
		// The square root makes the density grow linearly with time; k and
		// its jitter stay below k+1, so times ascend with order numbers.
		f := math.Sqrt((float64(k) + rng.Float64()) / float64(n.Orders))
		p.at[k] = start.Add(time.Duration(f * float64(Span-time.Minute))).Truncate(time.Microsecond)
		c := rng.IntN(n.Customers)
		if rng.Float64() < 1.0/3 {
			c = rng.IntN(regulars)
		}
		p.customer[k] = int32(c)
		if p.first[c].IsZero() {
			p.first[c] = p.at[k]
		}
		p.last[c] = p.at[k]
	}
	return p
}

// customer is what an order needs of its customer.
type customer struct {
	id                        int64
	email, first, last, phone string
}

// customers copies n customers. One who ordered was created by the first
// order (as placing an order creates its customer) and updated by the last;
// the others signed up at some time in the span.
func (w *writer) customers(ctx context.Context, rng *rand.Rand, n int, p plan, now time.Time) ([]customer, error) {
	ids, err := w.ids(ctx, "customers", n)
	if err != nil {
		return nil, err
	}
	out := make([]customer, n)
	rows := make([][]any, 0, n)
	for i, id := range ids {
		first, last := pick(rng, firstNames), pick(rng, lastNames)
		// The id keeps emails unique in the store without a lookup.
		email := fmt.Sprintf("%s.%s.%d@example.com", strings.ToLower(first), strings.ToLower(last), id)
		phone := fmt.Sprintf("+1555%07d", rng.IntN(10_000_000))
		created, updated := p.first[i], p.last[i]
		if created.IsZero() {
			created = between(rng, now.Add(-Span), now)
			updated = created
		}
		out[i] = customer{id: id, email: email, first: first, last: last, phone: phone}
		rows = append(rows, []any{id, w.storeID, email, first, last, phone, rng.Float64() < 0.35, created, updated})
	}
	return out, w.copy(ctx, "customers", []string{"id", "store_id", "email", "first_name", "last_name", "phone",
		"accepts_marketing", "created_at", "updated_at"}, rows)
}
