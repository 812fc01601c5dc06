package main

import (
	"strings"
	"testing"
)

// TestClosuresOnlyWhenDeferred: a resolver field's closure moves into its
// @defer branch, whose deferred closure captures a copy of the field set,
// and the field is resolved in place by calling the literal where it
// stands; a closure of another shape is left alone.
func TestClosuresOnlyWhenDeferred(t *testing.T) {
	lit := "func(ctx context.Context, fs *graphql.FieldSet) (res graphql.Marshaler) {\n\t\t\t\treturn ec._T_f(ctx, field, obj)\n\t\t\t}"
	field := "\t\t\tinnerFunc := " + lit + "\n" +
		"\n\t\t\tif field.IsDeferred() {\n\t\t\t\tfieldIndex := 0\n\t\t\t\t" + deferredCapture + "\n\t\t\t\t})\n\t\t\t\tcontinue\n\t\t\t}\n" +
		"\n\t\t\tout.Values[i] = innerFunc(ctx, out)\n"
	other := "\t\t\tinnerFunc := " + lit + "\n\n\t\t\trrm(innerCtx)\n"
	out, n := closuresOnlyWhenDeferred([]byte(other + field + other))
	if n != 1 {
		t.Fatalf("%d fields rewritten, want 1:\n%s", n, out)
	}
	got := string(out)
	if !strings.HasPrefix(got, other) || !strings.HasSuffix(got, other) {
		t.Fatalf("a closure of another shape changed:\n%s", got)
	}
	for _, want := range []string{
		"if field.IsDeferred() {\n\t\t\t\tinnerFunc := " + lit,
		"set := deferredFieldSet\n", "return innerFunc(ctx, set)",
		"out.Values[i] = " + lit + "(ctx, out)\n",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("the rewrite lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "out.Values[i] = innerFunc(ctx, out)") || strings.Contains(got, "innerFunc(ctx, deferredFieldSet)") {
		t.Fatalf("the field still allocates its closure:\n%s", got)
	}
}
