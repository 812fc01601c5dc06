package models

import (
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"storeadmin/internal/apperr"
)

// Paging bounds of every list: a page holds DefaultLimit rows unless limit
// says otherwise, and never more than MaxLimit.
const (
	DefaultLimit = 50
	MaxLimit     = 250
)

// Page is a checked limit and offset.
type Page struct {
	Limit, Offset int64
}

// NewPage checks the limit and offset a client sent.
func NewPage(limit, offset *int64) (Page, error) {
	p := Page{Limit: DefaultLimit}
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

// Apply limits q to the page.
func (p Page) Apply(q *bun.SelectQuery) *bun.SelectQuery {
	return q.Limit(p.Limit).Offset(p.Offset)
}

// PageOf is the page p of a list computed in memory (the rates a draft
// could ship with, say), where Apply has no query to limit.
func PageOf[T any](items []T, p Page) []T {
	if p.Offset >= int64(len(items)) {
		return items[:0]
	}
	return items[p.Offset:min(int64(len(items)), p.Offset+p.Limit)]
}

// classify turns database errors into client errors where the client caused
// them, by SQLSTATE, never by message text. what names the record for the
// message ("a webhook with this URL").
func classify(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return apperr.NotFoundf("%s was not found", what)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505":
			return apperr.Conflictf("%s already exists", what)
		case "23503":
			return apperr.Invalidf("%s refers to a record that does not exist", what)
		case "22001":
			return apperr.Invalidf("a value of %s is too long", what)
		}
	}
	return err
}

// notFoundIfNone turns an update or delete that touched no row into a
// not-found error.
func notFoundIfNone(res sql.Result, err error, what string) error {
	if err != nil {
		return classify(err, what)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apperr.NotFoundf("%s was not found", what)
	}
	return nil
}

// errNoRows stands for an UPDATE ... RETURNING that matched nothing.
var errNoRows = sql.ErrNoRows
