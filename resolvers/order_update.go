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
		changed := []string{}
		if in.Note != nil {
			note, err := text("note", *in.Note, maxNote, false)
			if err != nil {
				return nil, err
			}
			if note != o.Note {
				changed = append(changed, "note_updated")
			}
			o.Note = note
		}
		if in.Tags != nil {
			tags, err := parseTags(in.Tags)
			if err != nil {
				return nil, err
			}
			if strings.Join(tags, ",") != strings.Join(o.Tags, ",") {
				changed = append(changed, "tags_updated")
			}
			o.Tags = tags
		}
		if err := models.UpdateOrderNoteTags(ctx, tx, o); err != nil {
			return nil, err
		}
		for _, name := range changed {
			detail := map[string]any{"note": o.Note}
			if name == "tags_updated" {
				detail = map[string]any{"tags": o.Tags}
			}
			if err := timeline(ctx, tx, o, name, now, nil, nil, detail); err != nil {
				return nil, err
			}
		}
		return nil, nil
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

// archive closes an open order.
func archive(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) ([]string, error) {
	switch o.Status {
	case models.OrderArchived:
		return nil, apperr.Conflictf("order %s is already archived", o.OrderNumberDisplay)
	case models.OrderCancelled:
		return nil, apperr.Conflictf("order %s is cancelled; only open orders can be archived", o.OrderNumberDisplay)
	}
	o.Status, o.ArchivedAt = models.OrderArchived, &now
	if err := models.SetOrderStatus(ctx, tx, o, now); err != nil {
		return nil, err
	}
	return nil, timeline(ctx, tx, o, "archived", now, nil, nil, nil)
}
