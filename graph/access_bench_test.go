package graph

import (
	"context"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"storeadmin/internal/auth"
)

// BenchmarkNestedAccess is the cost @access adds to one nested field of one
// object (a line's product): the principal's check, in memory, at the depth
// of orders.line_items.product, for a key with scopes (the slower case: a
// key without scopes holds everything at once).
func BenchmarkNestedAccess(b *testing.B) {
	ctx := auth.WithPrincipal(context.Background(), &auth.Principal{Kind: auth.KindAPIKey, StoreID: 1, ActorID: 1, Role: auth.RoleStaff,
		Scopes: auth.Scopes{"draft-orders:read", "orders:read", "products:read"}})
	for _, object := range []string{"Query", "Order", "OrderLineItem"} {
		ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Object: object})
	}
	next := func(context.Context) (any, error) { return nil, nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := accessDirective(ctx, nil, next, "products:read", nil); err != nil {
			b.Fatal(err)
		}
	}
}
