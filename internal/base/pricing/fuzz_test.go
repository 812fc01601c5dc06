package pricing

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzPrice prices inputs made from the fuzzer's bytes, extremes included,
// and checks the invariants of checkInvariants; a panic fails too.
func FuzzPrice(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{5, 0, 9, 200, 3, 1, 1, 0, 7, 7, 7, 2, 4, 1, 0, 3, 3, 3, 0, 2, 1, 1, 1, 100, 6, 6, 6, 1, 1})
	f.Add([]byte{11, 7, 7, 7, 7, 7, 7, 7, 7, 6, 255, 255, 255, 255, 255, 255, 255, 127, 7, 3, 3, 3})
	f.Add([]byte{4, 2, 1, 10, 2, 2, 0, 2, 20, 3, 3, 1, 3, 0, 1, 2, 1, 3, 1, 1, 0, 0, 1, 2, 2, 2, 50, 1, 1, 1, 1, 1})
	f.Add([]byte("buy two, get one free; and ship it for nothing, taxed"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &source{b: data}
		var in Input
		for range s.byte() % 12 {
			l := Line{Key: s.int(), ProductID: int64(s.byte() % 5), PriceCents: s.int(), Quantity: s.int(),
				WeightGrams: s.int(), Taxable: s.bool(), RequiresShipping: s.bool()}
			for range s.byte() % 3 {
				l.CollectionIDs = append(l.CollectionIDs, int64(s.byte()%4))
			}
			in.Lines = append(in.Lines, l)
		}
		if s.bool() {
			d := s.discount()
			in.Code = &d
		}
		for range s.byte() % 4 {
			in.Automatic = append(in.Automatic, s.discount())
		}
		if s.bool() {
			in.Shipping = &Shipping{RateID: 1, PriceCents: s.int()}
		}
		in.TaxBps, in.TaxShipping = s.int(), s.bool()
		if s.bool() {
			in.Surcharge = Surcharge{Bps: s.int(), CapCents: s.int()}
		}
		if s.bool() {
			in.Tip = Tip{Percent: s.int(), AmountCents: s.int(), MaxPercent: s.int()}
		}
		checkInvariants(t, in, Price(in))
	})
}

// source turns fuzz bytes into values, mostly small, sometimes extreme; it
// answers zeros once the bytes run out.
type source struct{ b []byte }

func (s *source) byte() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *source) bool() bool { return s.byte()&1 == 1 }

func (s *source) int() int64 {
	switch c := s.byte(); c % 8 {
	case 0, 1, 2:
		return int64(s.byte())
	case 3, 4:
		return int64(s.byte()) * 100
	case 5:
		return -int64(s.byte())
	case 6:
		var b [8]byte
		for i := range b {
			b[i] = s.byte()
		}
		return int64(binary.LittleEndian.Uint64(b[:]))
	default:
		return []int64{0, 1, math.MaxInt64, math.MinInt64, MaxCents, MaxCents + 1, MaxTaxBps, 10_000}[c/8%8]
	}
}

func (s *source) ids() []int64 {
	var ids []int64
	for range s.byte() % 3 {
		ids = append(ids, int64(s.byte()%5))
	}
	return ids
}

func (s *source) discount() Discount {
	types := []string{TypePercentage, TypeFixedAmount, TypeFreeShipping, TypeBuyXGetY, "other"}
	applies := []string{AppliesToAll, AppliesToProducts, AppliesToCollections, ""}
	valueTypes := []string{TypePercentage, TypeFixedAmount, ""}
	return Discount{
		ID: int64(s.byte() % 8), Code: string(rune('A' + s.byte()%3)),
		Type: types[s.byte()%5], Value: s.int(), AppliesTo: applies[s.byte()%4],
		ProductIDs: s.ids(), CollectionIDs: s.ids(), MinimumSubtotalCents: s.int(),
		BuyQuantity: s.int(), GetQuantity: s.int(), GetValue: s.int(), GetValueType: valueTypes[s.byte()%3],
		BuyProductIDs: s.ids(), BuyCollectionIDs: s.ids(), GetProductIDs: s.ids(), GetCollectionIDs: s.ids(),
	}
}
