package graph

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/graph-gophers/dataloader/v7"
	"github.com/uptrace/bun"

	"storeadmin/internal/apperr"
	"storeadmin/models"
)

// Loaders batch the relations of one request: every relation is one
// statement per level of the query, however many rows sit above it. They are
// made per request (results must not outlive a request or cross stores) and
// carry the store in their SQL.
type Loaders struct {
	UserByID               *Loader[*models.User]
	MCPKeyByID             *Loader[*models.MCPKey]
	RecentDeliveriesBySubs *Loader[[]models.WebhookDelivery]

	ProductByID             *Loader[*models.Product]
	VariantsByProduct       *Loader[[]models.ProductVariant]
	ImagesByProduct         *Loader[[]models.ProductImage]
	MembershipsByProduct    *Loader[[]models.Membership]
	CollectionsByProduct    *Loader[[]models.ProductCollection]
	BundlesByProduct        *Loader[[]models.ProductBundle]
	CollectionByID          *Loader[*models.Collection]
	MemberCountByCollection *Loader[*models.CollectionCount]
	TiersByBundle           *Loader[[]models.BundleOfferTier]
	ProductLinksByBundle    *Loader[[]models.BundleLink]
	CollectionLinksByBundle *Loader[[]models.BundleLink]
	ProductsByBundle        *Loader[[]models.BundleProduct]
	CollectionsByBundle     *Loader[[]models.BundleCollection]
	VariantByID             *Loader[*models.ProductVariant]

	OrderByID            *Loader[*models.Order]
	CustomerByID         *Loader[*models.Customer]
	OrderCountByCustomer *Loader[*models.CustomerOrderCount]
	LineItemsByOrder     *Loader[[]models.OrderLineItem]
	TransactionsByOrder  *Loader[[]models.OrderTransaction]
	FulfillmentsByOrder  *Loader[[]models.Fulfillment]
	ItemsByFulfillment   *Loader[[]models.FulfillmentItem]
	RefundsByOrder       *Loader[[]models.Refund]

	RatesByZone *Loader[[]models.ShippingRate]

	LinesByDraftOrder *Loader[[]models.DraftOrderLine]
	ShippingRateByID  *Loader[*models.ShippingRate]
	DiscountByID      *Loader[*models.Discount]

	// Relations with a limit argument get one loader per limit.
	membersByCollection *perLimit[[]models.CollectionMember]
	reviewsByProduct    *perLimit[[]models.Review]
	ordersByCustomer    *perLimit[[]models.Order]
}

