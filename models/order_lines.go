package models

import "storeadmin/internal/base/apperr"

// LineQuantity is a quantity of one order line that a refund or shipment
// names.
type LineQuantity struct{ LineID, Quantity int64 }

// pickedLine is a checked LineQuantity with its line.
type pickedLine struct {
	line     OrderLineItem
	quantity int64
}

// pickLines checks the lines a refund or shipment names: lines of the order,
// each once, at least 1 of each, and at most left of it (a conflict beyond,
// with verb saying what is left to do).
func pickLines(asked []LineQuantity, o *Order, lines []OrderLineItem, verb string, left func(OrderLineItem) int64) ([]pickedLine, error) {
	byID := map[int64]OrderLineItem{}
	for _, l := range lines {
		byID[l.ID] = l
	}
	out := make([]pickedLine, 0, len(asked))
	seen := map[int64]bool{}
	for i, a := range asked {
		l, ok := byID[a.LineID]
		switch {
		case !ok:
			return nil, apperr.Invalidf("line_items[%d]: line %d is not a line of order %s", i, a.LineID, o.OrderNumberDisplay)
		case seen[a.LineID]:
			return nil, apperr.Invalidf("line_items[%d]: line %d is listed twice", i, a.LineID)
		case a.Quantity < 1:
			return nil, apperr.Invalidf("line_items[%d]: quantity must be at least 1", i)
		case a.Quantity > left(l):
			return nil, apperr.Conflictf("line %d (%s) has %d left to %s, not %d", l.ID, l.Title, left(l), verb, a.Quantity)
		}
		seen[a.LineID] = true
		out = append(out, pickedLine{l, a.Quantity})
	}
	return out, nil
}

// ShipmentItems checks the lines a shipment of o carries against what is
// left to ship of each; none asked means everything left to ship.
func ShipmentItems(asked []LineQuantity, o *Order, lines []OrderLineItem) ([]FulfillmentItem, error) {
	var items []FulfillmentItem
	if len(asked) == 0 {
		for _, l := range lines {
			if n := l.Unfulfilled(); n > 0 {
				items = append(items, FulfillmentItem{LineItemID: l.ID, Quantity: n})
			}
		}
		if len(items) == 0 {
			return nil, apperr.Conflictf("order %s has nothing left to ship", o.OrderNumberDisplay)
		}
		return items, nil
	}
	picked, err := pickLines(asked, o, lines, "ship", OrderLineItem.Unfulfilled)
	if err != nil {
		return nil, err
	}
	for _, p := range picked {
		items = append(items, FulfillmentItem{LineItemID: p.line.ID, Quantity: p.quantity})
	}
	return items, nil
}
