package loaders

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Fetch reads the records that belong to keys, in store storeID, in one
// statement, leaving out the columns cols names (a fetch whose statement
// is not of whole records reads them all): the models' loader queries
// (models.LineItemsByOrder, ...).
type Fetch[R any] func(ctx context.Context, db bun.IDB, storeID int64, keys []int64, cols models.Columns) ([]R, error)

// FetchUpTo is a Fetch that reads at most limit records per key.
type FetchUpTo[R any] func(ctx context.Context, db bun.IDB, storeID int64, keys []int64, limit int64, cols models.Columns) ([]R, error)

// ToOne is a relation from a parent P to at most one C (an order's
// customer).
type ToOne[P, C any] struct{ r relation[P, C] }

// One declares a relation from P to at most one C: key is the parent's key
// (nil when it has none), fetch reads the records of keys and keyOf is a
// record's key.
func One[P, C any](fetch Fetch[C], key func(*P) *int64, keyOf func(*C) int64) *ToOne[P, C] {
	return &ToOne[P, C]{newRelation(
		func(p *P, into []int64) []int64 {
			if k := key(p); k != nil {
				into = append(into, *k)
			}
			return into
		},
		withoutLimit(fetch, keyOf))}
}

// Load returns the record related to parent, or nil when there is none.
func (t *ToOne[P, C]) Load(ctx context.Context, parent *P) (*C, error) {
	return t.Answer(ctx, parent, models.AllColumns)
}

// Answer is Load for a field whose value is the record, read without the
// columns cols names, which nothing will read of it (see models.Columns).
// Its loader is not the one of Load, nor of another cols: a record read
// without a column never answers a field that reads it.
func (t *ToOne[P, C]) Answer(ctx context.Context, parent *P, cols models.Columns) (*C, error) {
	var one *C
	_, err := t.r.load(ctx, parent, fetchArgs{cols: cols}, func(cs []C) {
		if len(cs) > 0 {
			one = &cs[0]
		}
	})
	if err != nil {
		return nil, err
	}
	return one, nil
}

// Prime answers the relation for the parents of list, a list the API
// answers (a page of orders), from the children its own statement read (a
// join, see models.Paging.Join): asking then costs no statement. child is
// a parent's child as that statement read it; if it read none for a
// parent that has a key, the list was not read with its children, and the
// relation loads as usual.
func (t *ToOne[P, C]) Prime(ctx context.Context, list []P, child func(*P) *C) error {
	return t.r.prime(ctx, list, child)
}

// Require is Load for relations that must be there: a missing record is
// NOT_FOUND, naming it by what ("the product").
func (t *ToOne[P, C]) Require(ctx context.Context, parent *P, what string) (*C, error) {
	c, err := t.Load(ctx, parent)
	if err == nil && c == nil {
		err = apperr.NotFoundf("%s was not found", what)
	}
	return c, err
}

// ToMany is a relation from a parent P to the Cs that belong to it (an
// order's lines).
type ToMany[P, C any] struct{ r relation[P, C] }

// Many declares a relation from P to the Cs that belong to it: key is the
// parent's key, fetch reads the records of keys (in the order each
// parent's list keeps) and keyOf is the key a record belongs to.
func Many[P, C any](fetch Fetch[C], key func(*P) int64, keyOf func(*C) int64) *ToMany[P, C] {
	return &ToMany[P, C]{newRelation(oneKey(key), withoutLimit(fetch, keyOf))}
}

// ManyThrough declares a relation from P to Cs read through rows R that
// pair each C with the key it belongs to (a product's collections, read
// from its memberships): link splits a row into its key and its record.
func ManyThrough[P, R, C any](fetch Fetch[R], key func(*P) int64, link func(*R) (int64, C)) *ToMany[P, C] {
	read := func(ctx context.Context, db bun.IDB, storeID int64, keys []int64, args fetchArgs) ([]int64, []C, error) {
		rows, err := fetch(ctx, db, storeID, keys, args.cols)
		if err != nil {
			return nil, nil, err
		}
		owners, children := make([]int64, len(rows)), make([]C, len(rows))
		for i := range rows {
			owners[i], children[i] = link(&rows[i])
		}
		return owners, children, err
	}
	return &ToMany[P, C]{newRelation(oneKey(key), read)}
}