// NewLoaders returns the loaders of one request made by storeID's caller.
func NewLoaders(db bun.IDB, storeID int64) *Loaders {
	sc := scope{storeID: storeID, cohorts: &cohorts{byShape: map[string]*cohort{}}}
	switch db.(type) {
	case bun.Tx, *bun.Tx:
		// A transaction is one connection: its statements must not overlap,
		// and gqlgen resolves sibling fields concurrently.
		sc.oneAtATime = new(sync.Mutex)
	}
	return &Loaders{
		UserByID: oneByKey(sc, func(ctx context.Context, ids []int64) ([]models.User, error) {
			return models.UsersByID(ctx, db, storeID, ids)
		}, func(u *models.User) int64 { return u.ID }),
		MCPKeyByID: oneByKey(sc, func(ctx context.Context, ids []int64) ([]models.MCPKey, error) {
			return models.MCPKeysByID(ctx, db, storeID, ids)
		}, func(k *models.MCPKey) int64 { return k.ID }),
		RecentDeliveriesBySubs: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.WebhookDelivery, error) {
			return models.RecentDeliveriesBySubscription(ctx, db, storeID, ids)
		}, func(d *models.WebhookDelivery) int64 { return d.SubscriptionID }),

		ProductByID: oneByKey(sc, func(ctx context.Context, ids []int64) ([]models.Product, error) {
			return models.ProductsByID(ctx, db, storeID, ids)
		}, func(p *models.Product) int64 { return p.ID }),
		VariantsByProduct: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.ProductVariant, error) {
			return models.VariantsByProduct(ctx, db, storeID, ids)
		}, func(v *models.ProductVariant) int64 { return v.ProductID }),
		ImagesByProduct: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.ProductImage, error) {
			return models.ImagesByProduct(ctx, db, storeID, ids)
		}, func(i *models.ProductImage) int64 { return i.ProductID }),
		MembershipsByProduct: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.Membership, error) {
			return models.MembershipsByProduct(ctx, db, storeID, ids)
		}, func(m *models.Membership) int64 { return m.ProductID }),
		CollectionsByProduct: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.ProductCollection, error) {
			return models.CollectionsByProduct(ctx, db, storeID, ids)
		}, func(c *models.ProductCollection) int64 { return c.ProductID }),
		BundlesByProduct: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.ProductBundle, error) {
			return models.BundlesByProduct(ctx, db, storeID, ids)
		}, func(b *models.ProductBundle) int64 { return b.ProductID }),
		CollectionByID: oneByKey(sc, func(ctx context.Context, ids []int64) ([]models.Collection, error) {
			return models.CollectionsByID(ctx, db, storeID, ids)
		}, func(c *models.Collection) int64 { return c.ID }),
		MemberCountByCollection: oneByKey(sc, func(ctx context.Context, ids []int64) ([]models.CollectionCount, error) {
			return models.MemberCountsByCollection(ctx, db, storeID, ids)
		}, func(c *models.CollectionCount) int64 { return c.CollectionID }),
		TiersByBundle: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.BundleOfferTier, error) {
			return models.TiersByBundle(ctx, db, storeID, ids)
		}, func(t *models.BundleOfferTier) int64 { return t.BundleID }),
		ProductLinksByBundle: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.BundleLink, error) {
			return models.BundleProductLinks(ctx, db, storeID, ids)
		}, func(l *models.BundleLink) int64 { return l.BundleID }),
		CollectionLinksByBundle: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.BundleLink, error) {
			return models.BundleCollectionLinks(ctx, db, storeID, ids)
		}, func(l *models.BundleLink) int64 { return l.BundleID }),

		ProductsByBundle: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.BundleProduct, error) {
			return models.ProductsByBundle(ctx, db, storeID, ids)
		}, func(p *models.BundleProduct) int64 { return p.BundleID }),
		CollectionsByBundle: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.BundleCollection, error) {
			return models.CollectionsByBundle(ctx, db, storeID, ids)
		}, func(c *models.BundleCollection) int64 { return c.BundleID }),
		VariantByID: oneByKey(sc, func(ctx context.Context, ids []int64) ([]models.ProductVariant, error) {
			return models.VariantsByID(ctx, db, storeID, ids)
		}, func(v *models.ProductVariant) int64 { return v.ID }),

		OrderByID: oneByKey(sc, func(ctx context.Context, ids []int64) ([]models.Order, error) {
			return models.OrdersByID(ctx, db, storeID, ids)
		}, func(o *models.Order) int64 { return o.ID }),
		CustomerByID: oneByKey(sc, func(ctx context.Context, ids []int64) ([]models.Customer, error) {
			return models.CustomersByID(ctx, db, storeID, ids)
		}, func(c *models.Customer) int64 { return c.ID }),
		OrderCountByCustomer: oneByKey(sc, func(ctx context.Context, ids []int64) ([]models.CustomerOrderCount, error) {
			return models.OrderCountsByCustomer(ctx, db, storeID, ids)
		}, func(c *models.CustomerOrderCount) int64 { return c.CustomerID }),
		LineItemsByOrder: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.OrderLineItem, error) {
			return models.LineItemsByOrder(ctx, db, storeID, ids)
		}, func(l *models.OrderLineItem) int64 { return l.OrderID }),
		TransactionsByOrder: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.OrderTransaction, error) {
			return models.TransactionsByOrder(ctx, db, storeID, ids)
		}, func(t *models.OrderTransaction) int64 { return t.OrderID }),
		FulfillmentsByOrder: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.Fulfillment, error) {
			return models.FulfillmentsByOrder(ctx, db, storeID, ids)
		}, func(f *models.Fulfillment) int64 { return f.OrderID }),
		ItemsByFulfillment: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.FulfillmentItem, error) {
			return models.ItemsByFulfillment(ctx, db, storeID, ids)
		}, func(i *models.FulfillmentItem) int64 { return i.FulfillmentID }),
		RefundsByOrder: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.Refund, error) {
			return models.RefundsByOrder(ctx, db, storeID, ids)
		}, func(r *models.Refund) int64 { return r.OrderID }),

		RatesByZone: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.ShippingRate, error) {
			return models.RatesByZone(ctx, db, storeID, ids)
		}, func(r *models.ShippingRate) int64 { return r.ZoneID }),
		LinesByDraftOrder: manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.DraftOrderLine, error) {
			return models.LinesByDraftOrder(ctx, db, storeID, ids)
		}, func(l *models.DraftOrderLine) int64 { return l.DraftOrderID }),
		ShippingRateByID: oneByKey(sc, func(ctx context.Context, ids []int64) ([]models.ShippingRate, error) {
			return models.ShippingRatesByID(ctx, db, storeID, ids)
		}, func(r *models.ShippingRate) int64 { return r.ID }),
		DiscountByID: oneByKey(sc, func(ctx context.Context, ids []int64) ([]models.Discount, error) {
			return models.DiscountsByID(ctx, db, storeID, ids)
		}, func(d *models.Discount) int64 { return d.ID }),

		membersByCollection: newPerLimit(func(upto int64) *Loader[[]models.CollectionMember] {
			return manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.CollectionMember, error) {
				return models.MembersByCollection(ctx, db, storeID, ids, upto)
			}, func(m *models.CollectionMember) int64 { return m.CollectionID })
		}),
		reviewsByProduct: newPerLimit(func(limit int64) *Loader[[]models.Review] {
			return manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.Review, error) {
				return models.ReviewsByProduct(ctx, db, storeID, ids, limit)
			}, func(r *models.Review) int64 { return r.ProductID })
		}),
		ordersByCustomer: newPerLimit(func(limit int64) *Loader[[]models.Order] {
			return manyByKey(sc, func(ctx context.Context, ids []int64) ([]models.Order, error) {
				return models.OrdersByCustomer(ctx, db, storeID, ids, limit)
			}, func(o *models.Order) int64 { return *o.CustomerID })
		}),
	}
}

