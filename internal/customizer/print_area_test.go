package customizer

import (
	"math"
	"testing"

	"storeadmin/internal/base/apperr"
)

func TestPrintAreaCheck(t *testing.T) {
	ok := []PrintArea{
		{X: 0, Y: 0, W: 100, H: 50},
		{X: 99, Y: 49, W: 1, H: 1, RotationDeg: 359.99},
		{X: 10, Y: 10, W: 80, H: 30, RotationDeg: -359.99}, // rotated corners may pass the edge
	}
	for _, a := range ok {
		if err := a.Check(100, 50, nil); err != nil {
			t.Errorf("%+v: %v", a, err)
		}
	}
	for _, c := range []struct {
		a     PrintArea
		sent  map[string]bool
		field string
	}{
		{PrintArea{X: math.NaN(), W: 1, H: 1}, nil, "x"},
		{PrintArea{W: math.Inf(1), H: 1}, nil, "w"},
		{PrintArea{W: 1, H: 1, RotationDeg: math.Inf(-1)}, nil, "rotation_deg"},
		{PrintArea{X: -1, W: 1, H: 1}, nil, "x"},
		{PrintArea{Y: -0.1, W: 1, H: 1}, nil, "y"},
		{PrintArea{W: 0, H: 1}, nil, "w"},
		{PrintArea{W: 1e-13, H: 1}, nil, "w"},
		{PrintArea{W: 1, H: 0.5}, nil, "h"},
		{PrintArea{W: 1, H: -1}, nil, "h"},
		{PrintArea{X: 50, W: 51, H: 1}, nil, "w"},
		{PrintArea{X: 50, W: 51, H: 1}, map[string]bool{"x": true}, "x"},
		{PrintArea{Y: 1, W: 1, H: 50}, map[string]bool{"h": true, "y": true}, "h"},
		{PrintArea{Y: 1, W: 1, H: 50}, map[string]bool{"name": true}, "y"},
		{PrintArea{W: 1, H: 1, RotationDeg: 360}, nil, "rotation_deg"},
		{PrintArea{W: 1, H: 1, RotationDeg: -360}, nil, "rotation_deg"},
	} {
		err := c.a.Check(100, 50, c.sent)
		if apperr.CodeOf(err) != apperr.Invalid || apperr.FieldOf(err) != c.field {
			t.Errorf("%+v sent %v: %v (field %q), want a 400 naming %s", c.a, c.sent, err, apperr.FieldOf(err), c.field)
		}
	}
}
