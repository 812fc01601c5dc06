package loaders

import (
	"context"
	"fmt"
	"sync"
	"unsafe"

	"github.com/99designs/gqlgen/graphql"
	"github.com/graph-gophers/dataloader/v7"
	"github.com/uptrace/bun"

	"storeadmin/models"
)

// readFunc reads the children of keys as args say and the key each child
// belongs to.
type readFunc[C any] func(ctx context.Context, db bun.IDB, storeID int64, keys []int64, args fetchArgs) (owners []int64, children []C, err error)

// fetchArgs are what a relation's loads may differ in besides their keys:
// at most limit children per key (for relations with a limit, 0
// otherwise), and the columns left out of them. Loads that differ in them
// have loaders of their own.
type fetchArgs struct {
	limit int64
	cols  models.Columns
}

// relation is what every kind of relation shares: the keys a parent asks
// for, and how to read the children of keys.
type relation[P, C any] struct {
	keys func(p *P, into []int64) []int64
	read readFunc[C]
}

// parentTypes holds a parentType[P] for every type P a relation starts
// from: only the records of those types need to be remembered by the load
// that made them (rule 1 of the grouping).
var parentTypes sync.Map

// parentType names type T in parentTypes and, per request, the records of
// type T that loads made (Loaders.made).
type parentType[T any] struct{}

func newRelation[P, C any](keys func(*P, []int64) []int64, read readFunc[C]) relation[P, C] {
	parentTypes.Store(parentType[P]{}, true)
	return relation[P, C]{keys: keys, read: read}
}

// loader is a relation's loader in one request (for one fetchArgs): the loads
// of its groups.
type loader[C any] struct {
	mu     sync.Mutex
	groups map[groupKey]*groupLoad[C]
}

// groupLoad is the one load of a group: a dataloader cache of the group's
// keys, which holds what one statement read for all of them when the group
// first asked (no batching window) and answers every parent of the group
// after. No dataloader.Loader stands in front of it: the group's keys are
// all known when it first asks, so there is no batch to gather, and a
// Loader's Load makes a channel, a request, a closure and a trace per key
// before it looks in its cache.
type groupLoad[C any] struct {
	once  sync.Once
	cache *dataloader.InMemoryCache[int64, []C]
}

// load hands answer, for each key of parent in order, the children the
// load of parent's group read, and says how many keys parent has. A
// callback and not a slice of answers: most relations answer one key, and
// the slice was an allocation on every field that loads.
func (r *relation[P, C]) load(ctx context.Context, parent *P, args fetchArgs, answer func(children []C)) (int, error) {
	keys := r.keys(parent, nil)
	if len(keys) == 0 {
		return 0, nil
	}
	ls, err := From(ctx)
	if err != nil {
		return 0, err
	}
	ld := loaderOf[C](ls, r, args)
	g := run(ctx, ls, ld, r, args, groupOf(ctx, ls, parent))
	if !g.answers(ctx, keys) {
		// The parent is not the one its field context holds (a resolver
		// asked for another record's relation): it loads alone.
		g = run(ctx, ls, ld, r, args, aloneGroup(parent))
	}
	for _, k := range keys {
		// The group's load has put every key in the cache (answers).
		thunk, ok := g.cache.Get(ctx, k)
		if !ok {
			return 0, fmt.Errorf("loaders: key %d of a group was not loaded", k)
		}
		cs, err := thunk()
		if err != nil {
			return 0, err
		}
		answer(cs)
	}
	return len(keys), nil
}

// loaderOf is the request's loader of relation r for args, made on first
// use.
func loaderOf[C, P any](ls *Loaders, r *relation[P, C], args fetchArgs) *loader[C] {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	k := loaderKey{relation: r, args: args}
	ld, _ := ls.loaders[k].(*loader[C])
	if ld == nil {
		ld = &loader[C]{groups: map[groupKey]*groupLoad[C]{}}
		ls.loaders[k] = ld
	}
	return ld
}

