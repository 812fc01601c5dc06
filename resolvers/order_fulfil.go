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

// fulfil ships lines of the order: the listed quantities, or everything
// left to ship.
func fulfil(in graph.FulfillmentInput, out *models.Fulfillment) orderChange {
	return func(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) ([]string, error) {
		f := models.Fulfillment{StoreID: o.StoreID, OrderID: o.ID, Status: models.ShipmentSuccess, CreatedAt: now}
		var err error
		if f.Carrier, err = text("carrier", deref(in.Carrier), maxCarrier, false); err != nil {
			return nil, err
		}
		if f.TrackingNumber, err = text("tracking_number", deref(in.TrackingNumber), maxTitle, false); err != nil {
			return nil, err
		}
		if f.Note, err = text("note", deref(in.Note), maxNote, false); err != nil {
			return nil, err
		}
		if f.TrackingURL, err = trackingURL(deref(in.TrackingURL), f.Carrier, f.TrackingNumber); err != nil {
			return nil, err
		}
		if o.Status == models.OrderCancelled {
			return nil, apperr.Conflictf("order %s is cancelled; it cannot be shipped", o.OrderNumberDisplay)
		}
		lines, err := models.OrderLines(ctx, tx, o.StoreID, o.ID)
		if err != nil {
			return nil, err
		}
		items, err := shipmentItems(in.LineItems, o, lines)
		if err != nil {
			return nil, err
		}
		if err := models.InsertFulfillment(ctx, tx, &f, items); err != nil {
			return nil, err
		}
		if err := models.RefreshOrderState(ctx, tx, o, now); err != nil {
			return nil, err
		}
		*out = f
		return []string{"order.fulfilled"}, timeline(ctx, tx, o, "fulfilled", now, nil, nil, map[string]any{
			"fulfillment_id": f.ID, "carrier": f.Carrier, "tracking_number": f.TrackingNumber, "items": items,
		})
	}
}

// shipmentItems checks the lines a shipment carries (models.ShipmentItems);
// none listed means everything left to ship.
func shipmentItems(in []graph.FulfillmentLineInput, o *models.Order, lines []models.OrderLineItem) ([]models.FulfillmentItem, error) {
	asked := make([]models.LineQuantity, len(in))
	for i, it := range in {
		asked[i] = models.LineQuantity{LineID: it.LineItemID, Quantity: it.Quantity}
	}
	return models.ShipmentItems(asked, o, lines)
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
	if f.Status == models.ShipmentCancelled {
		return nil, apperr.Conflictf("fulfillment %d is already cancelled", f.ID)
	}
	if err := models.CancelFulfillment(ctx, tx, f, now); err != nil {
		return nil, err
	}
	if err := models.RefreshOrderState(ctx, tx, o, now); err != nil {
		return nil, err
	}
	return o, timeline(ctx, tx, o, "fulfillment_cancelled", now, nil, nil, map[string]any{"fulfillment_id": f.ID})
}
