package models

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Paging bounds of every list: a page holds DefaultLimit rows unless limit
// says otherwise, and never more than MaxLimit.
const (
	DefaultLimit = 50
	MaxLimit     = 250
)

// Paging is a checked limit and offset, or limit and cursor: the page of a
// list a client asked for, and the costly columns its reader will not read.
type Paging struct {
	Limit, Offset int64
	// Cursor is where the page starts, as a list's Page.Next gave it: after
	// the row it names. Only ReadPage reads it.
	Cursor string
	// Columns are the columns of the listed records the reader does not
	// read (see Columns), which ReadPage leaves out of its statement (of
	// whole records). A list whose statement names its own columns, or
	// computes from the rows it reads, never applies them. They are not part
	// of what a page is (its JSON, which keys a read shared by a list and
	// its next cursor): a cursor reads sort keys, which a page always reads.
	Columns Columns `json:"-"`
	// Join names relations of the listed records (bun's, such as
	// OrderBuyer) that the page's statement reads with them, so that the
	// reader's relation can be primed instead of loaded: one statement
	// less.
	Join []string `json:"-"`
	// Total, when set, is a statement that counts the list's rows (its
	// filter's, whatever the page), which the page's statement reads with
	// the rows (Page.Total): the count a client asks with a page costs no
	// statement of its own. The listed records must embed ListTotal.
	Total *bun.SelectQuery `json:"-"`
}

// ListTotal is embedded by the records whose pages can read their list's
// total (Paging.Total): each row of such a page carries it.
type ListTotal struct {
	PageTotal int64 `bun:"page_total,scanonly" json:"-"`
}

func (t *ListTotal) listTotal() int64 { return t.PageTotal }

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

// MaxPageNumber bounds the page number of a list paged by number.
const MaxPageNumber = 1_000_000

// NewPageNumber checks the page number (from 1) and page size a client
// sent to a list that the spec pages by number (billing invoices), and
// makes them the Paging of every list: page_size is the limit, with its
// default and maximum, and the pages before are the offset.
func NewPageNumber(page, pageSize *int64) (Paging, error) {
	p := Paging{Limit: DefaultLimit}
	if pageSize != nil {
		if *pageSize < 1 || *pageSize > MaxLimit {
			return p, apperr.InvalidField("page_size", "must be between 1 and %d", MaxLimit)
		}
		p.Limit = *pageSize
	}
	if page != nil {
		if *page < 1 || *page > MaxPageNumber {
			return p, apperr.InvalidField("page", "must be between 1 and %d", MaxPageNumber)
		}
		p.Offset = (*page - 1) * p.Limit
	}
	return p, nil
}

// PageNumber is the page number (from 1) of a Paging NewPageNumber made.
func (p Paging) PageNumber() int64 { return p.Offset/p.Limit + 1 }

// After is p starting after cursor, when the client sent one. A cursor is
// a position, which an offset would move, so the two are not combined.
func (p Paging) After(cursor *string) (Paging, error) {
	if cursor == nil {
		return p, nil
	}
	if p.Offset != 0 {
		return p, apperr.Invalidf("send either offset or cursor, not both")
	}
	if *cursor == "" {
		return p, apperr.Invalidf("cursor must not be empty: leave it out for the first page")
	}
	p.Cursor = *cursor
	return p, nil
}

// Apply limits q, a list's statement (its model, filter and order), to the
// page.
//
// Past the first rows, the rows an offset skips are found as ids alone: the
// page is read as the rows whose ids the same statement, selecting only the
// id, lists at that offset. That inner statement is answered from an index
// holding the list's order and filter columns (an index-only scan, see
// migrations/20261124100000_large_lists.up.sql), so skipping 10,000 orders
// reads 10,000 index entries and not 10,000 rows scattered over the table.
// A statement of a table without an id (settings, members) or without a
// model (one selecting column expressions) is limited as it is.
func (p Paging) Apply(q *bun.SelectQuery) *bun.SelectQuery {
	if p.Offset == 0 || !keyedByID(q) {
		return p.join(q).Limit(p.Limit).Offset(p.Offset)
	}
	ids := q.Clone().ExcludeColumn("*").ColumnExpr("?TableAlias.id").Limit(p.Limit).Offset(p.Offset)
	return p.join(q.Where("?TableAlias.id IN (?)", ids))
}

