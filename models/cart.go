package models

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/pricing"
)

// Storefront carts and checkouts (the migration storefront_tables): what a
// shopper's browser builds through /storefront/v1, known to it by a token.
// Their lines carry the catalogue's prices as of the last change, never
// the client's, and their money is the pricing engine's.

// Bounds of what a storefront basket holds.
const (
	MaxStorefrontLines    = 100
	MaxStorefrontQuantity = 1_000
	maxContactName        = 255
	maxContactPhone       = 40
	maxLineProperties     = 2 << 10
)

// NewStorefrontToken returns the unguessable token that names a cart or a
// checkout to the browser that made it (128 random bits).
func NewStorefrontToken() string {
	b := make([]byte, 16)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read does not fail on supported platforms
	return hex.EncodeToString(b)
}

// ShopperContact is who a cart or checkout belongs to, as the shopper typed
// it, and what they agreed to.
type ShopperContact struct {
	Email            string `bun:"email" json:"email"`
	Phone            string `bun:"phone" json:"phone"`
	FirstName        string `bun:"first_name" json:"first_name"`
	LastName         string `bun:"last_name" json:"last_name"`
	MarketingConsent bool   `bun:"marketing_consent" json:"marketing_consent"`
	// RecoveryOptOut: the shopper asked for no recovery reminders.
	RecoveryOptOut bool `bun:"recovery_opt_out" json:"recovery_opt_out"`
}

// Clean trims the contact's text and checks it: bounded one-line text, the
// email an address when given.
func (c *ShopperContact) Clean() error {
	c.Email, c.Phone = strings.TrimSpace(c.Email), strings.TrimSpace(c.Phone)
	c.FirstName, c.LastName = strings.TrimSpace(c.FirstName), strings.TrimSpace(c.LastName)
	for _, f := range []struct {
		field, v string
		max      int
	}{{"email", c.Email, maxFormEmail}, {"phone", c.Phone, maxContactPhone}, {"first_name", c.FirstName, maxContactName}, {"last_name", c.LastName, maxContactName}} {
		if utf8.RuneCountInString(f.v) > f.max {
			return apperr.Invalidf("%s must be at most %d characters", f.field, f.max)
		}
		if strings.ContainsFunc(f.v, unicode.IsControl) {
			return apperr.Invalidf("%s must be one line of text", f.field)
		}
	}
	if c.Email != "" {
		if a, err := mail.ParseAddress(c.Email); err != nil || a.Address != c.Email || !strings.Contains(c.Email, "@") {
			return apperr.Invalidf("email must be an email address such as ana@example.com")
		}
	}
	return nil
}

// BasketLine is one line of a cart or a checkout: a catalogue variant, its
// price as of the last change and the quantity.
type BasketLine struct {
	ID           int64  `bun:"id,pk,autoincrement" json:"-"`
	StoreID      int64  `bun:"store_id" json:"-"`
	Position     int64  `bun:"position" json:"-"`
	VariantID    *int64 `bun:"variant_id" json:"variant_id"`
	ProductID    *int64 `bun:"product_id" json:"product_id"`
	Title        string `bun:"title" json:"title"`
	VariantTitle string `bun:"variant_title" json:"variant_title"`
	Handle       string `bun:"handle" json:"handle"`
	SKU          string `bun:"sku" json:"sku"`
	ImageSrc     string `bun:"image_src" json:"image_src"`
	PriceCents   int64  `bun:"price_cents" json:"price_cents"`
	Quantity     int64  `bun:"quantity" json:"quantity"`
	// Properties are the shopper's notes on the line (engraving, gift
	// message): an object of text, as the storefront sent it.
	Properties map[string]any `bun:"properties,type:jsonb" json:"properties"`
	// RequiresShipping is the variant's, as of the last pricing (not
	// stored).
	RequiresShipping bool `bun:"-" json:"-"`
}

