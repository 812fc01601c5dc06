package graph

import (
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// object writes an object of the answer: its fields in order, each under
// its response name. The generated executor returns it in place of the
// object's graphql.FieldSet (go run ./graph/generate), whose MarshalGQL
// copies every field to the heap on its way out and keeps a map of the
// names written: an allocation per field and a few per object, for a
// check that cannot fail here, since graphql.CollectFields makes one entry
// per response name.
type object struct {
	fields []graphql.CollectedField
	values []graphql.Marshaler
}

func (o *object) MarshalGQL(w io.Writer) {
	io.WriteString(w, "{")
	for i := range o.fields {
		if i > 0 {
			io.WriteString(w, ",")
		}
		// A response name is a GraphQL name ([_A-Za-z][_0-9A-Za-z]*):
		// nothing in it needs escaping.
		io.WriteString(w, `"`)
		io.WriteString(w, o.fields[i].Alias)
		io.WriteString(w, `":`)
		o.values[i].MarshalGQL(w)
	}
	io.WriteString(w, "}")
}
