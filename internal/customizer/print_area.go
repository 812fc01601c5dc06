package customizer

import (
	"math"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// MaxRotationDeg bounds a print area's rotation on both sides, exclusive.
const MaxRotationDeg = 360

// PrintArea is a print area's rectangle in its mockup's photo, in pixels,
// turned RotationDeg clockwise about its centre.
type PrintArea struct {
	X, Y, W, H, RotationDeg float64
}

// Check checks that the rectangle lies inside a photo of width×height
// pixels before rotation: every number finite, x and y 0 or more, w and h
// at least models.MinCzSizePx, x + w at most width, y + h at most height, the rotation
// strictly between -360 and 360. Rotated, its corners may reach past the
// photo's edge (the preview clips them): a photo replaced by one of another
// shape rescales x and w apart from y and h, which must not make a valid
// area invalid. sent names the fields the client sent (nil: all of them):
// a rectangle past an edge blames its size when it was sent, else its
// place. The error names the field (apperr.InvalidField).
func (a PrintArea) Check(width, height int64, sent map[string]bool) error {
	for _, f := range []struct {
		field string
		v     float64
	}{{"x", a.X}, {"y", a.Y}, {"w", a.W}, {"h", a.H}, {"rotation_deg", a.RotationDeg}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return apperr.InvalidField(f.field, "must be a finite number")
		}
	}
	blame := func(size, place string) string {
		if sent == nil || sent[size] {
			return size
		}
		return place
	}
	switch {
	case a.X < 0:
		return apperr.InvalidField("x", "must be 0 or more, not %g", a.X)
	case a.Y < 0:
		return apperr.InvalidField("y", "must be 0 or more, not %g", a.Y)
	case a.W < models.MinCzSizePx:
		return apperr.InvalidField("w", "must be at least %d pixel, not %g", models.MinCzSizePx, a.W)
	case a.H < models.MinCzSizePx:
		return apperr.InvalidField("h", "must be at least %d pixel, not %g", models.MinCzSizePx, a.H)
	case a.X+a.W > float64(width):
		return apperr.InvalidField(blame("w", "x"), "puts the print area past the photo's right edge: x + w is %g, the photo is %d pixels wide", a.X+a.W, width)
	case a.Y+a.H > float64(height):
		return apperr.InvalidField(blame("h", "y"), "puts the print area past the photo's bottom edge: y + h is %g, the photo is %d pixels high", a.Y+a.H, height)
	case a.RotationDeg <= -MaxRotationDeg || a.RotationDeg >= MaxRotationDeg:
		return apperr.InvalidField("rotation_deg", "must be between -%d and %d degrees (exclusive), not %g", MaxRotationDeg, MaxRotationDeg, a.RotationDeg)
	}
	return nil
}
