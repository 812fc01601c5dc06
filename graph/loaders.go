package graph

import (
	"context"
	"time"

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
	UserByID               *dataloader.Loader[int64, *models.User]
	MCPKeyByID             *dataloader.Loader[int64, *models.MCPKey]
	RecentDeliveriesBySubs *dataloader.Loader[int64, []models.WebhookDelivery]
}

// NewLoaders returns the loaders of one request made by storeID's caller.
func NewLoaders(db bun.IDB, storeID int64) *Loaders {
	return &Loaders{
		UserByID: oneByKey(storeID, func(ctx context.Context, ids []int64) ([]models.User, error) {
			return models.UsersByID(ctx, db, ids)
		}, func(u *models.User) int64 { return u.ID }),
		MCPKeyByID: oneByKey(storeID, func(ctx context.Context, ids []int64) ([]models.MCPKey, error) {
			return models.MCPKeysByID(ctx, db, storeID, ids)
		}, func(k *models.MCPKey) int64 { return k.ID }),
		RecentDeliveriesBySubs: manyByKey(storeID, func(ctx context.Context, ids []int64) ([]models.WebhookDelivery, error) {
			return models.RecentDeliveriesBySubscription(ctx, db, storeID, ids)
		}, func(d *models.WebhookDelivery) int64 { return d.SubscriptionID }),
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
func oneByKey[V any](storeID int64, fetch func(context.Context, []int64) ([]V, error), keyOf func(*V) int64) *dataloader.Loader[int64, *V] {
	batch := func(ctx context.Context, keys []int64) []*dataloader.Result[*V] {
		rows, err := fetchScoped(ctx, storeID, keys, fetch)
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
	return dataloader.NewBatchedLoader(batch, dataloader.WithWait[int64, *V](batchWait), dataloader.WithCache[int64, *V](&dataloader.NoCache[int64, *V]{}))
}

// manyByKey builds a loader of the records that belong to each key.
func manyByKey[V any](storeID int64, fetch func(context.Context, []int64) ([]V, error), keyOf func(*V) int64) *dataloader.Loader[int64, []V] {
	batch := func(ctx context.Context, keys []int64) []*dataloader.Result[[]V] {
		rows, err := fetchScoped(ctx, storeID, keys, fetch)
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
	return dataloader.NewBatchedLoader(batch, dataloader.WithWait[int64, []V](batchWait), dataloader.WithCache[int64, []V](&dataloader.NoCache[int64, []V]{}))
}

// fetchScoped refuses to query without a store: tenant scoping fails closed.
func fetchScoped[V any](ctx context.Context, storeID int64, keys []int64, fetch func(context.Context, []int64) ([]V, error)) ([]V, error) {
	if storeID == 0 {
		return nil, apperr.New(apperr.Unauthenticated, "an API key is required: send Authorization: Bearer <key>")
	}
	return fetch(ctx, keys)
}
