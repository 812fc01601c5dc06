package resolvers

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

const (
	maxCarrier     = 100
	maxTrackingURL = 2048
)

// trackingURLs are the public tracking pages of carriers most stores use.
var trackingURLs = map[string]string{
	"ups":   "https://www.ups.com/track?tracknum=",
	"usps":  "https://tools.usps.com/go/TrackConfirmAction?tLabels=",
	"fedex": "https://www.fedex.com/fedextrack/?trknbr=",
	"dhl":   "https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=",
}

// fulfil ships lines of the order (models.FulfilOrder): the listed
// quantities, or everything left to ship. The texts and the tracking link
// are checked here.
func fulfil(in graph.FulfillmentInput, out *models.Fulfillment) orderChange {
	return func(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) ([]string, error) {
		s := models.Shipment{Order: o, Actor: actorSource(ctx), Now: now}
		var err error
		if s.Carrier, err = text("carrier", deref(in.Carrier), maxCarrier, false); err != nil {
			return nil, err
		}
		if s.TrackingNumber, err = text("tracking_number", deref(in.TrackingNumber), maxTitle, false); err != nil {
			return nil, err
		}
		if s.Note, err = text("note", deref(in.Note), maxNote, false); err != nil {
			return nil, err
		}
		if s.TrackingURL, err = trackingURL(deref(in.TrackingURL), s.Carrier, s.TrackingNumber); err != nil {
			return nil, err
		}
		for _, it := range in.LineItems {
			s.Lines = append(s.Lines, models.LineQuantity{LineID: it.LineItemID, Quantity: it.Quantity})
		}
		f, err := models.FulfilOrder(ctx, tx, s)
		if err != nil {
			return nil, err
		}
		*out = *f
		return []string{"order.fulfilled"}, nil
	}
}

// trackingURL checks a tracking link, or makes one for a known carrier.
func trackingURL(raw, carrier, number string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		if base, ok := trackingURLs[strings.ToLower(carrier)]; ok && number != "" {
			return base + url.QueryEscape(number), nil
		}
		return "", nil
	}
	u, err := url.Parse(raw)
	if len(raw) > maxTrackingURL || err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", apperr.Invalidf("tracking_url must be an absolute http or https URL of at most %d characters", maxTrackingURL)
	}
	return u.String(), nil
}

// cancelShipment cancels the fulfillment id; its quantities return to
// the order.
func cancelShipment(ctx context.Context, tx bun.IDB, storeID, id int64, now time.Time) (*models.Order, error) {
	f, err := models.GetFulfillment(ctx, tx, storeID, id)
	if err != nil {
		return nil, err
	}
	o, err := models.LockOrder(ctx, tx, storeID, f.OrderID)
	if err != nil {
		return nil, err
	}
	if f, err = models.GetFulfillment(ctx, tx, storeID, id); err != nil {
		return nil, err
	}
	return o, models.CancelFulfillment(ctx, tx, o, f, actorSource(ctx), now)
}

// fulfilledQuantities is how much of each line has shipped.
func fulfilledQuantities(lines []models.OrderLineItem) []models.FulfilledQuantity {
	out := make([]models.FulfilledQuantity, len(lines))
	for i, l := range lines {
		out[i] = models.FulfilledQuantity{LineItemID: l.ID, Quantity: l.FulfilledQuantity}
	}
	return out
}
