package media

import (
	"image"
	"image/color"
	"math"
)

// thumbhashMaxSide is the largest side the ThumbHash encoder accepts: the
// reference refuses bigger inputs because they cost time and add nothing to a
// placeholder of a few dozen bytes.
const thumbhashMaxSide = 100

// Thumbhash encodes img as a ThumbHash (https://evanw.github.io/thumbhash/): a
// placeholder of at most 25 bytes from which a client renders a blurred
// preview, with the image's aspect ratio and alpha, while the real image loads.
//
// The image is first reduced to at most 100x100 pixels with a box filter (the
// encoder requires it); the hash is then computed as the reference encoder
// (rgbaToThumbHash in evanw/thumbhash) does, in float64 as its JavaScript
// version does. An empty image has no hash: the result is nil.
func Thumbhash(img image.Image) []byte {
	w, h, rgba := thumbnailRGBA(img, thumbhashMaxSide)
	if w == 0 || h == 0 {
		return nil
	}
	return rgbaToThumbhash(w, h, rgba)
}

// thumbnailRGBA reduces img so that neither side exceeds maxSide, keeping its
// aspect ratio, by averaging every source pixel of each destination pixel's
// box. Averaging happens on premultiplied colour, so transparent pixels do not
// bleed their (invisible) colour into the result; the returned bytes are
// non-premultiplied RGBA rows, as the ThumbHash encoder wants.
func thumbnailRGBA(img image.Image, maxSide int) (int, int, []byte) {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	if sw <= 0 || sh <= 0 {
		return 0, 0, nil
	}
	dw, dh := sw, sh
	if sw > maxSide || sh > maxSide {
		scale := float64(maxSide) / float64(max(sw, sh))
		dw = min(maxSide, max(1, int(math.Round(float64(sw)*scale))))
		dh = min(maxSide, max(1, int(math.Round(float64(sh)*scale))))
	}
	at := premultipliedAt(img)
	out := make([]byte, 0, dw*dh*4)
	for ty := range dh {
		y0, y1 := b.Min.Y+ty*sh/dh, b.Min.Y+(ty+1)*sh/dh
		for tx := range dw {
			x0, x1 := b.Min.X+tx*sw/dw, b.Min.X+(tx+1)*sw/dw
			var sr, sg, sb, sa uint64
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					r, g, bl, a := at(x, y)
					sr += uint64(r)
					sg += uint64(g)
					sb += uint64(bl)
					sa += uint64(a)
				}
			}
			n := uint64((x1 - x0) * (y1 - y0))
			out = append(out, unpremultiply(sr/n, sg/n, sb/n, sa/n)...)
		}
	}
	return dw, dh, out
}

// unpremultiply turns an average premultiplied 16-bit colour into
// non-premultiplied 8-bit RGBA.
func unpremultiply(r, g, b, a uint64) []byte {
	if a == 0 {
		return []byte{0, 0, 0, 0}
	}
	c := func(v uint64) byte { return byte(min(255, (v*255+a/2)/a)) }
	return []byte{c(r), c(g), c(b), byte((a*255 + 32767) / 65535)}
}

// premultipliedAt returns a function reading one pixel as premultiplied
// 16-bit RGBA. The image types the standard decoders produce are read directly:
// going through image.Image.At allocates a color.Color per pixel, which on a
// large photo costs far more than the hash itself.
func premultipliedAt(img image.Image) func(x, y int) (r, g, b, a uint32) {
	switch m := img.(type) {
	case *image.NRGBA:
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			i := m.PixOffset(x, y)
			p := m.Pix[i : i+4 : i+4]
			a := uint32(p[3]) * 0x101
			return uint32(p[0]) * 0x101 * a / 0xffff, uint32(p[1]) * 0x101 * a / 0xffff, uint32(p[2]) * 0x101 * a / 0xffff, a
		}
	case *image.RGBA:
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			i := m.PixOffset(x, y)
			p := m.Pix[i : i+4 : i+4]
			return uint32(p[0]) * 0x101, uint32(p[1]) * 0x101, uint32(p[2]) * 0x101, uint32(p[3]) * 0x101
		}
	case *image.YCbCr:
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			yi, ci := m.YOffset(x, y), m.COffset(x, y)
			return color.YCbCr{Y: m.Y[yi], Cb: m.Cb[ci], Cr: m.Cr[ci]}.RGBA()
		}
	case *image.NYCbCrA: // lossy WebP with alpha
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			yi, ci, ai := m.YOffset(x, y), m.COffset(x, y), m.AOffset(x, y)
			return color.NYCbCrA{YCbCr: color.YCbCr{Y: m.Y[yi], Cb: m.Cb[ci], Cr: m.Cr[ci]}, A: m.A[ai]}.RGBA()
		}
	case *image.NRGBA64: // 16-bit PNG
		return func(x, y int) (uint32, uint32, uint32, uint32) { return m.NRGBA64At(x, y).RGBA() }
	case *image.RGBA64:
		return func(x, y int) (uint32, uint32, uint32, uint32) { return m.RGBA64At(x, y).RGBA() }
	case *image.Gray:
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			v := uint32(m.Pix[m.PixOffset(x, y)]) * 0x101
			return v, v, v, 0xffff
		}
	case *image.Paletted:
		palette := make([][4]uint32, len(m.Palette))
		for i, c := range m.Palette {
			r, g, b, a := c.RGBA()
			palette[i] = [4]uint32{r, g, b, a}
		}
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			i := int(m.Pix[m.PixOffset(x, y)])
			if i >= len(palette) {
				return 0, 0, 0, 0 // an index past the palette reads as transparent black
			}
			c := palette[i]
			return c[0], c[1], c[2], c[3]
		}
	}
	return func(x, y int) (uint32, uint32, uint32, uint32) { return img.At(x, y).RGBA() }
}

