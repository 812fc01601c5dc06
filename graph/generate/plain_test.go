package main

import (
	"os"
	"strings"
	"testing"
)

// TestGeneratedExecutorIsRewritten fails when graph/generated.go was made
// by gqlgen alone: regenerate with go run ./graph/generate.
func TestGeneratedExecutorIsRewritten(t *testing.T) {
	src, err := os.ReadFile("../generated.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "return ec.marshalNString2string(ctx, field.Selections, obj.") {
		t.Fatal("graph/generated.go has no plain field marshalled directly: regenerate with go run ./graph/generate")
	}
	out, n, err := rewrite(src)
	if err != nil {
		t.Fatal(err)
	}
	for i, left := range n {
		if left != 0 {
			t.Fatalf("graph/generated.go is not rewritten (%d places of rewrite %d left): regenerate with go run ./graph/generate", left, i)
		}
	}
	if string(out) != string(src) {
		t.Fatal("rewriting graph/generated.go again changes it: a rewrite is not idempotent")
	}
}

const sample = `package graph

func (ec *executionContext) _T_plain(ctx context.Context, field graphql.CollectedField, obj *models.T) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_T_plain(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.Plain, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v string) graphql.Marshaler {
			return ec.marshalNString2string(ctx, selections, v)
		},
		true,
		true,
	)
}
func (ec *executionContext) fieldContext_T_plain(_ context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
	return graphql.NewScalarFieldContext("T", field, false, false, errors.New("field of type String does not have child fields"))
}

func (ec *executionContext) _T_maybe(ctx context.Context, field graphql.CollectedField, obj *models.T) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_T_maybe(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.Maybe, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v *int64) graphql.Marshaler {
			return ec.marshalOInt2ᚖint64(ctx, selections, v)
		},
		true,
		false,
	)
}
func (ec *executionContext) fieldContext_T_maybe(_ context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
	return graphql.NewScalarFieldContext("T", field, false, false, errors.New("field of type Int does not have child fields"))
}

func (ec *executionContext) _T_required(ctx context.Context, field graphql.CollectedField, obj *models.T) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_T_required(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.Required, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v *int64) graphql.Marshaler {
			return ec.marshalNInt2ᚖint64(ctx, selections, v)
		},
		true,
		true,
	)
}
func (ec *executionContext) fieldContext_T_required(_ context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
	return graphql.NewScalarFieldContext("T", field, false, false, errors.New("field of type Int does not have child fields"))
}

func (ec *executionContext) _T_guarded(ctx context.Context, field graphql.CollectedField, obj *models.T) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_T_guarded(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.Guarded, nil
		},
		func(ctx context.Context, next graphql.Resolver) graphql.Resolver {
			return next
		},
		func(ctx context.Context, selections ast.SelectionSet, v string) graphql.Marshaler {
			return ec.marshalNString2string(ctx, selections, v)
		},
		true,
		true,
	)
}
func (ec *executionContext) fieldContext_T_guarded(_ context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
	return graphql.NewScalarFieldContext("T", field, false, false, errors.New("field of type String does not have child fields"))
}

func (ec *executionContext) _T_resolved(ctx context.Context, field graphql.CollectedField, obj *models.T) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_T_resolved(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return ec.Resolvers.T().Resolved(ctx, obj)
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v string) graphql.Marshaler {
			return ec.marshalNString2string(ctx, selections, v)
		},
		true,
		true,
	)
}
func (ec *executionContext) fieldContext_T_resolved(_ context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
	return graphql.NewScalarFieldContext("T", field, true, true, errors.New("field of type String does not have child fields"))
}

func (ec *executionContext) _T_child(ctx context.Context, field graphql.CollectedField, obj *models.T) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_T_child(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.Child, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v *models.U) graphql.Marshaler {
			return ec.marshalOU2ᚖmodelsᚐU(ctx, selections, v)
		},
		true,
		false,
	)
}
func (ec *executionContext) fieldContext_T_child(_ context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
	fc = &graphql.FieldContext{Object: "T", Field: field}
	return fc, nil
}
`

// TestPlainFields rewrites exactly the fields read from a struct field
// with no directive, of a scalar type, that cannot be a forbidden null.
func TestPlainFields(t *testing.T) {
	out, n, err := plainFields([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		"return ec.marshalNString2string(ctx, field.Selections, obj.Plain)",
		"return ec.marshalOInt2ᚖint64(ctx, field.Selections, obj.Maybe)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("not rewritten: %s", want)
		}
	}
	for _, kept := range []string{"obj.Required, nil", "obj.Guarded, nil", "Resolved(ctx, obj)", "obj.Child, nil"} {
		if !strings.Contains(got, kept) {
			t.Errorf("rewritten, but must keep ResolveField: %s", kept)
		}
	}
	if n != 2 {
		t.Errorf("%d fields rewritten, want 2", n)
	}
	again, n, err := plainFields(out)
	if err != nil || n != 0 || string(again) != got {
		t.Errorf("a second rewrite changed %d fields (err %v)", n, err)
	}
}
