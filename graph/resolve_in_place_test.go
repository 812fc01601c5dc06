package graph

import (
	"context"
	"errors"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// inPlace is a field resolved in place as the generated executor writes it
// (graph/generate, resolved.go), around resolve.
func inPlace(ctx context.Context, oc *graphql.OperationContext, resolve func() (*int64, error)) (ret graphql.Marshaler) {
	ctx, fc := withFieldContext(ctx, graphql.FieldContext{Object: "T", Field: graphql.CollectedField{Field: &ast.Field{Alias: "f", Name: "f"}}, IsResolver: true})
	defer recoverField(ctx, oc, &ret)
	v, err := resolve()
	if err != nil {
		return fieldFailed(ctx, oc, fc, err, false)
	}
	fc.Result = v
	if v == nil {
		return graphql.Null
	}
	return graphql.MarshalInt64(*v)
}

// TestFieldsResolvedInPlace: a field resolved in place answers its value
// and keeps it as its Result; a resolver's error or panic is the field's
// error, at the field's path, and the field is null.
func TestFieldsResolvedInPlace(t *testing.T) {
	oc := &graphql.OperationContext{RecoverFunc: func(context.Context, any) error { return errors.New("panic in resolver") }}
	ctx := responseContext(context.Background())
	n := int64(7)
	if got := inPlace(ctx, oc, func() (*int64, error) { return &n, nil }); got == graphql.Null {
		t.Fatal("a resolved field must answer its value")
	}
	if got := inPlace(ctx, oc, func() (*int64, error) { return nil, errors.New("not found") }); got != graphql.Null {
		t.Fatalf("a failed field: %v, want null", got)
	}
	if got := inPlace(ctx, oc, func() (*int64, error) { panic("boom") }); got != graphql.Null {
		t.Fatalf("a panicking field: %v, want null", got)
	}
	errs := graphql.GetErrors(ctx)
	if len(errs) != 2 || errs[0].Message != "not found" || errs[1].Message != "panic in resolver" {
		t.Fatalf("errors %v, want the resolver's and the panic's", errs)
	}
	for _, e := range errs {
		if len(e.Path) != 1 || e.Path[0] != ast.PathName("f") {
			t.Fatalf("error %q at %v, want the field's path", e.Message, e.Path)
		}
	}
}
