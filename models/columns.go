package models

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/uptrace/bun"
)

// Columns is what a read of records leaves out: the columns of the fields
// nobody will read. A GraphQL operation reads a few fields of the records
// a list or a relation answers (graph.AnswerColumns works out which, from
// the operation and from what each field's resolution reads of its
// object), and scanning the others was the largest cost of a page after
// the executor's own: 23 columns of each of a page's 150 variants, the
// description of each of its 50 products, to write four fields of each.
// The fields of a left-out column stay zero; the zero Columns reads all.
type Columns struct {
	// of is the record type the columns were worked out for: a statement
	// of another table is left whole.
	of reflect.Type
	// unread names the left-out columns, comma-separated in the order of
	// the record's fields. A string and not a slice, so that Columns is
	// comparable: a relation's loader is kept per Columns
	// (internal/loaders), since records read without a column must not
	// answer a field that reads it.
	unread string
}

// AllColumns reads every column.
var AllColumns = Columns{}

// Reading is the Columns of T that reads the columns of the fields read
// says are read (read takes a Go field name) and the primary key. A field
// of T without a bun column name of its own (embedded, relations) is
// always read.
func Reading[T any](read func(goField string) bool) Columns {
	t := reflect.TypeFor[T]()
	var unread []string
	for _, c := range columnsOf(t) {
		if !c.pk && !read(c.field) {
			unread = append(unread, c.column)
		}
	}
	if len(unread) == 0 {
		return AllColumns
	}
	return Columns{of: t, unread: strings.Join(unread, ",")}
}

// String names the columns c leaves out, in the order of the record's
// fields: what tells one Columns of a type from another.
func (c Columns) String() string { return c.unread }

// Keep is c reading columns too: the ones a statement needs whatever the
// client reads (a list's sort keys, which its cursor holds; the key a
// relation files its records under).
func (c Columns) Keep(columns ...string) Columns {
	if c.unread == "" || len(columns) == 0 {
		return c
	}
	left := slices.DeleteFunc(strings.Split(c.unread, ","), func(col string) bool { return slices.Contains(columns, col) })
	if len(left) == 0 {
		return AllColumns
	}
	c.unread = strings.Join(left, ",")
	return c
}

// Apply leaves c's columns out of q, a statement that selects the whole
// records (no column list of its own), when those records are the ones c
// was made for.
func (c Columns) Apply(q *bun.SelectQuery) *bun.SelectQuery {
	if !c.names(q) {
		return q
	}
	return q.ExcludeColumn(strings.Split(c.unread, ",")...)
}

// names tells whether Apply names q's columns (rather than leaving bun to
// select the whole records).
func (c Columns) names(q *bun.SelectQuery) bool {
	if c.unread == "" {
		return false
	}
	m, ok := q.GetModel().(bun.TableModel)
	return ok && m.Table() != nil && m.Table().Type == c.of
}

// column is a column of a record type: its Go field, its name, and
// whether it is (part of) the primary key.
type column struct {
	field, column string
	pk            bool
}

var columnsOfType sync.Map // reflect.Type → []column

// columnsOf lists the columns of the record type t that a field names in
// its bun tag and bun selects with the whole records.
func columnsOf(t reflect.Type) []column {
	if cols, ok := columnsOfType.Load(t); ok {
		return cols.([]column)
	}
	var cols []column
	if t.Kind() == reflect.Struct {
		for f := range t.Fields() {
			tag := strings.Split(f.Tag.Get("bun"), ",")
			// A scanonly field is not in bun's statement of the whole
			// records: there is nothing to leave out.
			if f.Anonymous || !f.IsExported() || tag[0] == "" || tag[0] == "-" ||
				strings.Contains(f.Tag.Get("bun"), "rel:") || slices.Contains(tag[1:], "scanonly") {
				continue
			}
			cols = append(cols, column{field: f.Name, column: tag[0], pk: slices.Contains(tag[1:], "pk")})
		}
	}
	columnsOfType.Store(t, cols)
	return cols
}

// sortColumn finds the columns a sort term reads: "o.created_at",
// "lower(product.title)", "coalesce(product.min_price_cents, -1)".
var sortColumn = regexp.MustCompile(`\b[a-z_]+\.([a-z_]+)\b`)

// columns are the columns the sort's terms read, which a page must read
// to write its cursor.
func (s Sort[T]) columns() []string {
	var out []string
	for _, k := range s.Keys {
		for _, m := range sortColumn.FindAllStringSubmatch(k.SQL, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// manyRows is the slice a relation that reads several rows per parent
// scans into, with room for two a parent: bun appends each row it reads,
// and every growth of the slice copies the rows read so far.
func manyRows[T any](parents int) []T { return make([]T, 0, 2*parents) }
