package main

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestFieldReadsAreCurrent fails when graph/field_reads.go does not say
// what the current executor and resolvers read: a resolver can change
// without the schema changing. Regenerate with go run ./graph/generate.
func TestFieldReadsAreCurrent(t *testing.T) {
	reads := serviceReads(t)
	want, err := reads.source()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../field_reads.go")
	if err != nil {
		t.Fatalf("%v: generate it with go run ./graph/generate", err)
	}
	if string(got) != string(want) {
		t.Fatal("graph/field_reads.go is stale (the executor or a resolver changed since): regenerate with go run ./graph/generate")
	}
}

// TestFieldReadsOfTheService checks entries a person can check by hand in
// the service's own executor and resolvers.
func TestFieldReadsOfTheService(t *testing.T) {
	reads := serviceReads(t)
	for _, c := range []struct {
		table      map[string]map[string][]string
		typ, field string
		want       []string
	}{
		{reads.objects, "Product", "id", []string{"ID"}},
		{reads.objects, "Product", "title", []string{"Title"}},
		{reads.objects, "Product", "handle", []string{"Handle"}},
		{reads.objects, "Product", "body_html", []string{"BodyHTML"}},
		{reads.objects, "Product", "variants", []string{"ID"}}, // under @access
		{reads.objects, "Product", "reviews", []string{"ID"}},  // with an argument
		{reads.objects, "ProductVariant", "sku", []string{"SKU"}},
		{reads.objects, "ProductVariant", "price_cents", []string{"PriceCents"}},
		{reads.objects, "Order", "customer", []string{"CustomerID"}},
		{reads.objects, "Order", "line_items", []string{"ID"}},
		{reads.objects, "OrderLineItem", "variant", []string{"VariantID"}},
		{reads.objects, "Refund", "order_financial_status", []string{"OrderFinancialStatus", "OrderID"}},
		{reads.answerKeys, "Product", "variants", []string{"ProductID"}},
		{reads.answerKeys, "Order", "line_items", []string{"OrderID"}},
		{reads.answerKeys, "Order", "customer", []string{"ID"}},
		{reads.answerKeys, "OrderLineItem", "variant", []string{"ID"}},
	} {
		if got, ok := c.table[c.typ][c.field]; !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s.%s: %v (known %v), want %v", c.typ, c.field, got, ok, c.want)
		}
	}
	for _, unknown := range []struct{ typ, field string }{
		{"Collection", "rules"},      // obj.Rules(), a method of the model
		{"Order", "fulfilled"},       // obj passed to r.LineItems
		{"Review", "product_handle"}, // obj passed to a helper
	} {
		if got, ok := reads.objects[unknown.typ][unknown.field]; ok {
			t.Errorf("%s.%s: %v, want unknown", unknown.typ, unknown.field, got)
		}
	}
	if _, ok := reads.answerKeys["Product"]["collections"]; ok {
		t.Error("Product.collections (ManyThrough) has answered keys, want none")
	}
	for typ := range reads.objects {
		if strings.HasPrefix(typ, "__") {
			t.Errorf("introspection type %s has reads", typ)
		}
	}
}

func serviceReads(t *testing.T) fieldReads {
	t.Helper()
	src, err := os.ReadFile("../generated.go")
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := readResolvers("../../resolvers")
	if err != nil {
		t.Fatal(err)
	}
	reads, err := readsOf(src, srcs)
	if err != nil {
		t.Fatal(err)
	}
	return reads
}

// directive is gqlgen's directive literal applying the directive name to a
// field of an object.
func directive(name string) string {
	return strings.ReplaceAll(`func(ctx context.Context, next graphql.Resolver) graphql.Resolver {
			directive0 := next
			directive1 := func(ctx context.Context) (any, error) {
				if ec.Directives.NAME == nil {
					return nil, errors.New("directive NAME is not implemented")
				}
				return ec.Directives.NAME(ctx, obj, directive0, "products:read", nil)
			}
			next = directive1
			return next
		}`, "NAME", name)
}

// readsExecutor holds a field of each shape the analysis tells apart, as
// gqlgen writes them (plainFields rewrites some).
var readsExecutor = "package graph\n" +
	generatedField("plain", "obj.Plain, nil", "nil", "string", "marshalNString2string", "true", true) +
	generatedField("body_html", "obj.BodyHTML, nil", "nil", "string", "marshalNString2string", "true", true) +
	generatedField("child", "obj.Child, nil", "nil", "*models.U", "marshalOU2ᚖmodelsᚐU", "false", false) +
	generatedField("nested", "obj.Meta.Note, nil", "nil", "string", "marshalNString2string", "true", true) +
	generatedField("shown", "obj.Shown(), nil", "nil", "string", "marshalNString2string", "true", true) +
	generatedField("guarded", "obj.Guarded, nil", directive("Other"), "string", "marshalNString2string", "true", true) +
	generatedField("both", "ec.Resolvers.T().Both(ctx, obj)", "nil", "string", "marshalNString2string", "true", true) +
	generatedField("nil_checked", "ec.Resolvers.T().NilChecked(ctx, obj)", "nil", "string", "marshalNString2string", "true", true) +
	generatedField("us", "ec.Resolvers.T().Us(ctx, obj)", directive("Access"), "[]models.U", "marshalNU2ᚕmodelsᚐUᚄ", "true", false) +
	generatedField("us_guarded", "ec.Resolvers.T().Us(ctx, obj)", directive("Other"), "[]models.U", "marshalNU2ᚕmodelsᚐUᚄ", "true", false) +
	generatedField("owner", "ec.Resolvers.T().Owner(ctx, obj)", "nil", "*models.Owner", "marshalOOwner2ᚖmodelsᚐOwner", "false", false) +
	generatedField("tags", "ec.Resolvers.T().Tags(ctx, obj)", "nil", "[]models.Tag", "marshalNTag2ᚕmodelsᚐTagᚄ", "true", false) +
	generatedField("us_count", "ec.Resolvers.T().UsCount(ctx, obj)", "nil", "int64", "marshalNInt2int64", "true", true) +
	generatedField("passed", "ec.Resolvers.T().Passed(ctx, obj)", "nil", "string", "marshalNString2string", "true", true) +
	generatedField("method", "ec.Resolvers.T().Method(ctx, obj)", "nil", "string", "marshalNString2string", "true", true) +
	generatedField("shadowed", "ec.Resolvers.T().Shadowed(ctx, obj)", "nil", "[]models.U", "marshalNU2ᚕmodelsᚐUᚄ", "true", false) +
	generatedField("missing", "ec.Resolvers.T().Missing(ctx, obj)", "nil", "string", "marshalNString2string", "true", true)

