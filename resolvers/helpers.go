package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// storeID is the caller's store; every tenant query starts here.
func storeID(ctx context.Context) (int64, error) { return auth.StoreID(ctx) }

// text checks a free-text field: trimmed, within max runes, and present
// when required.
func text(field, v string, maxRunes int, required bool) (string, error) {
	v = strings.TrimSpace(v)
	if required && v == "" {
		return "", apperr.Invalidf("%s must not be empty", field)
	}
	if utf8.RuneCountInString(v) > maxRunes {
		return "", apperr.Invalidf("%s must be at most %d characters", field, maxRunes)
	}
	return v, nil
}

// email checks an email address; empty is allowed unless required.
func email(field, v string, required bool) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" && !required {
		return "", nil
	}
	a, err := mail.ParseAddress(v)
	if err != nil || a.Address != v || !strings.Contains(v, "@") {
		return "", apperr.Invalidf("%s must be an email address such as ana@example.com", field)
	}
	return v, nil
}

// oneOf checks that v is one of allowed.
func oneOf(field, v string, allowed ...string) (string, error) {
	if !slices.Contains(allowed, v) {
		return "", apperr.Invalidf("%s must be one of %s, not %q", field, strings.Join(allowed, ", "), v)
	}
	return v, nil
}

// matches checks v against re, described for people by shape.
func matches(field, v string, re *regexp.Regexp, shape string) (string, error) {
	if !re.MatchString(v) {
		return "", apperr.Invalidf("%s must be %s", field, shape)
	}
	return v, nil
}

