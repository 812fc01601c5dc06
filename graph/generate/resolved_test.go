package main

import (
	"strings"
	"testing"
)

// accessMiddleware is gqlgen's middleware of a field whose one directive
// is @access(scope: "products:read").
const accessMiddleware = `func(ctx context.Context, next graphql.Resolver) graphql.Resolver {
			directive0 := next

			directive1 := func(ctx context.Context) (any, error) {
				scope, err := ec.unmarshalNString2string(ctx, "products:read")
				if err != nil {
					var zeroVal *models.U
					return zeroVal, err
				}
				if ec.Directives.Access == nil {
					var zeroVal *models.U
					return zeroVal, errors.New("directive access is not implemented")
				}
				return ec.Directives.Access(ctx, obj, directive0, scope, nil)
			}

			next = directive1
			return next
		}`

// TestResolverFieldsInPlace rewrites the resolver fields below the root
// with no directive or @access alone, of a type that is no interface, and
// leaves every other field to ResolveField.
func TestResolverFieldsInPlace(t *testing.T) {
	src := "package graph\n" +
		generatedField("customer", "ec.Resolvers.T().Customer(ctx, obj)", "nil", "*models.U", "marshalOU2ᚖmodelsᚐU", "false", false) +
		generatedField("price", "ec.Resolvers.T().Price(ctx, obj)", "nil", "*int64", "marshalOInt2ᚖint64", "false", true) +
		generatedField("variant", "ec.Resolvers.T().Variant(ctx, obj)", accessMiddleware, "*models.U", "marshalOU2ᚖmodelsᚐU", "false", false) +
		generatedField("guarded", "ec.Resolvers.T().Guarded(ctx, obj)", "func(ctx context.Context, next graphql.Resolver) graphql.Resolver { return next }", "*models.U", "marshalOU2ᚖmodelsᚐU", "false", false) +
		generatedField("json", "ec.Resolvers.T().JSON(ctx, obj)", "nil", "any", "marshalOJSON2interface", "false", true) +
		strings.ReplaceAll(generatedField("orders", "ec.Resolvers.Query().Orders(ctx)", "nil", "[]models.U", "marshalNU2ᚕmodelsᚐUᚄ", "true", false), "_T_orders", "_Query_orders")
	out, n, err := resolverFieldsInPlace([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if n != 3 {
		t.Errorf("%d fields resolved in place, want 3 (customer, price, variant):\n%s", n, got)
	}
	for _, want := range []string{
		"ctx, fc := withFieldContext(ctx, graphql.FieldContext{Object: \"T\", Field: field})",
		"v, err := func(ctx context.Context) (*models.U, error) {\n\t\t\treturn ec.Resolvers.T().Customer(ctx, obj)\n\t\t}(ctx)",
		"ctx, fc := withFieldContext(ctx, graphql.FieldContext{Object: \"T\", Field: field, IsMethod: false, IsResolver: false})",
		"if err := fieldAccess(ctx, \"products:read\", nil); err != nil {",
		"return ec.Resolvers.T().Variant(ctx, obj)",
		"fc.Result = v\n\treturn ec.marshalOU2ᚖmodelsᚐU(ctx, field.Selections, v)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("not rewritten: %s", want)
		}
	}
	for _, kept := range []string{"Guarded(ctx, obj)", "JSON(ctx, obj)", "Query().Orders(ctx)"} {
		i := strings.Index(got, kept)
		if i < 0 || !strings.Contains(got[max(i-400, 0):i], "graphql.ResolveField(") {
			t.Errorf("must keep ResolveField: %s", kept)
		}
	}
	if again, n, err := resolverFieldsInPlace(out); err != nil || n != 0 || string(again) != got {
		t.Errorf("a second rewrite changed %d fields (err %v)", n, err)
	}
}