// LineAsk is a line as a shopper asks for it: a variant and a quantity,
// customised when it asks for a customization (models/customizer_line.go).
type LineAsk struct {
	VariantID     int64          `json:"variant_id"`
	Quantity      int64          `json:"quantity"`
	Properties    map[string]any `json:"properties"`
	Customization *CzLineAsk     `json:"customization"`
	// kept marks a stored line asked again (AskOfLine): a plain line the
	// shopper added before its product became personalised stays plain.
	kept bool
}

// AskOfLine is the ask that makes l again: a cart's line becoming a
// checkout's, customised as it was.
func AskOfLine(l BasketLine) LineAsk {
	props, cz := SplitLineProperties(l.Properties)
	return LineAsk{VariantID: *l.VariantID, Quantity: l.Quantity, Properties: props, Customization: cz, kept: true}
}

// BasketLines turns asks into lines priced from the catalogue: each a
// variant of the store whose product is active, at most
// MaxStorefrontQuantity, and, for a variant whose stock is tracked and may
// not be oversold, at most what is in stock (PlaceOrder checks it again
// when the order is placed). Asks of one variant without properties are
// one line; a customised ask is checked against its binding's option set
// (a broken rule is a 400 naming the option) and is a line of its own,
// while p offers the customizer.
func BasketLines(ctx context.Context, db bun.IDB, storeID int64, asks []LineAsk, p Platform) ([]BasketLine, error) {
	if len(asks) > MaxStorefrontLines {
		return nil, apperr.Invalidf("lines may list at most %d lines", MaxStorefrontLines)
	}
	ids := make([]int64, 0, len(asks))
	for i, a := range asks {
		if a.VariantID <= 0 {
			return nil, apperr.Invalidf("lines[%d].variant_id must be the id of a variant of the store's catalogue", i)
		}
		if a.Quantity < 1 || a.Quantity > MaxStorefrontQuantity {
			return nil, apperr.Invalidf("lines[%d].quantity must be between 1 and %d, not %d", i, MaxStorefrontQuantity, a.Quantity)
		}
		if err := checkLineProperties(i, a.Properties); err != nil {
			return nil, err
		}
		ids = append(ids, a.VariantID)
	}
	if len(ids) == 0 {
		return []BasketLine{}, nil
	}
	variants, err := CatalogueVariants(ctx, db, storeID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]BasketLine, 0, len(asks))
	want := map[int64]int64{} // variant → quantity asked over all lines
	cz := NewCzLines(db, storeID)
	products := make([]int64, 0, len(variants))
	for _, v := range variants {
		products = append(products, v.ProductID)
	}
	if err := cz.ProductBindings(ctx, products); err != nil {
		return nil, err
	}
	for i, a := range asks {
		v, ok := variants[a.VariantID]
		if !ok || v.ProductStatus != ProductActive {
			return nil, apperr.Invalidf("lines[%d].variant_id %d is not a variant the store sells", i, a.VariantID)
		}
		want[v.ID] += a.Quantity
		if v.TrackInventory && v.InventoryPolicy == InventoryDeny && want[v.ID] > v.Inventory {
			return nil, apperr.Conflictf("%s has only %d in stock, not %d", v.label(), max(v.Inventory, 0), want[v.ID])
		}
		if j := sameLine(out, a); j >= 0 {
			out[j].Quantity += a.Quantity
			continue
		}
		l := BasketLine{StoreID: storeID, Quantity: a.Quantity, Properties: a.Properties}
		if a.Customization != nil {
			field := fmt.Sprintf("lines[%d].customization", i)
			if err := p.AllowsCustomization(field, a.Customization); err != nil {
				return nil, err
			}
			line, err := cz.Customize(ctx, field, v, a.Quantity, a.Customization)
			if err != nil {
				return nil, err
			}
			l.Properties = withCustomization(a.Properties, line.Customization)
		} else if !a.kept {
			if err := cz.CheckUncustomized(ctx, fmt.Sprintf("lines[%d].customization", i), v, p); err != nil {
				return nil, err
			}
		}
		l.fill(v)
		out = append(out, l)
	}
	for i := range out {
		out[i].Position = int64(i)
	}
	return out, nil
}

