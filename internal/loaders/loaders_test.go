package loaders

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// The records of these tests: orders with lines, lines with a variant.
type order struct {
	ID         int64
	CustomerID *int64
	VariantIDs []int64
}

type line struct {
	ID, OrderID int64
	VariantID   *int64
}

type variant struct{ ID int64 }

// fakeFetch serves records from rows and counts its calls.
type fakeFetch[R any] struct {
	rows  []R
	keyOf func(*R) int64
	err   error

	mu    sync.Mutex
	calls [][]int64 // the keys of each call, sorted
	limit []int64   // the limit of each call
	cols  []models.Columns
}

func (f *fakeFetch[R]) fetch(_ context.Context, _ bun.IDB, storeID int64, keys []int64, cols models.Columns) ([]R, error) {
	return f.fetchUpTo(context.Background(), nil, storeID, keys, 0, cols)
}

func (f *fakeFetch[R]) fetchUpTo(_ context.Context, _ bun.IDB, storeID int64, keys []int64, limit int64, cols models.Columns) ([]R, error) {
	if storeID != 1 {
		panic(fmt.Sprintf("fetch for store %d", storeID))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	f.calls = append(f.calls, sorted)
	f.limit = append(f.limit, limit)
	f.cols = append(f.cols, cols)
	if f.err != nil {
		return nil, f.err
	}
	var out []R
	for i := range f.rows {
		if slices.Contains(keys, f.keyOf(&f.rows[i])) {
			if n := countKey(out, f.keyOf, f.keyOf(&f.rows[i])); limit == 0 || int64(n) < limit {
				out = append(out, f.rows[i])
			}
		}
	}
	return out, nil
}

func countKey[R any](rows []R, keyOf func(*R) int64, k int64) int {
	n := 0
	for i := range rows {
		if keyOf(&rows[i]) == k {
			n++
		}
	}
	return n
}

func (f *fakeFetch[R]) Calls() [][]int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func lineOrder(l *line) int64    { return l.OrderID }
func variantID(v *variant) int64 { return v.ID }
func orderID(o *order) int64     { return o.ID }
func ptr(n int64) *int64         { return &n }

// inList is the context of a field of list[i] as gqlgen resolves it: the
// list's field, the item's index, then the field.
func inList[P any](ctx context.Context, list []P, i int) context.Context {
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Result: list})
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Index: &i, Result: &list[i]})
	return graphql.WithFieldContext(ctx, &graphql.FieldContext{})
}

// under is the context of a field of the record p that a field returned.
func under[P any](ctx context.Context, p *P) context.Context {
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Result: p})
	return graphql.WithFieldContext(ctx, &graphql.FieldContext{})
}

func request() context.Context { return With(context.Background(), New(nil, 1)) }

// orders is n orders; order i has i%3 lines, line j of variant j.
func orders(n int) ([]order, []line) {
	var os []order
	var ls []line
	for i := range n {
		os = append(os, order{ID: int64(i + 1)})
		for j := range i % 3 {
			ls = append(ls, line{ID: int64(len(ls) + 1), OrderID: int64(i + 1), VariantID: ptr(int64(j + 1))})
		}
	}
	return os, ls
}

// inParallel runs do(i) for i < n at once, as gqlgen resolves a list.
func inParallel(n int, do func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { do(i) })
	}
	wg.Wait()
}

