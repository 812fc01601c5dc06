// Package loaders batches the relations of one request: every relation
// costs one statement per group of parents, however many parents the group
// holds and however gqlgen schedules their resolvers.
//
// A relation is declared once, with typed keys (see One, Many, ManyUpTo,
// ManyThrough, Listed), and loaded by resolvers with its Load method:
//
//	var orderLines = loaders.Many(models.LineItemsByOrder,
//		func(o *models.Order) int64 { return o.ID },
//		func(l *models.OrderLineItem) int64 { return l.OrderID })
//
//	func (r *orderResolver) LineItems(ctx context.Context, obj *models.Order) ([]models.OrderLineItem, error) {
//		return orderLines.Load(ctx, obj)
//	}
//
// # Batching: one strategy, by group
//
// When a relation is asked for one parent, it loads for every parent of
// that parent's group, once, in one statement, and answers the others from
// that load. The group of a parent is, in this order:
//
//  1. the records one load returned together, when a loader of this request
//     made the parent: all the lines of all the orders of a page are one
//     group, so their variants load in one statement, not one per order;
//  2. the list of the query the parent sits in (the page of orders itself);
//  3. the parent alone.
//
// A load runs when its group first asks, so the number of statements is the
// number of groups, fixed by the query's shape and not by timing: there is
// no batching window. The group's keys are known when it first asks, so
// they are read in one statement then and put in a dataloader cache
// (graph-gophers/dataloader/v7's), which answers the group's parents after. Rule 1 finds a parent by its address: the loaders
// hand out pointers into the slice they loaded, and gqlgen resolves the
// fields of a list item or of a related record through those pointers
// (graphql.FieldContext.Result).
//
// Loaders are made per request (New): their records must not outlive a
// request or cross stores, and every fetch carries the request's store.
package loaders

import (
	"context"
	"sync"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Loaders are the loaders of one request, made by storeID's caller. They
// keep one registry, filled on first use: the loader of each relation (and
// arguments) and the records each load returned, so that ClearAll cannot miss
// one.
type Loaders struct {
	db      bun.IDB
	storeID int64
	// oneAtATime serialises fetches that read through a transaction: a
	// transaction is one connection, and gqlgen resolves siblings
	// concurrently.
	oneAtATime *sync.Mutex

	mu sync.Mutex
	// loaders holds the request's loader of each relation and arguments.
	loaders map[loaderKey]any
	// made holds, per record type T, which load made each record
	// (a map[*T]*batch[T]), for rule 1 of the grouping.
	made map[any]any
	// once holds the request's store-wide answers (Once), by key.
	once map[any]*onceAnswer
}

// onceAnswer is an answer of Once: done is closed when it is computed.
type onceAnswer struct {
	done  chan struct{}
	value any
	err   error
}

// loaderKey names a loader of the registry: a relation and the arguments
// of its loads.
type loaderKey struct {
	relation any
	args     fetchArgs
}

// New returns the loaders of one request made by storeID's caller, reading
// through db.
func New(db bun.IDB, storeID int64) *Loaders {
	l := &Loaders{db: db, storeID: storeID, loaders: map[loaderKey]any{}, made: map[any]any{}, once: map[any]*onceAnswer{}}
	switch db.(type) {
	case bun.Tx, *bun.Tx:
		l.oneAtATime = new(sync.Mutex)
	}
	return l
}

// ClearAll forgets everything the request's loaders loaded; the executor
// calls it before each mutation, so that a read after a write sees the
// write.
func (l *Loaders) ClearAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.loaders)
	clear(l.made)
	clear(l.once)
}

// Once answers compute's value for key once in the request (until
// ClearAll): a store-wide figure that every record of a list answers alike
// (each experiment's power, which is the store's) is computed for the
// first and shared, not computed per record. Concurrent callers of one key
// wait for the first's answer.
func Once[T any](ctx context.Context, key any, compute func() (T, error)) (T, error) {
	var zero T
	l, err := From(ctx)
	if err != nil {
		return zero, err
	}
	l.mu.Lock()
	a, ok := l.once[key]
	if !ok {
		a = &onceAnswer{done: make(chan struct{})}
		l.once[key] = a
	}
	l.mu.Unlock()
	if ok {
		select {
		case <-a.done:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
	} else {
		func() {
			defer close(a.done)
			a.value, a.err = compute()
		}()
	}
	if a.err != nil {
		return zero, a.err
	}
	return a.value.(T), nil
}

// loaderCount is the number of loaders the request has made since it began or was
// last cleared.
func (l *Loaders) loaderCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.loaders)
}

type contextKey struct{}

// With returns ctx carrying l.
func With(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, contextKey{}, l)
}

// From returns the loaders of the request, failing closed when the request
// has none (no authenticated store).
func From(ctx context.Context) (*Loaders, error) {
	l, _ := ctx.Value(contextKey{}).(*Loaders)
	if l == nil {
		return nil, errNoStore
	}
	return l, nil
}

var errNoStore = apperr.New(apperr.Unauthenticated, "an API key is required: send Authorization: Bearer <key>")

// fetch runs read for the request's store, refusing to query without one:
// tenant scoping fails closed.
func (l *Loaders) fetch(ctx context.Context, read func(ctx context.Context, db bun.IDB, storeID int64) error) error {
	if l.storeID == 0 {
		return errNoStore
	}
	if l.oneAtATime != nil {
		l.oneAtATime.Lock()
		defer l.oneAtATime.Unlock()
	}
	return read(ctx, l.db, l.storeID)
}
