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

// objectFields is an object being resolved: gqlgen's field set, which the
// generated code fills and dispatches (root fields run concurrently
// through it), and the object the answer writes, sharing one array of
// values, inline for objects of up to inlineFields fields. One allocation
// instead of three for every object of an answer: a page of products with
// their variants has 200.
type objectFields struct {
	set    graphql.FieldSet
	obj    object
	inline [inlineFields]graphql.Marshaler
}

const inlineFields = 8

// newObject makes the field set and the object of an object with fields.
// The field set's own list of fields stays empty: only its MarshalGQL and
// @defer's views read it, and neither meets it (the object is written
// instead; deferred fields have a field set of their own).
func newObject(fields []graphql.CollectedField) (*graphql.FieldSet, *object) {
	o := new(objectFields)
	var values []graphql.Marshaler
	if len(fields) <= inlineFields {
		values = o.inline[:len(fields)]
	} else {
		values = make([]graphql.Marshaler, len(fields))
	}
	o.set.Values = values
	o.obj = object{fields: fields, values: values}
	return &o.set, &o.obj
}