// sameLine is the index of the line of lines a would add to, or -1.
func sameLine(lines []BasketLine, a LineAsk) int {
	for j, l := range lines {
		if *l.VariantID == a.VariantID && len(l.Properties) == 0 && len(a.Properties) == 0 && a.Customization == nil {
			return j
		}
	}
	return -1
}

// checkLineProperties accepts an object of short text; CzPropertyKey is
// the customizer's.
func checkLineProperties(i int, props map[string]any) error {
	size := 0
	for k, v := range props {
		if k == CzPropertyKey {
			return apperr.InvalidField(fmt.Sprintf("lines[%d].properties.%s", i, k), "is kept by the customizer: send lines[%d].customization", i)
		}
		s, ok := v.(string)
		if !ok {
			return apperr.Invalidf("lines[%d].properties.%s must be text", i, k)
		}
		size += len(k) + len(s)
	}
	if size > maxLineProperties {
		return apperr.Invalidf("lines[%d].properties must be at most %d bytes of text", i, maxLineProperties)
	}
	return nil
}

// fill takes the line's catalogue facts and price from v.
func (l *BasketLine) fill(v CatalogueVariant) {
	l.VariantID, l.ProductID = &v.ID, &v.ProductID
	l.Title, l.VariantTitle, l.Handle, l.SKU, l.PriceCents = v.ProductTitle, v.LineTitle(), v.ProductHandle, v.SKU, v.PriceCents
	l.RequiresShipping = v.RequiresShipping
}

// RepriceBasket takes every line's price and facts from the catalogue as of
// now, with the price the arms of the shopper's running price tests
// charge (so a test's arm charges the price it shows), and answers the
// engine's lines for them. A line whose variant is no longer sold is a
// conflict: the shopper must remove it. A customised line is checked
// again against its binding and priced by it (CzLine.UnitPrice: the arm
// changes its base price, the customisation's surcharges are added after);
// one that no longer keeps to its option set is a conflict too.
func RepriceBasket(ctx context.Context, db bun.IDB, storeID int64, lines []BasketLine, arms MoneyArms) ([]pricing.Line, error) {
	ids := make([]int64, 0, len(lines))
	for _, l := range lines {
		if l.VariantID != nil {
			ids = append(ids, *l.VariantID)
		}
	}
	variants := map[int64]CatalogueVariant{}
	if len(ids) > 0 {
		var err error
		if variants, err = CatalogueVariants(ctx, db, storeID, ids); err != nil {
			return nil, err
		}
	}
	out := make([]pricing.Line, len(lines))
	cz := NewCzLines(db, storeID)
	for i := range lines {
		l := &lines[i]
		var v CatalogueVariant
		ok := l.VariantID != nil
		if ok {
			v, ok = variants[*l.VariantID]
		}
		if !ok || v.ProductStatus != ProductActive {
			return nil, apperr.Conflictf("%s is no longer sold; remove it from the lines", l.Title)
		}
		if c := CzCustomizationOf(l.Properties); c != nil {
			line, err := cz.Customize(ctx, fmt.Sprintf("lines[%d].customization", i), v, l.Quantity, c.Ask())
			if err != nil {
				return nil, err
			}
			v.PriceCents = line.UnitPrice(arms.Price(v.ProductID, line.BaseCents))
			l.Properties = withCustomization(l.Properties, line.Customization)
		} else {
			v.PriceCents = arms.Price(v.ProductID, v.PriceCents)
		}
		l.fill(v)
		out[i] = pricing.Line{Key: int64(i), ProductID: v.ProductID, PriceCents: v.PriceCents, Quantity: l.Quantity,
			WeightGrams: v.WeightGrams, Taxable: v.Taxable, RequiresShipping: v.RequiresShipping}
	}
	return out, nil
}

