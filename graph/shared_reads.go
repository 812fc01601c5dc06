package graph

import (
	"context"
	"reflect"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/models"
)

// sharedReads gives each operation a place where sibling root fields that
// answer parts of one read share it: a list and its next cursor
// (`orders` and `ordersNextCursor`) are two root fields, which gqlgen
// resolves concurrently, and the cursor is the list's last row, so the
// list's statement must run once for both (SharedRead).
type sharedReads struct{}

func (sharedReads) ExtensionName() string                   { return "SharedReads" }
func (sharedReads) Validate(graphql.ExecutableSchema) error { return nil }

func (sharedReads) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	return next(context.WithValue(ctx, sharedReadsKey{}, &readsOfOperation{}))
}

type sharedReadsKey struct{}

// readsOfOperation holds an operation's shared reads by key, and the
// columns each field's records are read with (AnswerColumns).
type readsOfOperation struct {
	mu      sync.Mutex
	reads   map[string]*sharedRead
	columns map[*ast.Field]models.Columns
}

type sharedRead struct {
	once  sync.Once
	value any
	err   error
}

// read is the operation's shared read of key, made on first use.
func (ops *readsOfOperation) read(key string) *sharedRead {
	ops.mu.Lock()
	defer ops.mu.Unlock()
	if ops.reads == nil {
		ops.reads = map[string]*sharedRead{}
	}
	r, found := ops.reads[key]
	if !found {
		r = &sharedRead{}
		ops.reads[key] = r
	}
	return r
}

// SharedRead runs read once per operation for key and gives every caller
// of that key its answer. The key names the read and every argument it
// depends on. Outside an operation (a resolver called directly) read just
// runs.
func SharedRead[T any](ctx context.Context, key string, read func() (T, error)) (T, error) {
	ops, ok := ctx.Value(sharedReadsKey{}).(*readsOfOperation)
	if !ok {
		return read()
	}
	r := ops.read(key)
	r.once.Do(func() { r.value, r.err = read() })
	v, _ := r.value.(T)
	return v, r.err
}

// ShareRead gives the shared read key the answer v, unless it has been read
// already: a read another one made on its way (a page's statement that
// read its list's total too) spares its callers a statement.
func ShareRead[T any](ctx context.Context, key string, v T) {
	ops, ok := ctx.Value(sharedReadsKey{}).(*readsOfOperation)
	if !ok {
		return
	}
	r := ops.read(key)
	r.once.Do(func() { r.value = v })
}

// CountFollows tells whether the query asks, after the root field being
// resolved (a list), for the root field count with the same filter
// argument: the list's page can then read its total (ShareRead), which the
// count answers without a statement of its own. Root fields resolve in
// order (graph/generate), so the count then finds it read.
func CountFollows(ctx context.Context, count string) bool {
	op := graphql.GetOperationContext(ctx)
	fc := graphql.GetFieldContext(ctx)
	if op == nil || op.Operation == nil || op.Operation.Operation != ast.Query || fc == nil || fc.Object != "Query" || fc.Field.Field == nil {
		return false
	}
	filter := fc.Field.ArgumentMap(op.Variables)["filter"]
	after := false
	for _, f := range graphql.CollectFields(op, op.Operation.SelectionSet, []string{"Query"}) {
		if f.Field == fc.Field.Field {
			after = true
			continue
		}
		if after && f.Name == count && reflect.DeepEqual(f.ArgumentMap(op.Variables)["filter"], filter) {
			return true
		}
	}
	return false
}
