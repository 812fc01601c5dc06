package resolvers

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// updateNoteTags replaces the note and tags the input sends.
func updateNoteTags(in graph.OrderUpdateInput) orderChange {
	return func(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) ([]string, error) {
		if in.Note == nil && in.Tags == nil {
			return nil, apperr.Invalidf("send note, tags or both")
		}
		var note *string
		if in.Note != nil {
			n, err := text("note", *in.Note, maxNote, false)
			if err != nil {
				return nil, err
			}
			note = &n
		}
		var tags *[]string
		if in.Tags != nil {
			t, err := parseTags(in.Tags)
			if err != nil {
				return nil, err
			}
			tags = &t
		}
		return nil, models.UpdateOrderNoteTags(ctx, tx, o, note, tags, actorSource(ctx), now)
	}
}

// parseTags accepts a list of strings or one comma-separated string.
func parseTags(v any) ([]string, error) {
	const msg = "tags must be a list of strings or one comma-separated string"
	var raw []string
	switch t := v.(type) {
	case string:
		raw = strings.Split(t, ",")
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, apperr.Invalidf(msg)
			}
			raw = append(raw, s)
		}
	default:
		return nil, apperr.Invalidf(msg)
	}
	return checkTags(raw)
}

// archive closes an open order (models.ArchiveOrder).
func archive(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) ([]string, error) {
	return nil, models.ArchiveOrder(ctx, tx, o, actorSource(ctx), now)
}