// Cart is a storefront cart.
type Cart struct {
	bun.BaseModel `bun:"table:carts,alias:ca"`
	ShopperContact

	ID               int64      `bun:"id,pk,autoincrement"`
	StoreID          int64      `bun:"store_id"`
	Token            string     `bun:"token"`
	VisitorID        *int64     `bun:"visitor_id"`
	SessionID        *int64     `bun:"session_id"`
	CustomerID       *int64     `bun:"customer_id"`
	Currency         string     `bun:"currency"`
	ItemCount        int64      `bun:"item_count"`
	SubtotalCents    int64      `bun:"subtotal_cents"`
	AbandonedAt      *time.Time `bun:"abandoned_at"`
	RecoveredAt      *time.Time `bun:"recovered_at"`
	RecoveredOrderID *int64     `bun:"recovered_order_id"`
	RecoveryEmails   int64      `bun:"recovery_emails"`
	CreatedAt        time.Time  `bun:"created_at"`
	UpdatedAt        time.Time  `bun:"updated_at"`
}

// CartLine is a line of a cart.
type CartLine struct {
	bun.BaseModel `bun:"table:cart_lines,alias:cl"`
	BasketLine
	CartID int64 `bun:"cart_id" json:"-"`
}

// PriceCart reprices the cart's lines from the catalogue (at its
// visitor's arms of running price tests, as the platform p allows them)
// and sets its item count and subtotal (a cart knows no code, shipping or
// tax yet: its checkout does).
func PriceCart(ctx context.Context, db bun.IDB, c *Cart, lines []CartLine, p Platform) error {
	basket := make([]BasketLine, len(lines))
	for i := range lines {
		basket[i] = lines[i].BasketLine
	}
	arms, err := MoneyArmsOf(ctx, db, c.StoreID, c.VisitorID, p)
	if err != nil {
		return err
	}
	in, err := RepriceBasket(ctx, db, c.StoreID, basket, arms)
	if err != nil {
		return err
	}
	res := pricing.Price(pricing.Input{Lines: in})
	c.SubtotalCents, c.ItemCount = res.SubtotalCents, 0
	for i := range lines {
		lines[i].BasketLine = basket[i]
		c.ItemCount += lines[i].Quantity
	}
	return nil
}

// InsertCart stores a new cart with a new token.
func InsertCart(ctx context.Context, tx bun.IDB, c *Cart) error {
	c.Token = NewStorefrontToken()
	_, err := tx.NewInsert().Model(c).Returning("id").Exec(ctx)
	return classify(err, "the cart")
}

// SaveCart writes the cart's columns but those of abandonment and
// recovery (recoveryColumns), which their own jobs and MarkRecovered write.
func SaveCart(ctx context.Context, tx bun.IDB, c *Cart) error {
	_, err := tx.NewUpdate().Model(c).ExcludeColumn(recoveryColumns...).WherePK().Where("store_id = ?", c.StoreID).Exec(ctx)
	return classify(err, "the cart")
}

// CartByToken reads the store's cart of the token; lock takes its row for
// the caller's transaction. Another store's token is not found.
func CartByToken(ctx context.Context, db bun.IDB, storeID int64, token string, lock bool) (*Cart, error) {
	return byToken[Cart](ctx, db, storeID, token, lock, "no cart has this token")
}

// VisitOf finds the visitor the storefront knows by anonID (its visitor
// id) and that visitor's session: the one with clientSessionID when there
// is one, else its latest. Either is nil when not known yet (ingestion
// writes them; a cart may come first), which is no failure.
func VisitOf(ctx context.Context, db bun.IDB, storeID int64, anonID, clientSessionID string) (visitorID, sessionID *int64, err error) {
	if anonID == "" {
		return nil, nil, nil
	}
	var row struct {
		VisitorID int64  `bun:"visitor_id"`
		SessionID *int64 `bun:"session_id"`
	}
	err = db.NewRaw(`SELECT v.id AS visitor_id, s.id AS session_id FROM visitors v
		LEFT JOIN LATERAL (SELECT id FROM storefront_sessions
			WHERE visitor_id = v.id ORDER BY (client_session_id = ? AND ? <> '') DESC, last_seen_at DESC, id DESC LIMIT 1) s ON true
		WHERE v.store_id = ? AND v.anon_id = ?`, clientSessionID, clientSessionID, storeID, anonID).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return &row.VisitorID, row.SessionID, nil
}
