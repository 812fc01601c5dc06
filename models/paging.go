package models

import (
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
// for.
type Paging struct {
	Limit, Offset int64
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

// Apply limits q to the page.
func (p Paging) Apply(q *bun.SelectQuery) *bun.SelectQuery {
	return q.Limit(p.Limit).Offset(p.Offset)
}

// PageOf is the page p of a list computed in memory (the rates a draft
// could ship with, say), where Apply has no query to limit.
func PageOf[T any](items []T, p Paging) []T {
	if p.Offset >= int64(len(items)) {
		return items[:0]
	}
	return items[p.Offset:min(int64(len(items)), p.Offset+p.Limit)]
}