// reset empties the loader's request cache and forgets which lists it
// loaded.
func (l *Loader[V]) reset() {
	l.ClearAll()
	l.mu.Lock()
	l.lists = map[any]*sync.Once{}
	l.mu.Unlock()
}

// MembersByCollection loads the first upto members of collections, in each
// collection's sort order.
func (l *Loaders) MembersByCollection(upto int64) *Loader[[]models.CollectionMember] {
	return l.membersByCollection.get(upto)
}

// ReviewsByProduct loads the newest limit published reviews of products.
func (l *Loaders) ReviewsByProduct(limit int64) *Loader[[]models.Review] {
	return l.reviewsByProduct.get(limit)
}

// OrdersByCustomer loads the newest limit orders of customers.
func (l *Loaders) OrdersByCustomer(limit int64) *Loader[[]models.Order] {
	return l.ordersByCustomer.get(limit)
}

// perLimit holds the loaders of a relation with a limit argument, one per
// limit: siblings asking for the same page still batch, and each statement
// reads only the page it was asked for.
type perLimit[V any] struct {
	build   func(limit int64) *Loader[V]
	mu      sync.Mutex
	byLimit map[int64]*Loader[V]
}

func newPerLimit[V any](build func(limit int64) *Loader[V]) *perLimit[V] {
	return &perLimit[V]{build: build, byLimit: map[int64]*Loader[V]{}}
}

func (p *perLimit[V]) get(limit int64) *Loader[V] {
	p.mu.Lock()
	defer p.mu.Unlock()
	ld, ok := p.byLimit[limit]
	if !ok {
		ld = p.build(limit)
		p.byLimit[limit] = ld
	}
	return ld
}

func (p *perLimit[V]) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ld := range p.byLimit {
		ld.reset()
	}
}

type loadersKey struct{}

// WithLoaders returns ctx carrying l.
func WithLoaders(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, loadersKey{}, l)
}

// LoadersFrom returns the loaders of the request, failing closed when the
// request has none (no authenticated store).
func LoadersFrom(ctx context.Context) (*Loaders, error) {
	l, _ := ctx.Value(loadersKey{}).(*Loaders)
	if l == nil {
		return nil, apperr.New(apperr.Unauthenticated, "an API key is required: send Authorization: Bearer <key>")
	}
	return l, nil
}

// batchWait is how long a loader gathers keys before it queries: long
// enough for gqlgen to resolve a list's siblings, short enough not to show.
const batchWait = 2 * time.Millisecond

// oneByKey builds a loader of at most one record per key; a missing record
// is a nil value, and the caller decides whether that is an error.
func oneByKey[V any](sc scope, fetch func(context.Context, []int64) ([]V, error), keyOf func(*V) int64) *Loader[*V] {
	batch := func(ctx context.Context, keys []int64) []*dataloader.Result[*V] {
		rows, err := fetchScoped(ctx, sc, keys, fetch)
		byKey := make(map[int64]*V, len(rows))
		for i := range rows {
			byKey[keyOf(&rows[i])] = &rows[i]
		}
		out := make([]*dataloader.Result[*V], len(keys))
		for i, k := range keys {
			out[i] = &dataloader.Result[*V]{Data: byKey[k], Error: err}
		}
		return out
	}
	return newLoader(sc, batch)
}

