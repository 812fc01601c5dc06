package limits

import (
	"strconv"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// CheckShape refuses a parsed, not yet validated, document that nests
// deeper than MaxDepth, has a selection set of more than
// MaxSelectionFields fields, more than MaxAliases aliases, MaxFragments
// fragments or MaxFields fields once its fragments are expanded. Each
// fragment is measured once and its measure reused wherever it is spread,
// so a document whose fragments expand exponentially (each spreading the
// next twice) is measured in time linear in its text.
func CheckShape(doc *ast.QueryDocument) *gqlerror.Error {
	if n := len(doc.Fragments); n > MaxFragments {
		return refuse("the query defines %d fragments; the limit is %d per document", n, MaxFragments)
	}
	m := measurer{fragments: doc.Fragments, memo: map[string]*measure{}}
	var whole measure
	for _, op := range doc.Operations {
		whole = whole.plus(m.set(op.SelectionSet))
	}
	for _, f := range doc.Fragments {
		m.fragment(f.Name) // a fragment no operation spreads is validated all the same
	}
	switch {
	case m.widest > MaxSelectionFields:
		return refuse("a selection set asks for %s fields, its fragments included; the limit is %d per selection set", count(m.widest), MaxSelectionFields)
	case whole.depth > MaxDepth:
		return refuse("the query nests fields %d levels deep; the limit is %d", whole.depth, MaxDepth)
	case whole.aliases > MaxAliases:
		return refuse("the query uses %s aliases, its fragments expanded; the limit is %d per document", count(whole.aliases), MaxAliases)
	case whole.fields > MaxFields:
		return refuse("the query selects %s fields once its fragments are expanded; the limit is %d per document", count(whole.fields), MaxFields)
	}
	return nil
}

// measure is what a selection set amounts to once its fragments are
// expanded.
type measure struct {
	top     int64 // fields at its own level
	fields  int64 // fields at every level
	aliases int64
	depth   int64
}

func (a measure) plus(b measure) measure {
	return measure{top: add(a.top, b.top), fields: add(a.fields, b.fields), aliases: add(a.aliases, b.aliases), depth: max(a.depth, b.depth)}
}

type measurer struct {
	fragments ast.FragmentDefinitionList
	memo      map[string]*measure
	widest    int64 // the most fields of one selection set
}

func (m *measurer) set(set ast.SelectionSet) measure {
	var out measure
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			inner := m.set(s.SelectionSet)
			f := measure{top: 1, fields: add(1, inner.fields), aliases: inner.aliases, depth: inner.depth + 1}
			if s.Name == "__schema" || s.Name == "__type" {
				// Introspection nests deeper than any query of data
				// (GraphiQL's, 15 levels), and validation bounds it
				// (MaxIntrospectionDepth); its fields still count.
				f.depth = 1
			}
			if s.Alias != "" && s.Alias != s.Name {
				f.aliases = add(f.aliases, 1)
			}
			out = out.plus(f)
		case *ast.InlineFragment:
			out = out.plus(m.set(s.SelectionSet))
		case *ast.FragmentSpread:
			out = out.plus(m.fragment(s.Name))
		}
	}
	m.widest = max(m.widest, out.top)
	return out
}

// fragment measures the fragment name once. An unknown fragment, or one
// spread inside itself, measures nothing here: validation reports both.
func (m *measurer) fragment(name string) measure {
	if got, ok := m.memo[name]; ok {
		if got == nil {
			return measure{} // a cycle
		}
		return *got
	}
	def := m.fragments.ForName(name)
	if def == nil {
		return measure{}
	}
	m.memo[name] = nil
	got := m.set(def.SelectionSet)
	m.memo[name] = &got
	return got
}

// saturation caps the sums and products of the measures and the cost, so
// that an exponential document cannot overflow them.
const saturation = int64(1) << 50

func add(a, b int64) int64 {
	if a+b > saturation {
		return saturation
	}
	return a + b
}

func mul(a, b int64) int64 {
	if a != 0 && b > saturation/a {
		return saturation
	}
	return min(a*b, saturation)
}

// count words a measure, saying so when it saturated.
func count(n int64) string {
	if n >= saturation {
		return "more than 10^15"
	}
	return strconv.FormatInt(n, 10)
}