var readsResolvers = map[string][]byte{"t.go": []byte(`package resolvers

import (
	"context"

	"storeadmin/internal/loaders"
	"storeadmin/models"
)

var (
	tUs    = loaders.Many(models.UsByT, tID, func(u *models.U) int64 { return u.TID })
	tOwner = loaders.One(models.OwnersByID, func(t *models.T) *int64 { return t.OwnerID }, func(o *models.Owner) int64 { return o.ID })
	tTags  = loaders.ManyThrough(models.TagsByT, tID, func(l *models.TagLink) (int64, models.Tag) { return l.TID, l.Tag })
)

func tID(t *models.T) int64 { return t.ID }

func (r *tResolver) Both(ctx context.Context, obj *models.T) (string, error) {
	return obj.A + obj.B.C, nil
}

func (r *tResolver) NilChecked(ctx context.Context, obj *models.T) (string, error) {
	if obj == nil || len(obj.A) == 0 {
		return "", nil
	}
	return obj.A, nil
}

func (r *tResolver) Us(ctx context.Context, obj *models.T) ([]models.U, error) {
	return tUs.Load(ctx, obj)
}

func (r *tResolver) Owner(ctx context.Context, obj *models.T) (*models.Owner, error) {
	return tOwner.Load(ctx, obj)
}

func (r *tResolver) Tags(ctx context.Context, obj *models.T) ([]models.Tag, error) {
	return tTags.Load(ctx, obj)
}

func (r *tResolver) UsCount(ctx context.Context, obj *models.T) (int64, error) {
	us, err := tUs.Load(ctx, obj)
	return int64(len(us)), err
}

func (r *tResolver) Passed(ctx context.Context, obj *models.T) (string, error) {
	return describe(obj), nil
}

func (r *tResolver) Method(ctx context.Context, obj *models.T) (string, error) {
	return obj.Describe(), nil
}

func (r *tResolver) Shadowed(ctx context.Context, obj *models.T) ([]models.U, error) {
	tUs := other
	return tUs.Load(ctx, obj)
}

func describe(t *models.T) string { return t.A }
`)}

// TestReadsOf tells each shape's reads, or that they are unknown, from
// gqlgen's shape of the executor and from the rewritten one alike.
func TestReadsOf(t *testing.T) {
	rewritten, n, err := plainFields([]byte(readsExecutor))
	if err != nil || n == 0 {
		t.Fatalf("rewrite: %d fields, %v", n, err)
	}
	wantObjects := map[string]map[string][]string{"T": {
		"plain":       {"Plain"},
		"body_html":   {"BodyHTML"},
		"child":       {"Child"},
		"nested":      {"Meta"},
		"both":        {"A", "B"},
		"nil_checked": {"A"},
		"us":          {"ID"},
		"owner":       {"OwnerID"},
		"tags":        {"ID"},
		"us_count":    {"ID"},
	}}
	wantKeys := map[string]map[string][]string{"T": {
		"us":    {"TID"},
		"owner": {"ID"},
	}}
	for shape, src := range map[string]string{"gqlgen's": readsExecutor, "rewritten": string(rewritten)} {
		reads, err := readsOf([]byte(src), readsResolvers)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(reads.objects, wantObjects) {
			t.Errorf("%s executor: objectReads\n%v, want\n%v", shape, reads.objects, wantObjects)
		}
		if !reflect.DeepEqual(reads.answerKeys, wantKeys) {
			t.Errorf("%s executor: answerKeys\n%v, want\n%v", shape, reads.answerKeys, wantKeys)
		}
	}
}

// TestFieldReadsSource writes sorted tables, the same each time.
func TestFieldReadsSource(t *testing.T) {
	reads, err := readsOf([]byte(readsExecutor), readsResolvers)
	if err != nil {
		t.Fatal(err)
	}
	first, err := reads.source()
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		again, _ := reads.source()
		if string(again) != string(first) {
			t.Fatal("field_reads.go differs from one run to the next")
		}
	}
	src := string(first)
	for _, want := range []string{
		"// Code generated by go run ./graph/generate. DO NOT EDIT.\n\npackage graph\n",
		"\t\t\"both\":        {\"A\", \"B\"},\n\t\t\"child\":",
		"var answerKeys = map[string]map[string][]string{\n\t\"T\": {\n\t\t\"owner\": {\"ID\"},\n\t\t\"us\":    {\"TID\"},\n\t},\n}\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("field_reads.go lacks %q:\n%s", want, src)
		}
	}
}
