package seed

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
)

// The customizer's generated pictures: photos of the product bases
// (mockups) and the artwork libraries' items. Each is a few shapes drawn
// with 4x4 supersampling, so edges are smooth at print size.

// czShape says whether a point, in units of the picture's side (0 to 1 from
// the top left), is inside a shape.
type czShape func(x, y float64) bool

// czLayer is a shape and its colour; later layers paint over earlier ones.
type czLayer struct {
	shape czShape
	color color.NRGBA
}

// czDraw paints layers over a background (transparent when its alpha is
// 0) on a size x size picture and encodes it as PNG.
func czDraw(size int, background color.NRGBA, layers ...czLayer) ([]byte, error) {
	const samples = 4
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := range size {
		for px := range size {
			var r, g, b, a float64
			for sy := range samples {
				for sx := range samples {
					x := (float64(px) + (float64(sx)+0.5)/samples) / float64(size)
					y := (float64(py) + (float64(sy)+0.5)/samples) / float64(size)
					c := background
					for _, l := range layers {
						if l.shape(x, y) {
							c = l.color
						}
					}
					alpha := float64(c.A) / 255
					r += float64(c.R) * alpha
					g += float64(c.G) * alpha
					b += float64(c.B) * alpha
					a += alpha
				}
			}
			i := img.PixOffset(px, py)
			if a > 0 {
				img.Pix[i+0] = uint8(r/a + 0.5)
				img.Pix[i+1] = uint8(g/a + 0.5)
				img.Pix[i+2] = uint8(b/a + 0.5)
			}
			img.Pix[i+3] = uint8(a/(samples*samples)*255 + 0.5)
		}
	}
	var buf bytes.Buffer
	err := png.Encode(&buf, img)
	return buf.Bytes(), err
}

func czRect(x0, y0, x1, y1 float64) czShape {
	return func(x, y float64) bool { return x >= x0 && x <= x1 && y >= y0 && y <= y1 }
}

func czCircle(cx, cy, r float64) czShape {
	return func(x, y float64) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }
}

func czRing(cx, cy, r0, r1 float64) czShape {
	return func(x, y float64) bool {
		d := (x-cx)*(x-cx) + (y-cy)*(y-cy)
		return d >= r0*r0 && d <= r1*r1
	}
}

// czPolygon is inside a polygon given as x, y pairs (even-odd rule).
func czPolygon(points ...float64) czShape {
	return func(x, y float64) bool {
		in := false
		n := len(points) / 2
		for i, j := 0, n-1; i < n; j, i = i, i+1 {
			xi, yi, xj, yj := points[2*i], points[2*i+1], points[2*j], points[2*j+1]
			if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
				in = !in
			}
		}
		return in
	}
}

func czUnion(shapes ...czShape) czShape {
	return func(x, y float64) bool {
		for _, s := range shapes {
			if s(x, y) {
				return true
			}
		}
		return false
	}
}

func czMinus(a, b czShape) czShape {
	return func(x, y float64) bool { return a(x, y) && !b(x, y) }
}

// czStar is a five-pointed star centred on cx, cy.
func czStar(cx, cy, outer, inner float64) czShape {
	pts := make([]float64, 0, 20)
	for i := range 10 {
		r := outer
		if i%2 == 1 {
			r = inner
		}
		a := -math.Pi/2 + float64(i)*math.Pi/5
		pts = append(pts, cx+r*math.Cos(a), cy+r*math.Sin(a))
	}
	return czPolygon(pts...)
}

// czHeart is the heart curve (x²+y²−1)³ ≤ x²y³, scaled into a square of
// side 2s centred on cx, cy.
func czHeart(cx, cy, s float64) czShape {
	return func(x, y float64) bool {
		u, v := (x-cx)/s*1.3, -(y-cy)/s*1.3+0.25
		q := u*u + v*v - 1
		return q*q*q <= u*u*v*v*v
	}
}

// czStripes is every other diagonal band of width w.
func czStripes(w float64) czShape {
	return func(x, y float64) bool { return int(math.Floor((x+y)/w))%2 == 0 }
}

// czDots is a grid of dots of radius r every step.
func czDots(step, r float64) czShape {
	return func(x, y float64) bool {
		dx := math.Mod(x, step) - step/2
		dy := math.Mod(y, step) - step/2
		return dx*dx+dy*dy <= r*r
	}
}