// jsonSize checks that a JSON value encodes within max bytes, as stored:
// without HTML escaping, which would count each < as six bytes.
func jsonSize(field string, v any, max int) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return apperr.Invalidf("%s is not a JSON value", field)
	}
	if buf.Len()-1 > max { // Encode appends a newline
		return apperr.Invalidf("%s must be at most %d bytes of JSON", field, max)
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// listPage runs a list of the caller's store with the client's paging: the
// shape of every list resolver.
func listPage[T any](ctx context.Context, limit, offset *int64, list func(storeID int64, p models.Paging) ([]T, error)) ([]T, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	p, err := paging[T](ctx, limit, offset, nil)
	if err != nil {
		return nil, err
	}
	return list(sid, p)
}

// paging checks the client's limit, offset and cursor for a list of T, and
// leaves out the columns of T the operation does not read, when the field
// being resolved is that list (graph.AnswerColumns).
func paging[T any](ctx context.Context, limit, offset *int64, cursor *string) (models.Paging, error) {
	p, err := models.NewPaging(limit, offset)
	if err == nil {
		p, err = p.After(cursor)
	}
	if err != nil {
		return p, err
	}
	p.Columns = graph.AnswerColumns[T](ctx)
	return p, nil
}

// inStore runs fn with the caller's store: the shape of counts and reads.
func inStore[T any](ctx context.Context, fn func(storeID int64) (T, error)) (T, error) {
	sid, err := storeID(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	return fn(sid)
}

// filter is a list filter: a pointer that checks what it holds.
type filter[F any] interface {
	*F
	Check() error
}

// checkedFilter checks a list filter; left out, it filters nothing.
func checkedFilter[F any, P filter[F]](f P) (F, error) {
	if f == nil {
		var zero F
		return zero, nil
	}
	return *f, f.Check()
}

// filteredPage is listPage over a list filter, which is checked first.
func filteredPage[F any, P filter[F], T any](ctx context.Context, f P, limit, offset *int64, list func(storeID int64, f F, p models.Paging) ([]T, error)) ([]T, error) {
	checked, err := checkedFilter(f)
	if err != nil {
		return nil, err
	}
	return listPage(ctx, limit, offset, func(sid int64, p models.Paging) ([]T, error) { return list(sid, checked, p) })
}

// cursorPage is the page of a list that answers the cursor of its next
// page, under a filter already checked. The list field and its NextCursor
// sibling ask for the same page, so it is one read per operation for both
// (graph.SharedRead), keyed by the list and every argument.
func cursorPage[F, T any](ctx context.Context, list string, f F, limit, offset *int64, cursor *string, read func(storeID int64, f F, p models.Paging) (models.Page[T], error)) (models.Page[T], error) {
	sid, err := storeID(ctx)
	if err != nil {
		return models.Page[T]{}, err
	}
	// The page leaves out the columns its list field does not read (its
	// NextCursor sibling asks for the same ones, graph.AnswerColumns): the
	// first of the two to run makes the read, and it answers both. Two
	// aliases of the list reading different fields read twice: the
	// columns are part of the key.
	p, err := paging[T](ctx, limit, offset, cursor)
	if err != nil {
		return models.Page[T]{}, err
	}
	key, err := json.Marshal(struct {
		List    string
		Filter  F
		Page    models.Paging
		Columns string
	}{list, f, p, p.Columns.String()})
	if err != nil {
		return models.Page[T]{}, err
	}
	return graph.SharedRead(ctx, string(key), func() (models.Page[T], error) { return read(sid, f, p) })
}

// filteredCursorPage is cursorPage over a list filter, which is checked
// first.
func filteredCursorPage[F any, P filter[F], T any](ctx context.Context, list string, f P, limit, offset *int64, cursor *string, read func(storeID int64, f F, p models.Paging) (models.Page[T], error)) (models.Page[T], error) {
	checked, err := checkedFilter(f)
	if err != nil {
		return models.Page[T]{}, err
	}
	return cursorPage(ctx, list, checked, limit, offset, cursor, read)
}

// inStoreFiltered is inStore with a list filter, which is checked first:
// the shape of counts and exports.
func inStoreFiltered[F any, P filter[F], T any](ctx context.Context, f P, fn func(storeID int64, f F) (T, error)) (T, error) {
	checked, err := checkedFilter(f)
	if err != nil {
		var zero T
		return zero, err
	}
	return inStore(ctx, func(sid int64) (T, error) { return fn(sid, checked) })
}

type dbKey struct{}

// WithDB makes the resolvers run under ctx read and write through db
// instead of Resolver.DB. An event's payload is rendered this way, inside
// the transaction that emits it, so that it shows the change it announces.
func WithDB(ctx context.Context, db bun.IDB) context.Context {
	return context.WithValue(ctx, dbKey{}, db)
}

// db is the database of the resolvers run under ctx: the transaction of
// WithDB, otherwise the pool.
func (r *Resolver) db(ctx context.Context) bun.IDB {
	if db, ok := ctx.Value(dbKey{}).(bun.IDB); ok {
		return db
	}
	return r.DB
}

// deref is the value p points to, or T's zero value when p is nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// sentNulls names the fields that the request set to an explicit null in
// the input-object argument arg of the field being resolved, whether the
// object came as a literal or as a variable (a REST body is the variable
// $input, nulls kept). gqlgen decodes null and a left-out field alike into
// a nil pointer, so an update that clears a value asks here.
func sentNulls(ctx context.Context, arg string) map[string]bool {
	out := map[string]bool{}
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || fc.Field.Definition == nil || !graphql.HasOperationContext(ctx) {
		return out
	}
	obj, _ := fc.Field.ArgumentMap(graphql.GetOperationContext(ctx).Variables)[arg].(map[string]any)
	for k, v := range obj {
		if v == nil {
			out[k] = true
		}
	}
	return out
}

// storeLocation is the store's time zone (UTC when it names none Go
// knows), read once per operation however many of its root fields ask (a
// sessions page, its count and its window each do).
func (r *Resolver) storeLocation(ctx context.Context, storeID int64) (*time.Location, error) {
	return graph.SharedRead(ctx, "store-location", func() (*time.Location, error) {
		store, err := models.GetStore(ctx, r.db(ctx), storeID)
		if err != nil {
			return nil, err
		}
		loc, err := time.LoadLocation(store.Timezone)
		if err != nil {
			return time.UTC, nil
		}
		return loc, nil
	})
}
