package models

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Paging bounds of every list: a page holds DefaultLimit rows unless limit
// says otherwise, and never more than MaxLimit.
const (
	DefaultLimit = 50
	MaxLimit     = 250
)

// Paging is a checked limit and offset: the page of a list a client asked
// for, and the costly columns its reader will not read.
type Paging struct {
	Limit, Offset int64
	// Unread names jsonb columns of the listed records that the reader
	// does not use (see UnreadColumns): the statement leaves them out and
	// their fields stay zero. Decoding jsonb was the largest cost of a
	// list page that does not show it (a third of the order list's CPU).
	Unread []string
	// unreadOf is the record type Unread was worked out for; Apply leaves
	// out nothing from a statement of another table.
	unreadOf reflect.Type
}

// NewPaging checks the limit and offset a client sent.
func NewPaging(limit, offset *int64) (Paging, error) {
	p := Paging{Limit: DefaultLimit}
	if limit != nil {
		if *limit < 1 || *limit > MaxLimit {
			return p, apperr.Invalidf("limit must be between 1 and %d", MaxLimit)
		}
		p.Limit = *limit
	}
	if offset != nil {
		if *offset < 0 {
			return p, apperr.Invalidf("offset must not be negative")
		}
		p.Offset = *offset
	}
	return p, nil
}

// Apply limits q to the page, and leaves out the unread columns when q
// selects the whole records Unread was worked out for.
func (p Paging) Apply(q *bun.SelectQuery) *bun.SelectQuery {
	if len(p.Unread) > 0 {
		if m, ok := q.GetModel().(bun.TableModel); ok && m.Table().Type == p.unreadOf {
			q = q.ExcludeColumn(p.Unread...)
		}
	}
	return q.Limit(p.Limit).Offset(p.Offset)
}

// UnreadColumns sets p.Unread to the jsonb columns of T whose fields
// (named by their json tag, which is also their GraphQL name) are not in
// read. A jsonb field without a json name is always read: code, not the
// client, uses it.
func UnreadColumns[T any](p Paging, read func(field string) bool) Paging {
	t := reflect.TypeFor[T]()
	p.Unread, p.unreadOf = nil, t
	for _, c := range jsonbColumns(t) {
		if !read(c.field) {
			p.Unread = append(p.Unread, c.column)
		}
	}
	return p
}

type jsonbColumn struct{ field, column string }

var jsonbColumnsOf sync.Map // reflect.Type → []jsonbColumn

// jsonbColumns lists the jsonb columns of the record type t that carry a
// json name.
func jsonbColumns(t reflect.Type) []jsonbColumn {
	if cols, ok := jsonbColumnsOf.Load(t); ok {
		return cols.([]jsonbColumn)
	}
	var cols []jsonbColumn
	if t.Kind() == reflect.Struct {
		for f := range t.Fields() {
			tag := strings.Split(f.Tag.Get("bun"), ",")
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if slices.Contains(tag[1:], "type:jsonb") && tag[0] != "" && name != "" && name != "-" {
				cols = append(cols, jsonbColumn{field: name, column: tag[0]})
			}
		}
	}
	jsonbColumnsOf.Store(t, cols)
	return cols
}

// PageOf is the page p of a list computed in memory (the rates a draft
// could ship with, say), where Apply has no query to limit.
func PageOf[T any](items []T, p Paging) []T {
	if p.Offset >= int64(len(items)) {
		return items[:0]
	}
	return items[p.Offset:min(int64(len(items)), p.Offset+p.Limit)]
}