// czChecks is a checkerboard of squares of side w.
func czChecks(w float64) czShape {
	return func(x, y float64) bool { return (int(x/w)+int(y/w))%2 == 0 }
}

// czWaves is every other band between sine waves.
func czWaves(period, amp float64) czShape {
	return func(x, y float64) bool {
		return int(math.Floor((y+amp*math.Sin(2*math.Pi*x/period))/(period/2)))%2 == 0
	}
}

func czRGB(hex uint32) color.NRGBA {
	return color.NRGBA{R: uint8(hex >> 16), G: uint8(hex >> 8), B: uint8(hex), A: 0xff}
}

// czMockupPhoto draws a product base's photo: a mug, a T-shirt (front or
// back: the back has no collar dip) or a tote bag, on a light studio
// background.
func czMockupPhoto(kind string, size int) ([]byte, error) {
	studio := czRGB(0xeeeae4)
	shadow := czLayer{czCircle(0.5, 1.45, 0.62), czRGB(0xddd8cf)}
	switch kind {
	case "mug":
		body := czRect(0.24, 0.22, 0.70, 0.80)
		handle := czRing(0.72, 0.50, 0.09, 0.15)
		return czDraw(size, studio, shadow,
			czLayer{czUnion(body, handle), czRGB(0xfbfbf8)},
			czLayer{czRect(0.24, 0.22, 0.70, 0.25), czRGB(0xe4e2dc)})
	case "tee-front", "tee-back":
		shirt := czPolygon(0.30, 0.12, 0.42, 0.10, 0.58, 0.10, 0.70, 0.12, 0.92, 0.30, 0.82, 0.42,
			0.74, 0.36, 0.74, 0.90, 0.26, 0.90, 0.26, 0.36, 0.18, 0.42, 0.08, 0.30)
		if kind == "tee-front" {
			shirt = czMinus(shirt, czCircle(0.5, 0.08, 0.09))
		}
		return czDraw(size, studio, shadow, czLayer{shirt, czRGB(0xf6f4ef)})
	default: // tote
		straps := czUnion(czRing(0.38, 0.30, 0.06, 0.085), czRing(0.62, 0.30, 0.06, 0.085))
		bag := czRect(0.20, 0.30, 0.80, 0.88)
		return czDraw(size, studio, shadow, czLayer{czMinus(straps, czRect(0, 0.30, 1, 1)), czRGB(0xc9b99a)},
			czLayer{bag, czRGB(0xe7dcc4)})
	}
}

// czArtwork draws an artwork library's item on a transparent background:
// an icon in one colour, or a pattern tile in two.
func czArtwork(name string, size int, ink, paper uint32) ([]byte, error) {
	clear := color.NRGBA{}
	switch name {
	case "star":
		return czDraw(size, clear, czLayer{czStar(0.5, 0.53, 0.46, 0.19), czRGB(ink)})
	case "heart":
		return czDraw(size, clear, czLayer{czHeart(0.5, 0.5, 0.42), czRGB(ink)})
	case "moon":
		return czDraw(size, clear, czLayer{czMinus(czCircle(0.5, 0.5, 0.40), czCircle(0.64, 0.40, 0.33)), czRGB(ink)})
	case "sun":
		rays := make([]czShape, 0, 8)
		for i := range 8 {
			a := float64(i) * math.Pi / 4
			rays = append(rays, czCircle(0.5+0.38*math.Cos(a), 0.5+0.38*math.Sin(a), 0.06))
		}
		return czDraw(size, clear, czLayer{czUnion(append(rays, czCircle(0.5, 0.5, 0.24))...), czRGB(ink)})
	case "stripes":
		return czDraw(size, czRGB(paper), czLayer{czStripes(0.125), czRGB(ink)})
	case "dots":
		return czDraw(size, czRGB(paper), czLayer{czDots(0.125, 0.035), czRGB(ink)})
	case "checks":
		return czDraw(size, czRGB(paper), czLayer{czChecks(0.125), czRGB(ink)})
	default: // waves
		return czDraw(size, czRGB(paper), czLayer{czWaves(0.25, 0.04), czRGB(ink)})
	}
}
