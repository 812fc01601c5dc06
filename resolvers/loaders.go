package resolvers

import (
	"context"

	"storeadmin/graph"
	"storeadmin/internal/apperr"
)

// loadMany loads the records that belong to key through the request's
// loader picked by pick; keyField names the field of the object being
// resolved that holds key, so that it loads with its siblings.
func loadMany[V any](ctx context.Context, key int64, keyField string, pick func(*graph.Loaders) *graph.Loader[[]V]) ([]V, error) {
	l, err := graph.LoadersFrom(ctx)
	if err != nil {
		return nil, err
	}
	return pick(l).LoadFor(ctx, key, keyField)
}

// loadOne loads the record with key, as loadMany does; what names it in
// the not-found error.
func loadOne[V any](ctx context.Context, key int64, keyField, what string, pick func(*graph.Loaders) *graph.Loader[*V]) (*V, error) {
	v, err := loadMaybe(ctx, key, keyField, pick)
	if err == nil && v == nil {
		err = apperr.NotFoundf("%s was not found", what)
	}
	return v, err
}

// loadMaybe loads the record with key, as loadOne does, for relations that
// may be absent: a missing record is nil, not an error.
func loadMaybe[V any](ctx context.Context, key int64, keyField string, pick func(*graph.Loaders) *graph.Loader[*V]) (*V, error) {
	l, err := graph.LoadersFrom(ctx)
	if err != nil {
		return nil, err
	}
	return pick(l).LoadFor(ctx, key, keyField)
}