// rgbaToThumbhash is the reference ThumbHash encoder. rgba holds w*h
// non-premultiplied pixels row by row; w and h are at most 100.
func rgbaToThumbhash(w, h int, rgba []byte) []byte {
	n := w * h

	// The average colour, weighted by alpha.
	var avgR, avgG, avgB, avgA float64
	for i := 0; i < n; i++ {
		p := rgba[i*4 : i*4+4]
		alpha := float64(p[3]) / 255
		avgR += alpha / 255 * float64(p[0])
		avgG += alpha / 255 * float64(p[1])
		avgB += alpha / 255 * float64(p[2])
		avgA += alpha
	}
	if avgA > 0 {
		avgR /= avgA
		avgG /= avgA
		avgB /= avgA
	}

	hasAlpha := avgA < float64(n)
	lLimit := 7
	if hasAlpha {
		lLimit = 5 // fewer luminance terms leave room for the alpha channel
	}
	longest := float64(max(w, h))
	lx := max(1, int(math.Round(float64(lLimit*w)/longest)))
	ly := max(1, int(math.Round(float64(lLimit*h)/longest)))

	// RGBA to LPQA (luminance, yellow-blue, red-green, alpha), each pixel
	// composited over the average colour.
	l := make([]float64, n)
	p := make([]float64, n)
	q := make([]float64, n)
	a := make([]float64, n)
	for i := 0; i < n; i++ {
		px := rgba[i*4 : i*4+4]
		alpha := float64(px[3]) / 255
		r := avgR*(1-alpha) + alpha/255*float64(px[0])
		g := avgG*(1-alpha) + alpha/255*float64(px[1])
		b := avgB*(1-alpha) + alpha/255*float64(px[2])
		l[i] = (r + g + b) / 3
		p[i] = (r+g)/2 - b
		q[i] = r - g
		a[i] = alpha
	}

	lCh := encodeChannel(w, h, l, max(lx, 3), max(ly, 3))
	pCh := encodeChannel(w, h, p, 3, 3)
	qCh := encodeChannel(w, h, q, 3, 3)
	aCh := dctChannel{dc: 1, scale: 1}
	if hasAlpha {
		aCh = encodeChannel(w, h, a, 5, 5)
	}

	// The constants: a 24-bit and a 16-bit header, then the alpha byte.
	isLandscape := w > h
	header24 := uint32(math.Round(63*lCh.dc)) |
		uint32(math.Round(31.5+31.5*pCh.dc))<<6 |
		uint32(math.Round(31.5+31.5*qCh.dc))<<12 |
		uint32(math.Round(31*lCh.scale))<<18
	if hasAlpha {
		header24 |= 1 << 23
	}
	header16 := uint16(lx)
	if isLandscape {
		header16 = uint16(ly)
	}
	header16 |= uint16(math.Round(63*pCh.scale))<<3 | uint16(math.Round(63*qCh.scale))<<9
	if isLandscape {
		header16 |= 1 << 15
	}
	hash := make([]byte, 0, 25)
	hash = append(hash, byte(header24), byte(header24>>8), byte(header24>>16), byte(header16), byte(header16>>8))
	if hasAlpha {
		hash = append(hash, byte(math.Round(15*aCh.dc))|byte(math.Round(15*aCh.scale))<<4)
	}

	// The varying factors, two 4-bit values per byte, low nibble first.
	odd := false
	put := func(ac []float64) {
		for _, f := range ac {
			u := byte(math.Round(15 * f))
			if odd {
				hash[len(hash)-1] |= u << 4
			} else {
				hash = append(hash, u)
			}
			odd = !odd
		}
	}
	put(lCh.ac)
	put(pCh.ac)
	put(qCh.ac)
	if hasAlpha {
		put(aCh.ac)
	}
	return hash
}

// dctChannel is one channel reduced by the DCT: the constant (DC) term, the
// varying (AC) terms normalised to [0, 1], and the scale that undoes the
// normalisation.
type dctChannel struct {
	dc    float64
	ac    []float64
	scale float64
}

// encodeChannel keeps the DCT terms of channel (w*h values) in the triangle
// cx*ny < nx*(ny-cy), the low frequencies that matter to a blurred preview.
func encodeChannel(w, h int, channel []float64, nx, ny int) dctChannel {
	var c dctChannel
	fx := make([]float64, w)
	for cy := 0; cy < ny; cy++ {
		for cx := 0; cx*ny < nx*(ny-cy); cx++ {
			for x := range w {
				fx[x] = math.Cos(math.Pi / float64(w) * float64(cx) * (float64(x) + 0.5))
			}
			f := 0.0
			for y := range h {
				fy := math.Cos(math.Pi / float64(h) * float64(cy) * (float64(y) + 0.5))
				row := channel[y*w : y*w+w]
				for x, v := range row {
					f += v * fx[x] * fy
				}
			}
			f /= float64(w * h)
			if cx > 0 || cy > 0 {
				c.ac = append(c.ac, f)
				c.scale = max(c.scale, math.Abs(f))
			} else {
				c.dc = f
			}
		}
	}
	if c.scale > 0 {
		for i, f := range c.ac {
			c.ac[i] = 0.5 + 0.5/c.scale*f
		}
	}
	return c
}