// join adds the relations of p.Join to q (after the ids of an offset are
// chosen, which need none of them).
func (p Paging) join(q *bun.SelectQuery) *bun.SelectQuery {
	for _, r := range p.Join {
		q = q.Relation(r)
	}
	return q
}

// keyedByID says whether q selects from a table whose primary key is id.
func keyedByID(q *bun.SelectQuery) bool {
	m, ok := q.GetModel().(bun.TableModel)
	if !ok || m.Table() == nil {
		return false
	}
	pks := m.Table().PKs
	return len(pks) == 1 && pks[0].Name == "id"
}

// PageOf is the page p of a list computed in memory (the rates a draft
// could ship with, say), where Apply has no query to limit.
func PageOf[T any](items []T, p Paging) []T {
	if p.Offset >= int64(len(items)) {
		return items[:0]
	}
	return items[p.Offset:min(int64(len(items)), p.Offset+p.Limit)]
}

// A Sort orders a list by Keys, all ascending or all descending (Desc), the
// last of them unique in the list (the id): the keys of a row then say
// where it stands, which is what a cursor holds.
type Sort[T any] struct {
	Keys []SortKey[T]
	Desc bool
}

// A SortKey is one term of a Sort.
type SortKey[T any] struct {
	// SQL is the term over the list's row: "o.created_at",
	// "lower(product.title)".
	SQL string
	// Of is the row's value of the term, or the value the term is
	// computed from (a product's title for lower(product.title)).
	Of func(*T) any
	// From computes the term from Of's value ("lower(?)"); empty when Of
	// is the term's value itself.
	From string
}

// OrderBy is the sort's ORDER BY.
func (s Sort[T]) OrderBy() string {
	dir := ""
	if s.Desc {
		dir = " DESC"
	}
	terms := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		terms[i] = k.SQL + dir
	}
	return strings.Join(terms, ", ")
}

// after narrows q to the rows after the position values: one row
// comparison over the sort's keys, which a B-tree index in the sort's order
// answers as its range.
func (s Sort[T]) after(q *bun.SelectQuery, values []any) *bun.SelectQuery {
	keys := make([]string, len(s.Keys))
	at := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		keys[i] = k.SQL
		at[i] = "?"
		if k.From != "" {
			at[i] = k.From
		}
	}
	op := ">"
	if s.Desc {
		op = "<"
	}
	return q.Where("("+strings.Join(keys, ", ")+") "+op+" ("+strings.Join(at, ", ")+")", values...)
}

// Page is a page of a list and the cursor of the page after it.
type Page[T any] struct {
	Rows []T
	// Next is the cursor of the next page; nil when this page is the last.
	Next *string
	// Total is the list's total when the page read it (Paging.Total) and
	// has rows to carry it; nil otherwise.
	Total *int64
}

