package resolvers

import (
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/customizer"
	"storeadmin/models"
)

// maxCzName bounds the name of a design or a library, in characters.
const maxCzName = 255

// maxCzDesignSide bounds a design's width and height in pixels (the
// table's check).
const maxCzDesignSide = 20000

// applyCzDesignInput checks in and writes its fields into d, the stored
// design on update (what is left out stays); on create every field is
// required.
func applyCzDesignInput(d *models.CzDesign, in graph.CzDesignInput, create bool) (err error) {
	if in.Name != nil || create {
		if d.Name, err = text("name", deref(in.Name), maxCzName, true); err != nil {
			return apperr.InvalidField("name", "must be 1 to %d characters", maxCzName)
		}
	}
	for _, side := range []struct {
		field string
		in    *int64
		out   *int64
	}{{"width_px", in.WidthPx, &d.WidthPx}, {"height_px", in.HeightPx, &d.HeightPx}} {
		switch {
		case side.in != nil:
			if *side.in < 1 || *side.in > maxCzDesignSide {
				return apperr.InvalidField(side.field, "must be between 1 and %d pixels", maxCzDesignSide)
			}
			*side.out = *side.in
		case create:
			return apperr.InvalidField(side.field, "is required: the canvas's size in pixels, 1 to %d", maxCzDesignSide)
		}
	}
	return nil
}

// applyCzElementInput writes the fields of in into el, the stored element
// on update (what is left out stays); on create element_key, type, w and h
// are required. customizer.CheckElement checks the result. Settings sent
// replace the stored ones; a new type without settings starts from its
// defaults.
func applyCzElementInput(el *models.CzElement, in graph.CzElementInput, create bool) error {
	if create {
		for _, req := range []struct {
			field string
			sent  bool
		}{{"element_key", in.ElementKey != nil}, {"type", in.Type != nil}, {"w", in.W != nil}, {"h", in.H != nil}} {
			if !req.sent {
				return apperr.InvalidField(req.field, "is required")
			}
		}
	}
	if in.Type != nil && *in.Type != el.Type {
		el.Type = *in.Type
		el.Settings = nil
	}
	setIfSent(&el.ElementKey, in.ElementKey)
	setIfSent(&el.GroupKey, in.GroupKey)
	for _, f := range []struct {
		in  *float64
		out *float64
	}{{in.X, &el.X}, {in.Y, &el.Y}, {in.W, &el.W}, {in.H, &el.H}, {in.RotationDeg, &el.RotationDeg}} {
		setIfSent(f.out, f.in)
	}
	if in.Settings != nil {
		el.Settings = in.Settings
	}
	return nil
}

// setIfSent writes *in into out when in was sent.
func setIfSent[T any](out *T, in *T) {
	if in != nil {
		*out = *in
	}
}

// czUploads finds the store's uploads for the customizer's checks, in the
// transaction; a failed read is kept in err, which the caller answers
// before anything the check made of it.
type czUploads struct {
	ctx     context.Context
	db      bun.IDB
	storeID int64
	err     error
}

// find is a customizer.Uploads.
func (u *czUploads) find(src string) (models.Media, bool) {
	if u.err != nil {
		return models.Media{}, false
	}
	media, err := models.MediaBySrc(u.ctx, u.db, u.storeID, []string{src})
	if err != nil {
		u.err = err
		return models.Media{}, false
	}
	m, ok := media[src]
	return m, ok
}

// checkCzElement runs customizer.CheckElement with the store's uploads.
func checkCzElement(ctx context.Context, db bun.IDB, el *models.CzElement) error {
	uploads := &czUploads{ctx: ctx, db: db, storeID: el.StoreID}
	err := customizer.CheckElement(el, uploads.find)
	return firstErr(uploads.err, err)
}

// refuseTargetedElement is a conflict when an option-value function of an
// option set bound with the element's design targets the element by key
// (when key is set) or by group (when group is set and the element is the
// last of it): the function would point at nothing. doing words what is
// refused.
func refuseTargetedElement(ctx context.Context, db bun.IDB, el *models.CzElement, key, group, doing string) error {
	t, err := models.CzElementTargetedBy(ctx, db, el.StoreID, el.DesignID, el.ID, key, group)
	if err != nil || t == nil {
		return err
	}
	target := fmt.Sprintf("the element %q", key)
	if key == "" {
		target = fmt.Sprintf("the group %q, of which this element is the last,", group)
	}
	return apperr.Conflictf("%s: %s is targeted by a function of option value %q (id %d) of option %q, bound with this design; change or remove that function first",
		doing, target, t.ValueLabel, t.ValueID, t.OptionLabel)
}

// changedOrEmpty is now when it differs from was, else empty: a key or
// group that an update leaves as it was is no concern.
func changedOrEmpty(was, now string) string {
	if was != now {
		return was
	}
	return ""
}

// checkWholeOrder checks that ids lists every id of have exactly once, in
// any order: a reorder takes the whole list, so that nothing is placed by
// accident. what names the records listed, for people ("elements of this
// design").
func checkWholeOrder(field, what string, have, ids []int64) error {
	seen := make(map[int64]bool, len(ids))
	for i, id := range ids {
		at := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case !slices.Contains(have, id):
			return apperr.InvalidField(at, "is %d, not one of the %s", id, what)
		case seen[id]:
			return apperr.InvalidField(at, "repeats %d: each of the %s is listed once", id, what)
		}
		seen[id] = true
	}
	if len(ids) != len(have) {
		return apperr.InvalidField(field, "must list each of the %s exactly once (%d), not %d", what, len(have), len(ids))
	}
	return nil
}

// saveCzElement checks and writes an element in tx, its design locked:
// a new one goes on top, within the design's cap; a changed key or group
// must not leave a function pointing at nothing. It answers the element
// as stored.
func saveCzElement(ctx context.Context, tx bun.Tx, el *models.CzElement, was *models.CzElement) (*models.CzElement, error) {
	if _, err := models.GetCzDesign(ctx, tx, el.StoreID, el.DesignID, true); err != nil {
		return nil, err
	}
	if err := checkCzElement(ctx, tx, el); err != nil {
		return nil, err
	}
	if was == nil {
		count, top, err := models.CzElementTop(ctx, tx, el.StoreID, el.DesignID)
		if err != nil {
			return nil, err
		}
		if count >= customizer.MaxElementsPerDesign {
			return nil, apperr.Conflictf("the design has %d elements, the most a design may hold (%d); delete one first", count, customizer.MaxElementsPerDesign)
		}
		el.ZIndex = top
		if err := models.InsertCzElement(ctx, tx, el); err != nil {
			return nil, err
		}
	} else {
		key, group := changedOrEmpty(was.ElementKey, el.ElementKey), changedOrEmpty(was.GroupKey, el.GroupKey)
		if err := refuseTargetedElement(ctx, tx, was, key, group, "element_key or group_key cannot change"); err != nil {
			return nil, err
		}
		if err := models.UpdateCzElement(ctx, tx, el); err != nil {
			return nil, err
		}
	}
	return models.GetCzElement(ctx, tx, el.StoreID, el.ID, false)
}

// writeCzElement runs saveCzElement in one transaction on the element
// load makes (and the stored one, nil for a new element), and notes it in
// the audit log.
func (r *mutationResolver) writeCzElement(ctx context.Context, load func(tx bun.Tx) (el, was *models.CzElement, err error)) (*models.CzElement, error) {
	var out *models.CzElement
	err := r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		el, was, err := load(tx)
		if err != nil {
			return err
		}
		out, err = saveCzElement(ctx, tx, el, was)
		return err
	})
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "cz_element", out.ID)
	return out, nil
}
