package seed

import (
	"slices"
	"time"

	"storeadmin/models"
)

// shipTime is when the warehouse ships an order that may ship from ready:
// a few hours to a couple of days later, in working hours on weekdays.
func (g *ordGen) shipTime(ready time.Time) time.Time {
	h := min(2+g.rng.ExpFloat64()*16, 80)
	l := ready.Add(time.Duration(h * float64(time.Hour))).In(g.loc)
	if l.Hour() < 8 || l.Hour() >= 18 {
		d := l
		if l.Hour() >= 18 {
			d = d.AddDate(0, 0, 1)
		}
		l = time.Date(d.Year(), d.Month(), d.Day(), 9, 0, 0, 0, g.loc).Add(g.dur(0, 8*time.Hour))
	}
	for l.Weekday() == time.Saturday || l.Weekday() == time.Sunday {
		l = l.AddDate(0, 0, 1)
	}
	return l.UTC()
}

// tracking makes up a carrier's tracking number and its URL.
func (g *ordGen) tracking(carrier string) (string, string) {
	digits := "0123456789"
	switch carrier {
	case "UPS":
		n := "1Z" + g.chars("0123456789ABCDEFGHJKLMNPRSTUVWXYZ", 6) + "03" + g.chars(digits, 8)
		return n, "https://www.ups.com/track?tracknum=" + n
	case "FedEx":
		n := g.chars(digits, 12)
		return n, "https://www.fedex.com/fedextrack/?trknbr=" + n
	case "DHL":
		n := g.chars(digits, 10)
		return n, "https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=" + n
	}
	n := "9400" + g.chars(digits, 18)
	return n, "https://tools.usps.com/go/TrackConfirmAction?tLabels=" + n
}

// ship ships quantities (by line index) at at, by the warehouse's
// integration or by hand, and returns the shipment.
func (g *ordGen) ship(oo *ordOrder, at time.Time, items map[int]int64) *models.Fulfillment {
	s := models.Shipment{Actor: "api"} // the warehouse's integration
	if g.rng.Float64() < 0.35 {
		s.Actor = "admin"
	}
	if oo.o.Source == "pos" {
		s.Note, s.Actor = "Picked up in store", "api"
	} else {
		s.Carrier = oo.carrier
		s.TrackingNumber, s.TrackingURL = g.tracking(s.Carrier)
		if g.rng.Float64() < 0.2 {
			s.Note = "Shipped from PDX-1"
		}
	}
	idx := make([]int, 0, len(items))
	for i := range items {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		s.Lines = append(s.Lines, models.LineQuantity{LineID: oo.lines[i].ID, Quantity: items[i]})
	}
	return g.fulfilOrder(oo, at, s)
}

// fulfil ships the order from at: usually everything at once; sometimes a
// line follows later (backordered), sometimes a label is voided and the
// shipment redone.
func (g *ordGen) fulfil(oo *ordOrder, at time.Time) {
	all := make(map[int]int64, len(oo.lines))
	for i, l := range oo.lines {
		all[i] = l.Quantity
	}
	if oo.o.Source == "pos" {
		g.ship(oo, at, all)
		oo.allShipped = true
		return
	}
	if g.want("fulfillment_cancelled", 0.01) {
		c := at.Add(g.dur(time.Hour, 8*time.Hour))
		if c.After(g.now) {
			c = g.now
		}
		f := g.ship(oo, at, all)
		g.cancelShipment(oo, f, c)
		at = c.Add(g.dur(time.Hour, 24*time.Hour))
		if at.After(g.now) {
			return
		}
	}
	age := g.now.Sub(oo.o.CreatedAt)
	split := len(oo.lines) >= 2 && g.rng.Float64() < 0.07
	backordered := !split && len(oo.lines) >= 2 && age < 14*24*time.Hour && g.want("partial", 0.08)
	if split || backordered {
		held := g.rng.IntN(len(oo.lines))
		first := make(map[int]int64, len(all))
		for i, q := range all {
			if i != held {
				first[i] = q
			}
		}
		g.ship(oo, at, first)
		later := at.Add(g.dur(2*24*time.Hour, 10*24*time.Hour))
		if backordered || later.After(g.now) {
			return
		}
		g.ship(oo, later, map[int]int64{held: all[held]})
	} else {
		g.ship(oo, at, all)
	}
	oo.allShipped = true
}