// Load returns the records that belong to parent, never nil.
func (t *ToMany[P, C]) Load(ctx context.Context, parent *P) ([]C, error) {
	return t.Answer(ctx, parent, models.AllColumns)
}

// Answer is Load for a field whose value is the records, read without the
// columns cols names (see ToOne.Answer).
func (t *ToMany[P, C]) Answer(ctx context.Context, parent *P, cols models.Columns) ([]C, error) {
	var got []C
	if _, err := t.r.load(ctx, parent, fetchArgs{cols: cols}, func(cs []C) { got = cs }); err != nil {
		return nil, err
	}
	return orEmpty(got), nil
}

// ToManyUpTo is a relation from a parent P to the first Cs that belong to
// it, as many as a limit argument of the field asks (a customer's newest
// orders).
type ToManyUpTo[P, C any] struct{ r relation[P, C] }

// ManyUpTo declares a relation as Many does, whose fetch reads at most a
// limit of records per key. Each limit has its own loader: siblings asking
// for the same limit still load together, and each statement reads only
// what it was asked for.
func ManyUpTo[P, C any](fetch FetchUpTo[C], key func(*P) int64, keyOf func(*C) int64) *ToManyUpTo[P, C] {
	read := func(ctx context.Context, db bun.IDB, storeID int64, keys []int64, args fetchArgs) ([]int64, []C, error) {
		rows, err := fetch(ctx, db, storeID, keys, args.limit, args.cols)
		if err != nil {
			return nil, nil, err
		}
		return keysOf(rows, keyOf), rows, nil
	}
	return &ToManyUpTo[P, C]{newRelation(oneKey(key), read)}
}

// Load returns the first limit records that belong to parent, never nil.
func (t *ToManyUpTo[P, C]) Load(ctx context.Context, parent *P, limit int64) ([]C, error) {
	var got []C
	if _, err := t.r.load(ctx, parent, fetchArgs{limit: limit}, func(cs []C) { got = cs }); err != nil {
		return nil, err
	}
	return orEmpty(got), nil
}

// ToListed is a relation from a parent P to the Cs whose keys it lists (a
// discount's products).
type ToListed[P, C any] struct{ r relation[P, C] }

// Listed declares a relation from P to the Cs whose keys keys lists: fetch
// reads the records of keys and keyOf is a record's key.
func Listed[P, C any](fetch Fetch[C], keys func(*P) []int64, keyOf func(*C) int64) *ToListed[P, C] {
	return &ToListed[P, C]{newRelation(
		func(p *P, into []int64) []int64 { return append(into, keys(p)...) },
		withoutLimit(fetch, keyOf))}
}

// Load returns the records parent lists, in its order, without the keys
// whose record is gone (deleted since); never nil.
func (t *ToListed[P, C]) Load(ctx context.Context, parent *P) ([]C, error) {
	out := []C{}
	_, err := t.r.load(ctx, parent, fetchArgs{}, func(cs []C) {
		if len(cs) > 0 {
			out = append(out, cs[0])
		}
	})
	if err != nil {
		return []C{}, err
	}
	return out, nil
}

// oneKey adapts the key of a parent with exactly one key.
func oneKey[P any](key func(*P) int64) func(*P, []int64) []int64 {
	return func(p *P, into []int64) []int64 { return append(into, key(p)) }
}

// withoutLimit adapts a Fetch of records that carry their key.
func withoutLimit[C any](fetch Fetch[C], keyOf func(*C) int64) readFunc[C] {
	return func(ctx context.Context, db bun.IDB, storeID int64, keys []int64, args fetchArgs) ([]int64, []C, error) {
		rows, err := fetch(ctx, db, storeID, keys, args.cols)
		if err != nil {
			return nil, nil, err
		}
		return keysOf(rows, keyOf), rows, nil
	}
}

// keysOf is the key of each row. Only rows a fetch read without an error
// are keyed: a statement cut short (a request that hung up) can leave its
// last row half scanned, a nil where a key's pointer belongs.
func keysOf[C any](rows []C, keyOf func(*C) int64) []int64 {
	out := make([]int64, len(rows))
	for i := range rows {
		out[i] = keyOf(&rows[i])
	}
	return out
}

func orEmpty[C any](cs []C) []C {
	if cs == nil {
		return []C{}
	}
	return cs
}