// ReadPage reads the page p of a list into rows in the order s and gives
// the next page's cursor. q is the list's statement on db with its model
// (rows), store and filter, not its order or paging. scope names the list: the
// list, the store and every argument that chooses its rows and their order
// (filter and sort); a cursor is accepted only under the scope that made
// it.
//
// It reads one row more than the page, so it knows without another
// statement whether a next page exists, and the cursor holds the keys of
// the page's last row: the next page is the rows after it in the sort's
// order (Sort.after), found by the sort's index however deep the page is,
// and unmoved by rows added or removed before it.
func ReadPage[T any](ctx context.Context, db bun.IDB, q *bun.SelectQuery, rows *[]T, s Sort[T], scope string, p Paging) (Page[T], error) {
	if p.Cursor != "" {
		values, err := decodeCursor(p.Cursor, scope, len(s.Keys))
		if err != nil {
			return Page[T]{}, err
		}
		q = s.after(q, values)
	}
	q = q.OrderExpr(s.OrderBy())
	more := p // one row more
	more.Limit++
	cols := p.Columns.Keep(s.columns()...)
	q = cols.Apply(q)
	if p.Total != nil {
		if !cols.names(q) {
			// A column of its own would be the statement's only one.
			q = q.ColumnExpr("?TableColumns")
		}
		q = q.ColumnExpr("(?) AS page_total", p.Total)
	}
	// The page's rows in one allocation: bun appends each row it scans,
	// and growing the slice by doubling copies wide records many times.
	*rows = make([]T, 0, min(more.Limit, MaxLimit+1))
	if err := scanRows(ctx, db, more.Apply(q), rows); err != nil {
		return Page[T]{}, err
	}
	page := Page[T]{Rows: *rows}
	if p.Total != nil && len(page.Rows) > 0 {
		if t, ok := any(&page.Rows[0]).(interface{ listTotal() int64 }); ok {
			n := t.listTotal()
			page.Total = &n
		}
	}
	if int64(len(page.Rows)) > p.Limit {
		page.Rows = page.Rows[:p.Limit]
		last := &page.Rows[p.Limit-1]
		values := make([]any, len(s.Keys))
		for i, k := range s.Keys {
			values[i] = k.Of(last)
		}
		next, err := EncodeCursor(values, scope)
		if err != nil {
			return Page[T]{}, err
		}
		page.Next = &next
	}
	return page, nil
}

// PageScope is the scope of a list's cursors (see ReadPage): the list's
// name, the store, and its filter as JSON (the sort included).
func PageScope(list string, storeID int64, filter any) (string, error) {
	f, err := json.Marshal(filter)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s\x00%d\x00%s", list, storeID, f), nil
}

// A cursor is the base64url of the JSON array of a row's sort key values,
// a dot, and the base64url of a checksum binding them to the list's scope.
// The checksum is what refuses a cursor that was edited or cut, or that
// another list, sort, filter or store made; it is not a secret, and needs
// not be: a cursor only says where in the caller's own list to start, so a
// forged one shows nothing an offset would not.
const cursorSumSize = 12

func errCursor() error {
	return apperr.Invalidf("cursor is not one this list gave: it was altered, or another list (another store, filter or sort) made it; start again without cursor")
}

func cursorSum(payload []byte, scope string) []byte {
	h := sha256.New()
	h.Write([]byte("storeadmin cursor\x00"))
	h.Write([]byte(scope))
	h.Write([]byte{0})
	h.Write(payload)
	return h.Sum(nil)[:cursorSumSize]
}

// EncodeCursor is the cursor of the page after a row whose sort keys are
// values, in the list of scope (PageScope). ReadPage makes every cursor the
// service gives; a reader written by hand (the benchmark's floor) can make
// the same.
func EncodeCursor(values []any, scope string) (string, error) {
	payload, err := json.Marshal(values)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(cursorSum(payload, scope)), nil
}

// decodeCursor checks cursor against scope and answers its n key values,
// as text: PostgreSQL reads each as the type of the key it is compared
// with.
func decodeCursor(cursor, scope string, n int) ([]any, error) {
	enc := base64.RawURLEncoding
	data, sum, ok := strings.Cut(cursor, ".")
	if !ok {
		return nil, errCursor()
	}
	payload, err1 := enc.DecodeString(data)
	got, err2 := enc.DecodeString(sum)
	if err1 != nil || err2 != nil || subtle.ConstantTimeCompare(got, cursorSum(payload, scope)) != 1 {
		return nil, errCursor()
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var raw []any
	if err := dec.Decode(&raw); err != nil || len(raw) != n {
		return nil, errCursor()
	}
	values := make([]any, n)
	for i, v := range raw {
		switch v := v.(type) {
		case string:
			values[i] = v
		case json.Number:
			values[i] = v.String()
		default:
			return nil, errCursor()
		}
	}
	return values, nil
}