// group is the load of the group key names, made on first use.
func (ld *loader[C]) group(id groupKey) *groupLoad[C] {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	g := ld.groups[id]
	if g == nil {
		g = new(groupLoad[C])
		ld.groups[id] = g
	}
	return g
}

// run loads the relation for the keys of every member of group grp, once.
func run[P, C any](ctx context.Context, ls *Loaders, ld *loader[C], r *relation[P, C], args fetchArgs, grp group[P]) *groupLoad[C] {
	g := ld.group(grp.key)
	g.once.Do(func() {
		var keys []int64
		for p := range grp.each {
			keys = r.keys(p, keys)
		}
		keys = distinct(keys)
		g.cache = dataloader.NewCache[int64, []C]()
		// The group's keys are all known here: they are read in one
		// statement and their answers (or its failure) put in the cache,
		// as prime does. Asking a dataloader.Loader for them one by one to
		// fill one batch cost a thunk, a channel, a request and a trace a
		// key: a tenth of a page of orders' allocations.
		byKey, err := fetchFiled(ctx, ls, r.read, keys, args)
		for _, k := range keys {
			cs := byKey[k]
			g.cache.Set(ctx, k, func() ([]C, error) { return cs, err })
		}
	})
	return g
}

// prime answers the relation for the group of list, a list of parents
// the API answers (a page), from children the list's own statement read
// (a join): child is a parent's child, nil when the statement did not read
// it. The children are filed side by side as a load files them, so they
// are a group for their own relations. When a parent with a key has no
// child, the list was not read with its children: nothing is primed, and
// the relation loads as usual.
func (r *relation[P, C]) prime(ctx context.Context, list []P, child func(*P) *C) error {
	if len(list) == 0 {
		return nil
	}
	ls, err := From(ctx)
	if err != nil {
		return err
	}
	var keys []int64
	var filed []C
	at := map[int64]int{}
	for i := range list {
		k := r.keys(&list[i], nil)
		if len(k) == 0 {
			continue
		}
		c := child(&list[i])
		if c == nil {
			return nil
		}
		if _, seen := at[k[0]]; !seen {
			at[k[0]] = len(filed)
			keys, filed = append(keys, k[0]), append(filed, *c)
		}
	}
	ld := loaderOf[C](ls, r, fetchArgs{})
	g := ld.group(listGroup(list).key)
	g.once.Do(func() {
		g.cache = dataloader.NewCache[int64, []C]()
		for _, k := range keys {
			i := at[k]
			cs := filed[i : i+1 : i+1]
			g.cache.Set(ctx, k, func() ([]C, error) { return cs, nil })
		}
		remember(ls, filed)
	})
	return nil
}

// answers tells whether the group's load asked for every one of keys.
func (g *groupLoad[C]) answers(ctx context.Context, keys []int64) bool {
	for _, k := range keys {
		if _, ok := g.cache.Get(ctx, k); !ok {
			return false
		}
	}
	return true
}

// fetchFiled reads the children of keys and files them by key, each key's
// children side by side in one slice, so that the records a load made can
// be told by their address (remember).
func fetchFiled[C any](ctx context.Context, ls *Loaders, read readFunc[C], keys []int64, args fetchArgs) (map[int64][]C, error) {
	var owners []int64
	var children []C
	err := ls.fetch(ctx, func(ctx context.Context, db bun.IDB, storeID int64) error {
		var err error
		owners, children, err = read(ctx, db, storeID, keys, args)
		return err
	})
	if err != nil {
		return nil, err
	}
	count := make(map[int64]int, len(keys))
	for _, k := range keys {
		count[k] = 0
	}
	for _, o := range owners {
		if _, asked := count[o]; asked {
			count[o]++
		}
	}
	next := make(map[int64]int, len(keys))
	end := 0
	for _, k := range keys {
		next[k] = end
		end += count[k]
	}
	filed := make([]C, end)
	for i, o := range owners {
		if at, asked := next[o]; asked {
			filed[at] = children[i]
			next[o]++
		}
	}
	byKey := make(map[int64][]C, len(keys))
	for _, k := range keys {
		if n := count[k]; n > 0 {
			from := next[k] - n
			byKey[k] = filed[from:next[k]:next[k]]
		} else {
			byKey[k] = nil
		}
	}
	remember(ls, filed)
	return byKey, nil
}

