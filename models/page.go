package models

import (
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
