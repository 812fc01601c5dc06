package apitest_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/app/apitest"
	"storeadmin/models"
)

// orderLine is one line of a test order.
type orderLine struct {
	sku      string
	price    int64
	quantity int64
	// variantID links the line to a catalogue variant (for restock tests).
	variantID *int64
}

// orderSpec describes a test order. Money: subtotal from the lines, then
// discount, shipping and tax as given; the payment is a sale of the total
// (paid), an open authorization of it (authorized), or nothing (pending).
type orderSpec struct {
	email      string
	lines      []orderLine
	discount   int64
	shipping   int64
	tax        int64
	payment    string // "paid" (default), "authorized", "pending"
	tags       []string
	createdAt  time.Time
	authExpiry *time.Time
}

// createOrder stores a test order straight through the models, as a checkout
// would, and returns it.
func createOrder(t testing.TB, e *apitest.Env, storeID int64, spec orderSpec) *models.Order {
	t.Helper()
	ctx := context.Background()
	if spec.email == "" {
		spec.email = "shopper@example.com"
	}
	if len(spec.lines) == 0 {
		spec.lines = []orderLine{{sku: "TEE-S", price: 2500, quantity: 2}, {sku: "MUG", price: 1200, quantity: 1}}
	}
	if spec.createdAt.IsZero() {
		spec.createdAt = time.Now().UTC().Add(-time.Hour)
	}
	if spec.tags == nil {
		spec.tags = []string{}
	}
	var o *models.Order
	err := e.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		c := &models.Customer{StoreID: storeID, Email: spec.email, FirstName: "Ada", LastName: "Lovelace", Phone: "+441234567890"}
		if err := models.UpsertCustomer(ctx, tx, c); err != nil {
			return err
		}
		n, display, err := models.NextOrderNumber(ctx, tx, storeID)
		if err != nil {
			return err
		}
		var lines []models.OrderLineItem
		var subtotal int64
		for _, l := range spec.lines {
			subtotal += l.price * l.quantity
			lines = append(lines, models.OrderLineItem{
				Title: "Item " + l.sku, VariantTitle: "Default", SKU: l.sku, PriceCents: l.price, Quantity: l.quantity,
				RequiresShipping: true, VariantID: l.variantID, Source: "checkout",
			})
		}
		total := subtotal - spec.discount + spec.shipping + spec.tax
		o = &models.Order{
			StoreID: storeID, OrderNumber: n, OrderNumberDisplay: display, CustomerID: &c.ID, Email: spec.email,
			Currency: "EUR", Status: models.OrderOpen, FinancialStatus: models.FinancialPending,
			FulfillmentStatus: models.FulfillmentUnfulfilled, SubtotalCents: subtotal, DiscountCents: spec.discount,
			ShippingCents: spec.shipping, TaxCents: spec.tax, TotalCents: total, Tags: spec.tags, SystemTags: []string{},
			ShippingAddress: map[string]any{"city": "Paris", "country_code": "FR"}, Source: "web",
			Attribution: &models.OrderAttribution{UTMSource: "google", UTMMedium: "cpc", UTMCampaign: "autumn", ClickIDs: map[string]any{"gclid": "abc"}},
			CreatedAt:   spec.createdAt, UpdatedAt: spec.createdAt,
		}
		if err := models.InsertOrder(ctx, tx, o, lines); err != nil {
			return err
		}
		method := "visa"
		timeline := []models.OrderEvent{{StoreID: storeID, OrderID: o.ID, Name: "created", Source: "checkout", At: spec.createdAt}}
		switch spec.payment {
		case "", "paid":
			sale := models.OrderTransaction{StoreID: storeID, OrderID: o.ID, Kind: models.TxSale, Status: models.TxSuccess,
				AmountCents: total, Currency: "EUR", Provider: "stripe", ExternalID: "ch_" + strconv.FormatInt(o.ID, 10),
				PaymentMethod: &method, CreatedAt: spec.createdAt}
			if err := models.InsertTransaction(ctx, tx, &sale); err != nil {
				return err
			}
			timeline = append(timeline, models.OrderEvent{StoreID: storeID, OrderID: o.ID, Name: "paid", Source: "checkout",
				AmountCents: &total, TransactionID: &sale.ID, At: spec.createdAt})
		case "authorized":
			expires := spec.createdAt.Add(7 * 24 * time.Hour)
			if spec.authExpiry != nil {
				expires = *spec.authExpiry
			}
			auth := models.OrderTransaction{StoreID: storeID, OrderID: o.ID, Kind: models.TxAuthorization, Status: models.TxSuccess,
				AmountCents: total, Currency: "EUR", Provider: "stripe", ExternalID: "pi_" + strconv.FormatInt(o.ID, 10),
				PaymentMethod: &method, ExpiresAt: &expires, CreatedAt: spec.createdAt}
			if err := models.InsertTransaction(ctx, tx, &auth); err != nil {
				return err
			}
			timeline = append(timeline, models.OrderEvent{StoreID: storeID, OrderID: o.ID, Name: "authorized", Source: "checkout",
				AmountCents: &total, TransactionID: &auth.ID, At: spec.createdAt})
		case "pending":
		default:
			return fmt.Errorf("unknown payment %q", spec.payment)
		}
		if err := models.AddOrderEvents(ctx, tx, timeline...); err != nil {
			return err
		}
		return models.RefreshOrderState(ctx, tx, o, spec.createdAt)
	})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// orderLines reads the lines of an order, in order.
func orderLines(t testing.TB, e *apitest.Env, o *models.Order) []models.OrderLineItem {
	t.Helper()
	lines, err := models.OrderLines(context.Background(), e.DB, o.StoreID, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func orderPath(id int64, rest ...string) string {
	return "/store/orders/" + strconv.FormatInt(id, 10) + strings.Join(rest, "")
}