func distinct(keys []int64) []int64 {
	seen := make(map[int64]bool, len(keys))
	out := keys[:0]
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// made is the records of one load, a group of parents for the relations
// that start from them.
type made[T any] struct{ records []T }

func (m *made[T]) each(yield func(*T) bool) {
	for i := range m.records {
		if !yield(&m.records[i]) {
			return
		}
	}
}

// remember records which load made each of records, when a relation
// starts from their type.
func remember[T any](ls *Loaders, records []T) {
	if len(records) == 0 {
		return
	}
	if _, ok := parentTypes.Load(parentType[T]{}); !ok {
		return
	}
	m := &made[T]{records: records}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	byRecord, _ := ls.made[parentType[T]{}].(map[*T]*made[T])
	if byRecord == nil {
		byRecord = map[*T]*made[T]{}
		ls.made[parentType[T]{}] = byRecord
	}
	for i := range records {
		byRecord[&records[i]] = m
	}
}

// madeBy is the load that made record p, or nil.
func madeBy[T any](ls *Loaders, p *T) *made[T] {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	byRecord, _ := ls.made[parentType[T]{}].(map[*T]*made[T])
	return byRecord[p]
}

// A group is a group of parents (see the package comment): the records a
// load made (rule 1), a list of the query (rule 2) or a parent alone (rule
// 3), and the key its load is kept under.
type group[P any] struct {
	key   groupKey
	made  *made[P]
	list  []P
	ptrs  []*P
	alone *P
}

// groupKey names a group by the address that identifies it (the load, the
// list's first element, the parent) and, for a list, its length. Not an
// interface: a relation asks for its group once per parent, and boxing an
// identity each time was a few percent of a page's allocations.
type groupKey struct {
	at   unsafe.Pointer
	n    int
	kind groupKind
}

type groupKind uint8

const (
	byLoad groupKind = iota
	byList
	byListOfPointers
	byParent
)

func madeGroup[P any](m *made[P]) group[P] {
	return group[P]{key: groupKey{at: unsafe.Pointer(m), kind: byLoad}, made: m}
}

func listGroup[P any](list []P) group[P] {
	return group[P]{key: groupKey{at: unsafe.Pointer(&list[0]), n: len(list), kind: byList}, list: list}
}

func aloneGroup[P any](p *P) group[P] {
	return group[P]{key: groupKey{at: unsafe.Pointer(p), kind: byParent}, alone: p}
}

// each yields the group's members.
func (g group[P]) each(yield func(*P) bool) {
	switch {
	case g.made != nil:
		g.made.each(yield)
	case g.list != nil:
		for i := range g.list {
			if !yield(&g.list[i]) {
				return
			}
		}
	case g.ptrs != nil:
		for _, p := range g.ptrs {
			if p != nil && !yield(p) {
				return
			}
		}
	default:
		yield(g.alone)
	}
}

// groupOf is the group of the parent whose field ctx resolves (see the
// package comment).
func groupOf[P any](ctx context.Context, ls *Loaders, parent *P) group[P] {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Parent == nil {
		return aloneGroup(parent)
	}
	if p, ok := fc.Parent.Result.(*P); ok && p != nil {
		if m := madeBy(ls, p); m != nil {
			return madeGroup(m)
		}
	}
	if fc.Parent.Index != nil && fc.Parent.Parent != nil {
		switch list := fc.Parent.Parent.Result.(type) {
		case []P:
			if len(list) > 0 {
				return listGroup(list)
			}
		case []*P:
			if len(list) > 0 {
				return group[P]{key: groupKey{at: unsafe.Pointer(&list[0]), n: len(list), kind: byListOfPointers}, ptrs: list}
			}
		}
	}
	return aloneGroup(parent)
}
