package graph

import (
	"context"
	"reflect"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/models"
)

// AnswerColumns is what the records of type T that the field being
// resolved answers (a list page, a relation's records) need not read: the
// columns of the fields of T that neither the operation's selection of
// them nor anything resolving that selection reads. It is worked out from
// the selection and from objectReads, which go run ./graph/generate writes
// from the executor and the resolvers: which fields of its object each
// field's resolution reads, and, for a relation's field, which fields of
// its records the relation files them by (answerKeys). When any selected
// field's reads are not known, or the field does not answer records of T,
// every column is read.
//
// The field's resolver must answer the records it reads as they are: a
// resolver that computes from them (the cheapest variant of a product)
// reads them whole.
//
// A list's NextCursor field (ordersNextCursor) answers from the page its
// list field reads (graph.SharedRead), whatever columns it has: it is
// given the columns of its sibling list field of the same arguments, so
// that the two share one statement.
func AnswerColumns[T any](ctx context.Context) models.Columns {
	object, field, typeName, ok := answerField[T](ctx)
	if !ok {
		return models.AllColumns
	}
	ops, ok := ctx.Value(sharedReadsKey{}).(*readsOfOperation)
	if !ok {
		return answerColumns[T](ctx, object, field, typeName)
	}
	// The records of one field are read as one for every parent (a
	// relation's loader per Columns): this is worked out once per field of
	// the operation, not once per parent.
	ops.mu.Lock()
	cols, found := ops.columns[field.Field]
	ops.mu.Unlock()
	if found {
		return cols
	}
	cols = answerColumns[T](ctx, object, field, typeName)
	ops.mu.Lock()
	if ops.columns == nil {
		ops.columns = map[*ast.Field]models.Columns{}
	}
	ops.columns[field.Field] = cols
	ops.mu.Unlock()
	return cols
}

// Selects tells whether the operation selects any of fields (by their
// GraphQL names) of the records of type T that the field being resolved
// answers, or its list answers when it is a NextCursor field (see
// AnswerColumns): a page that shows its records' relations reads them with
// it (Paging.Join).
func Selects[T any](ctx context.Context, fields ...string) bool {
	_, answer, typeName, ok := answerField[T](ctx)
	if !ok {
		return false
	}
	for _, f := range graphql.CollectFields(graphql.GetOperationContext(ctx), answer.Selections, []string{typeName}) {
		if slices.Contains(fields, f.Name) {
			return true
		}
	}
	return false
}

// answerField is the field whose selection says what of the records of
// type T the field being resolved answers: that field, or the list field
// of a NextCursor field. ok is false when there is none (not a field of
// records of T, or a cursor without its list).
func answerField[T any](ctx context.Context) (object string, field graphql.CollectedField, typeName string, ok bool) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || fc.Field.Definition == nil {
		return "", field, "", false
	}
	object, field = fc.Object, fc.Field
	if list, cursor := strings.CutSuffix(field.Name, "NextCursor"); cursor && object == "Query" {
		if field, ok = siblingList(ctx, field, list); !ok {
			return "", field, "", false
		}
	}
	typeName = reflect.TypeFor[T]().Name()
	return object, field, typeName, field.Definition.Type.Name() == typeName
}

// siblingList is the first root field named list asked with the same
// arguments as the root field cursor.
func siblingList(ctx context.Context, cursor graphql.CollectedField, list string) (graphql.CollectedField, bool) {
	op := graphql.GetOperationContext(ctx)
	args := cursor.ArgumentMap(op.Variables)
	for _, f := range graphql.CollectFields(op, op.Operation.SelectionSet, []string{"Query"}) {
		if f.Name == list && f.Definition != nil && reflect.DeepEqual(f.ArgumentMap(op.Variables), args) {
			return f, true
		}
	}
	return graphql.CollectedField{}, false
}

func answerColumns[T any](ctx context.Context, object string, field graphql.CollectedField, typeName string) models.Columns {
	known := objectReads[typeName]
	read := map[string]bool{}
	for _, f := range graphql.CollectFields(graphql.GetOperationContext(ctx), field.Selections, []string{typeName}) {
		if f.Name == "__typename" {
			continue
		}
		fields, ok := known[f.Name]
		if !ok {
			return models.AllColumns
		}
		for _, g := range fields {
			read[g] = true
		}
	}
	for _, g := range answerKeys[object][field.Name] {
		read[g] = true
	}
	// The tables name what the code reads as obj.X: X is a field of T, but
	// it could be a method value, which can read anything.
	t := reflect.TypeFor[T]()
	for g := range read {
		if _, ok := t.FieldByName(g); !ok {
			return models.AllColumns
		}
	}
	return models.Reading[T](func(goField string) bool { return read[goField] })
}
