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
	if !strings.Contains(string(src), "return models.StringAt(&obj.") {
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

// generatedField is a field resolver as gqlgen writes it (name, the
// resolver's return, the middleware, the value's Go type, its marshaller,
// whether it is non-null), with its field context: a scalar's, or an
// object's when scalar is false.
func generatedField(name, resolved, middleware, goType, marshal, nonNull string, scalar bool) string {
	fieldContext := `return graphql.NewScalarFieldContext("T", field, false, false, errors.New("field of type X does not have child fields"))`
	if !scalar {
		fieldContext = `fc = &graphql.FieldContext{Object: "T", Field: field}
	return fc, nil`
	}
	return strings.NewReplacer(
		"NAME", name, "RESOLVED", resolved, "MIDDLEWARE", middleware, "GOTYPE", goType,
		"MARSHAL", marshal, "NONNULL", nonNull, "FIELDCONTEXT", fieldContext,
	).Replace(`
func (ec *executionContext) _T_NAME(ctx context.Context, field graphql.CollectedField, obj *models.T) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_T_NAME(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return RESOLVED
		},
		MIDDLEWARE,
		func(ctx context.Context, selections ast.SelectionSet, v GOTYPE) graphql.Marshaler {
			return ec.MARSHAL(ctx, selections, v)
		},
		true,
		NONNULL,
	)
}
func (ec *executionContext) fieldContext_T_NAME(_ context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
	FIELDCONTEXT
}
`)
}

// sample holds one field of each kind the rewrite must tell apart.
var sample = "package graph\n" +
	generatedField("plain", "obj.Plain, nil", "nil", "string", "marshalNString2string", "true", true) +
	generatedField("maybe", "obj.Maybe, nil", "nil", "*int64", "marshalOInt2ᚖint64", "false", true) +
	generatedField("flag", "obj.Flag, nil", "nil", "bool", "marshalNBoolean2bool", "true", true) +
	generatedField("required", "obj.Required, nil", "nil", "*int64", "marshalNInt2ᚖint64", "true", true) +
	generatedField("guarded", "obj.Guarded, nil", "func(ctx context.Context, next graphql.Resolver) graphql.Resolver { return next }", "string", "marshalNString2string", "true", true) +
	generatedField("resolved", "ec.Resolvers.T().Resolved(ctx, obj)", "nil", "string", "marshalNString2string", "true", true) +
	generatedField("child", "obj.Child, nil", "nil", "*models.U", "marshalOU2ᚖmodelsᚐU", "false", false)

// TestPlainFields rewrites exactly the fields read from a struct field
// with no directive, of a scalar type, that cannot be a forbidden null;
// a String, Int or Time is written by address.
func TestPlainFields(t *testing.T) {
	out, n, err := plainFields([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		"return models.StringAt(&obj.Plain)",
		"return models.IntOrNull(obj.Maybe)",
		"return ec.marshalNBoolean2bool(ctx, field.Selections, obj.Flag)",
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
	if n != 3 {
		t.Errorf("%d fields rewritten, want 3", n)
	}
	again, n, err := plainFields(out)
	if err != nil || n != 0 || string(again) != got {
		t.Errorf("a second rewrite changed %d fields (err %v)", n, err)
	}
}