// manyByKey builds a loader of the records that belong to each key.
func manyByKey[V any](sc scope, fetch func(context.Context, []int64) ([]V, error), keyOf func(*V) int64) *Loader[[]V] {
	batch := func(ctx context.Context, keys []int64) []*dataloader.Result[[]V] {
		rows, err := fetchScoped(ctx, sc, keys, fetch)
		byKey := make(map[int64][]V, len(keys))
		for i := range rows {
			k := keyOf(&rows[i])
			byKey[k] = append(byKey[k], rows[i])
		}
		out := make([]*dataloader.Result[[]V], len(keys))
		for i, k := range keys {
			list := byKey[k]
			if list == nil {
				list = []V{}
			}
			out[i] = &dataloader.Result[[]V]{Data: list, Error: err}
		}
		return out
	}
	return newLoader(sc, batch)
}

// scope is what every fetch of a request's loaders shares: the store, and a
// lock when the loaders read through a transaction.
type scope struct {
	storeID    int64
	oneAtATime *sync.Mutex
	cohorts    *cohorts
}

// fetchScoped refuses to query without a store: tenant scoping fails closed.
func fetchScoped[V any](ctx context.Context, sc scope, keys []int64, fetch func(context.Context, []int64) ([]V, error)) ([]V, error) {
	if sc.storeID == 0 {
		return nil, apperr.New(apperr.Unauthenticated, "an API key is required: send Authorization: Bearer <key>")
	}
	if sc.oneAtATime != nil {
		sc.oneAtATime.Lock()
		defer sc.oneAtATime.Unlock()
	}
	return fetch(ctx, keys)
}

// Loader is a dataloader with its request cache, plus the means to load a
// list's relation for every item of the list at once.
type Loader[V any] struct {
	*dataloader.Loader[int64, V]
	batch dataloader.BatchFunc[int64, V]

	mu    sync.Mutex
	lists map[any]*sync.Once
	// cohorts tells which records were fetched together.
	cohorts *cohorts
}

func newLoader[V any](sc scope, batch dataloader.BatchFunc[int64, V]) *Loader[V] {
	return &Loader[V]{
		Loader:  dataloader.NewBatchedLoader(batch, dataloader.WithWait[int64, V](batchWait)),
		batch:   batch,
		lists:   map[any]*sync.Once{},
		cohorts: sc.cohorts,
	}
}

// cohorts remembers, per request, the records a loader fetched for a whole
// group, by where they sit in the query ("orders.line_items"), so that a
// relation of theirs (a line's variant) loads for all of them in one
// statement rather than once per parent. Placing them by query path, not by
// record, keeps the groups fixed however resolvers are scheduled: the same
// order may also be fetched elsewhere in the query (as a customer's order).
type cohorts struct {
	mu      sync.Mutex
	byShape map[string]*cohort
}

type cohort struct{ members []any }