// Records read without some columns (Answer) never answer a load that
// reads others: each Columns has its loader, and the fetch is told them.
func TestAnswerLoadsPerColumns(t *testing.T) {
	os, ls := orders(6)
	lines := &fakeFetch[line]{rows: ls, keyOf: lineOrder}
	orderLines := Many(lines.fetch, orderID, lineOrder)
	ctx := request()
	idOnly := models.Reading[models.OrderLineItem](func(string) bool { return false })
	for range 2 {
		if _, err := orderLines.Answer(ctx, &os[2], idOnly); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := orderLines.Load(ctx, &os[2]); err != nil {
		t.Fatal(err)
	}
	if len(lines.cols) != 2 || lines.cols[0] != idOnly || lines.cols[1] != models.AllColumns {
		t.Fatalf("fetched with %v, want once with the answer's columns, then once whole", lines.cols)
	}
}

// A relation asked for every item of a list loads for the whole list in
// one fetch, however the items' resolvers are scheduled.
func TestManyLoadsForEveryParentOfTheListAtOnce(t *testing.T) {
	os, ls := orders(60)
	lines := &fakeFetch[line]{rows: ls, keyOf: lineOrder}
	orderLines := Many(lines.fetch, orderID, lineOrder)
	ctx := request()
	got := make([][]line, len(os))
	inParallel(len(os), func(i int) {
		var err error
		if got[i], err = orderLines.Load(inList(ctx, os, i), &os[i]); err != nil {
			t.Error(err)
		}
	})
	if calls := lines.Calls(); len(calls) != 1 || len(calls[0]) != len(os) {
		t.Fatalf("fetched %v, want one call for all %d orders", calls, len(os))
	}
	for i, o := range os {
		if got[i] == nil || len(got[i]) != int(i%3) {
			t.Fatalf("order %d: %v", o.ID, got[i])
		}
		for _, l := range got[i] {
			if l.OrderID != o.ID {
				t.Fatalf("order %d got line %+v", o.ID, l)
			}
		}
	}
}

// The records one load returned are one group for their own relations: the
// variants of all the lines of all the orders load in one fetch, not one
// per order.
func TestRelationsOfLoadedRecordsLoadForTheWholeLoad(t *testing.T) {
	os, ls := orders(60)
	lines := &fakeFetch[line]{rows: ls, keyOf: lineOrder}
	variants := &fakeFetch[variant]{rows: []variant{{1}, {2}}, keyOf: variantID}
	orderLines := Many(lines.fetch, orderID, lineOrder)
	lineVariant := One(variants.fetch, func(l *line) *int64 { return l.VariantID }, variantID)
	sames := &fakeFetch[variant]{rows: []variant{{1}, {2}}, keyOf: variantID}
	variantSame := One(sames.fetch, func(v *variant) *int64 { return &v.ID }, variantID)
	ctx := request()
	inParallel(len(os), func(i int) {
		octx := inList(ctx, os, i)
		ols, err := orderLines.Load(octx, &os[i])
		if err != nil {
			t.Error(err)
			return
		}
		inParallel(len(ols), func(j int) {
			lctx := inList(octx, ols, j)
			v, err := lineVariant.Load(lctx, &ols[j])
			if err != nil || v == nil || v.ID != *ols[j].VariantID {
				t.Errorf("line %+v: variant %v, %v", ols[j], v, err)
				return
			}
			// A relation of the variant: its group is the variants' load.
			if s, err := variantSame.Load(under(lctx, v), v); err != nil || s.ID != v.ID {
				t.Errorf("variant %+v: %v, %v", v, s, err)
			}
		})
	})
	if calls := lines.Calls(); len(calls) != 1 {
		t.Fatalf("lines fetched %d times", len(calls))
	}
	for _, f := range []*fakeFetch[variant]{variants, sames} {
		if calls := f.Calls(); len(calls) != 1 || !slices.Equal(calls[0], []int64{1, 2}) {
			t.Fatalf("variants fetched %v, want once for [1 2]", calls)
		}
	}
}

// A relation of a record with no key fetches nothing; of a key without a
// record, answers nil.
func TestOneWithoutKeyOrRecordIsNil(t *testing.T) {
	customers := &fakeFetch[variant]{rows: []variant{{7}}, keyOf: variantID}
	orderCustomer := One(customers.fetch, func(o *order) *int64 { return o.CustomerID }, variantID)
	ctx := request()
	if c, err := orderCustomer.Load(ctx, &order{ID: 1}); c != nil || err != nil {
		t.Fatalf("guest order: %v %v", c, err)
	}
	if n := len(customers.Calls()); n != 0 {
		t.Fatalf("a guest order fetched %d times", n)
	}
	if c, err := orderCustomer.Load(ctx, &order{ID: 2, CustomerID: ptr(8)}); c != nil || err != nil {
		t.Fatalf("gone customer: %v %v", c, err)
	}
	_, err := orderCustomer.Require(ctx, &order{ID: 2, CustomerID: ptr(8)}, "the customer")
	if apperr.CodeOf(err) != apperr.NotFound || err.Error() != "the customer was not found" {
		t.Fatalf("Require: %v", err)
	}
	if c, err := orderCustomer.Require(ctx, &order{ID: 3, CustomerID: ptr(7)}, "the customer"); err != nil || c.ID != 7 {
		t.Fatalf("Require: %v %v", c, err)
	}
}

// Listed answers the records a parent lists in its order, without the
// gone ones, and loads for the whole list at once.
func TestListedKeepsTheListOrder(t *testing.T) {
	variants := &fakeFetch[variant]{rows: []variant{{1}, {2}, {3}}, keyOf: variantID}
	orderVariants := Listed(variants.fetch, func(o *order) []int64 { return o.VariantIDs }, variantID)
	os := []order{{ID: 1, VariantIDs: []int64{3, 9, 1}}, {ID: 2, VariantIDs: []int64{2}}, {ID: 3}}
	ctx := request()
	got := make([][]variant, len(os))
	inParallel(len(os), func(i int) {
		var err error
		if got[i], err = orderVariants.Load(inList(ctx, os, i), &os[i]); err != nil {
			t.Error(err)
		}
	})
	if !slices.Equal(got[0], []variant{{3}, {1}}) || !slices.Equal(got[1], []variant{{2}}) || got[2] == nil || len(got[2]) != 0 {
		t.Fatalf("got %v", got)
	}
	if calls := variants.Calls(); len(calls) != 1 || !slices.Equal(calls[0], []int64{1, 2, 3, 9}) {
		t.Fatalf("fetched %v", calls)
	}
}

// Each limit has its own loader; siblings asking for the same limit load
// together.
func TestManyUpToLoadsPerLimit(t *testing.T) {
	os, ls := orders(30)
	lines := &fakeFetch[line]{rows: ls, keyOf: lineOrder}
	firstLines := ManyUpTo(lines.fetchUpTo, orderID, lineOrder)
	ctx := request()
	for _, limit := range []int64{1, 2, 1} {
		inParallel(len(os), func(i int) {
			got, err := firstLines.Load(inList(ctx, os, i), &os[i], limit)
			if err != nil || int64(len(got)) != min(limit, int64(i%3)) {
				t.Errorf("order %d, limit %d: %v %v", os[i].ID, limit, got, err)
			}
		})
	}
	if len(lines.Calls()) != 2 || !slices.Equal(lines.limit, []int64{1, 2}) {
		t.Fatalf("fetched with limits %v, want one fetch per limit", lines.limit)
	}
}

// ClearAll forgets every loader, those with a limit included, and the
// groups their loads made.
func TestClearAllForgetsEveryLoader(t *testing.T) {
	os, ls := orders(6)
	lines := &fakeFetch[line]{rows: ls, keyOf: lineOrder}
	variants := &fakeFetch[variant]{rows: []variant{{1}, {2}}, keyOf: variantID}
	orderLines := Many(lines.fetch, orderID, lineOrder)
	firstLines := ManyUpTo(lines.fetchUpTo, orderID, lineOrder)
	lineVariant := One(variants.fetch, func(l *line) *int64 { return l.VariantID }, variantID)
	l := New(nil, 1)
	ctx := With(context.Background(), l)
	read := func() {
		octx := inList(ctx, os, 2)
		ols, err := orderLines.Load(octx, &os[2])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := firstLines.Load(octx, &os[2], 5); err != nil {
			t.Fatal(err)
		}
		if _, err := lineVariant.Load(inList(octx, ols, 0), &ols[0]); err != nil {
			t.Fatal(err)
		}
	}
	read()
	read() // answered by the loaders
	if len(lines.Calls()) != 2 || len(variants.Calls()) != 1 || l.loaderCount() != 3 {
		t.Fatalf("before clearing: %d line fetches, %d variant fetches, %d loaders", len(lines.Calls()), len(variants.Calls()), l.loaderCount())
	}
	l.ClearAll()
	if l.loaderCount() != 0 || len(l.made) != 0 {
		t.Fatalf("after ClearAll: %d loaders, %d record types remembered", l.loaderCount(), len(l.made))
	}
	read()
	if len(lines.Calls()) != 4 || len(variants.Calls()) != 2 {
		t.Fatalf("after clearing: %d line fetches, %d variant fetches; every loader must read again", len(lines.Calls()), len(variants.Calls()))
	}
}

// A parent outside any list loads alone, once; a parent that is not the
// record its field context holds gets its own answer all the same.
func TestParentsAloneLoadAlone(t *testing.T) {
	os, ls := orders(6)
	lines := &fakeFetch[line]{rows: ls, keyOf: lineOrder}
	orderLines := Many(lines.fetch, orderID, lineOrder)
	ctx := request()
	o := &os[2]
	for range 2 {
		if got, err := orderLines.Load(ctx, o); err != nil || len(got) != 2 {
			t.Fatalf("alone: %v %v", got, err)
		}
	}
	if calls := lines.Calls(); len(calls) != 1 || !slices.Equal(calls[0], []int64{3}) {
		t.Fatalf("fetched %v, want once for order 3", calls)
	}
	// Asked in the context of the list's first item for another order.
	other := order{ID: 6}
	if got, err := orderLines.Load(inList(ctx, os[:2], 0), &other); err != nil || len(got) != 2 || got[0].OrderID != 6 {
		t.Fatalf("another record's relation: %v %v", got, err)
	}
}

// A fetch cut short (a request that hung up) may return with its error a
// row it did not finish scanning: the rows of a failed fetch are not keyed
// (keying this one would dereference its nil key), the error is answered.
func TestFailedFetchRowsAreNotKeyed(t *testing.T) {
	cut := errors.New("canceling statement due to user request")
	half := func(context.Context, bun.IDB, int64, []int64, models.Columns) ([]line, error) {
		return []line{{ID: 1}}, cut
	}
	halfUpTo := func(ctx context.Context, db bun.IDB, sid int64, keys []int64, _ int64, cols models.Columns) ([]line, error) {
		return half(ctx, db, sid, keys, cols)
	}
	byVariant := func(l *line) int64 { return *l.VariantID }
	withVariant := func(o *order) int64 { return o.ID }
	ctx := request()
	o := &order{ID: 7}
	if _, err := Many(half, withVariant, byVariant).Load(ctx, o); !errors.Is(err, cut) {
		t.Errorf("Many: %v, want the fetch's error", err)
	}
	if _, err := ManyUpTo(halfUpTo, withVariant, byVariant).Load(ctx, o, 5); !errors.Is(err, cut) {
		t.Errorf("ManyUpTo: %v, want the fetch's error", err)
	}
	through := ManyThrough(half, withVariant, func(l *line) (int64, variant) { return *l.VariantID, variant{} })
	if _, err := through.Load(ctx, o); !errors.Is(err, cut) {
		t.Errorf("ManyThrough: %v, want the fetch's error", err)
	}
}

// A failed fetch fails every parent of its group; no store fails closed.
func TestFailuresReachTheWholeGroup(t *testing.T) {
	os, _ := orders(10)
	boom := errors.New("boom")
	lines := &fakeFetch[line]{keyOf: lineOrder, err: boom}
	orderLines := Many(lines.fetch, orderID, lineOrder)
	ctx := request()
	inParallel(len(os), func(i int) {
		if _, err := orderLines.Load(inList(ctx, os, i), &os[i]); !errors.Is(err, boom) {
			t.Errorf("order %d: %v", os[i].ID, err)
		}
	})
	if n := len(lines.Calls()); n != 1 {
		t.Fatalf("fetched %d times", n)
	}
	for _, ctx := range []context.Context{context.Background(), With(context.Background(), New(nil, 0))} {
		if _, err := orderLines.Load(ctx, &os[0]); apperr.CodeOf(err) != apperr.Unauthenticated {
			t.Fatalf("without a store: %v", err)
		}
	}
}

// Loaders that read through a transaction fetch one at a time: a
// transaction is one connection, and gqlgen resolves siblings concurrently.
func TestTransactionFetchesTakeTurns(t *testing.T) {
	var inFlight, most atomic.Int64
	fetch := func(_ context.Context, _ bun.IDB, _ int64, keys []int64, _ models.Columns) ([]line, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(time.Millisecond) // long enough for overlapping fetches to meet
		return nil, nil
	}
	var relations []*ToMany[order, line]
	for range 8 {
		relations = append(relations, Many(fetch, orderID, lineOrder))
	}
	for _, db := range []bun.IDB{bun.Tx{}, nil} {
		most.Store(0)
		ctx := With(context.Background(), New(db, 1))
		inParallel(len(relations), func(i int) {
			if _, err := relations[i].Load(ctx, &order{ID: 1}); err != nil {
				t.Error(err)
			}
		})
		if _, tx := db.(bun.Tx); tx && most.Load() != 1 {
			t.Fatalf("%d fetches ran at once through a transaction", most.Load())
		}
	}
}