// add records the records of results as the cohort at shape.
func (c *cohorts) add(shape string, results any) {
	var members []any
	rs := reflect.ValueOf(results)
	for i := 0; i < rs.Len(); i++ {
		data := reflect.Indirect(rs.Index(i)).FieldByName("Data")
		switch data.Kind() {
		case reflect.Slice:
			for j := 0; j < data.Len(); j++ {
				members = append(members, data.Index(j).Addr().Interface())
			}
		case reflect.Pointer:
			if !data.IsNil() {
				members = append(members, data.Interface())
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev := c.byShape[shape]; prev != nil {
		prev.members = append(prev.members, members...)
		return
	}
	c.byShape[shape] = &cohort{members: members}
}

// find is the cohort at shape, or nil.
func (c *cohorts) find(shape string) *cohort {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byShape[shape]
}

// shapeOf is the path of fc in the query without list indices:
// "orders.line_items" for the line_items of any order of the page.
func shapeOf(fc *graphql.FieldContext) string {
	var parts []string
	for ; fc != nil; fc = fc.Parent {
		if fc.Index == nil && fc.Field.Field != nil {
			parts = append(parts, fc.Field.Alias)
		}
	}
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}

// LoadFor loads the value of key for the object resolving a field. When
// that object sits in a list, the first item to ask fetches the keys of
// every item (field keyField of each element of the list) in one batch and
// primes the request cache; the others then read the cache. A relation of
// a list so costs one statement however the resolvers are scheduled, which
// a batching window alone cannot promise on a busy machine.
func (l *Loader[V]) LoadFor(ctx context.Context, key int64, keyField string) (V, error) {
	l.loadGroup(ctx, keyField)
	return l.Load(ctx, key)()
}

// LoadEachFor loads the records of keys, the ids that field keysField (an
// []int64) of the object being resolved lists, as LoadFor does: the first
// object of a group loads the ids of the whole group. Missing records are
// nil.
func (l *Loader[V]) LoadEachFor(ctx context.Context, keys []int64, keysField string) ([]V, error) {
	l.loadGroup(ctx, keysField)
	values, errs := l.LoadMany(ctx, keys)()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return values, nil
}

// loadGroup loads, once per group, the relation for the keys (field
// keyField) of every object of the group of the object being resolved,
// and primes the request cache with the results.
func (l *Loader[V]) loadGroup(ctx context.Context, keyField string) {
	group, members := l.siblings(ctx)
	if group == nil {
		return
	}
	l.mu.Lock()
	once, ok := l.lists[group]
	if !ok {
		once = new(sync.Once)
		l.lists[group] = once
	}
	l.mu.Unlock()
	once.Do(func() {
		keys := keysOf(members(), keyField)
		if len(keys) < 2 {
			return
		}
		results := l.batch(ctx, keys)
		l.cohorts.add(shapeOf(graphql.GetFieldContext(ctx)), results)
		for i, res := range results {
			if res.Error == nil {
				l.Prime(ctx, keys[i], res.Data)
			}
		}
	})
}

// siblings finds the objects resolved alongside the one whose field ctx
// resolves, and a value naming that group. Objects a loader fetched for a
// whole group are the next group (all the lines of all the orders of a
// page, found by where they sit in the query); otherwise it is the list the
// object sits in (the page itself). It returns nil when the object stands
// alone.
func (l *Loader[V]) siblings(ctx context.Context) (any, func() any) {
	fc := graphql.GetFieldContext(ctx)
	if fc != nil && fc.Parent != nil {
		if c := l.cohorts.find(shapeOf(fc.Parent)); c != nil {
			return c, func() any { return c.members }
		}
	}
	if list := enclosingList(ctx); list != nil {
		return list, func() any { return list.Result }
	}
	return nil, nil
}

// enclosingList is the field context of the list holding the object whose
// field is being resolved, or nil when the object is not in a list.
func enclosingList(ctx context.Context) *graphql.FieldContext {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Parent == nil || fc.Parent.Index == nil || fc.Parent.Parent == nil {
		return nil
	}
	return fc.Parent.Parent
}

// keysOf reads field name (an int64, *int64 or []int64) of each element of
// a slice of structs or struct pointers (bare or in interfaces), each key
// once.
func keysOf(list any, name string) []int64 {
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Slice {
		return nil
	}
	seen := make(map[int64]bool, v.Len())
	keys := make([]int64, 0, v.Len())
	add := func(k int64) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for i := 0; i < v.Len(); i++ {
		e := v.Index(i)
		if e.Kind() == reflect.Interface {
			e = e.Elem() // a cohort holds its records as pointers in interfaces
		}
		e = reflect.Indirect(e)
		if e.Kind() != reflect.Struct {
			return nil
		}
		f := e.FieldByName(name)
		if !f.IsValid() {
			return nil
		}
		switch {
		case f.Kind() == reflect.Int64:
			add(f.Int())
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Int64:
			if !f.IsNil() {
				add(f.Elem().Int())
			}
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Int64:
			for j := 0; j < f.Len(); j++ {
				add(f.Index(j).Int())
			}
		default:
			return nil
		}
	}
	return keys
}

// ClearAll empties the request cache of every loader; the executor calls it
// before each mutation, so that a read after a write sees the write. The
// loaders of the exported fields are found by reflection, so a new one
// cannot be forgotten here; the per-limit ones are listed.
func (l *Loaders) ClearAll() {
	v := reflect.ValueOf(l).Elem()
	for i := 0; i < v.NumField(); i++ {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		if ld, ok := v.Field(i).Interface().(interface{ reset() }); ok {
			ld.reset()
		}
	}
	l.membersByCollection.reset()
	l.reviewsByProduct.reset()
	l.ordersByCustomer.reset()
}
