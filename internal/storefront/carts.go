package storefront

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/models"
)

// Carts by token: POST /carts makes one (the service makes the token),
// GET and PUT /carts/{token} read and change it. A cart answers only what
// its browser sent and the prices the service worked out.

// maxVisitID bounds the visitor and session ids a browser sends.
const maxVisitID = 128

// contactBody is the contact fields a cart or checkout takes; each left
// out keeps its value.
type contactBody struct {
	Email            *string `json:"email"`
	Phone            *string `json:"phone"`
	FirstName        *string `json:"first_name"`
	LastName         *string `json:"last_name"`
	MarketingConsent *bool   `json:"marketing_consent"`
	RecoveryOptOut   *bool   `json:"recovery_opt_out"`
	// VisitorID and SessionID are the tracker's visitor id and its
	// session id, which link the cart to the visit ingestion recorded.
	VisitorID *string `json:"visitor_id"`
	SessionID *string `json:"session_id"`
}

// apply sets the fields sent on c and checks the result.
func (b contactBody) apply(c *models.ShopperContact) error {
	for _, f := range []struct {
		in  *string
		out *string
	}{{b.Email, &c.Email}, {b.Phone, &c.Phone}, {b.FirstName, &c.FirstName}, {b.LastName, &c.LastName}} {
		if f.in != nil {
			*f.out = *f.in
		}
	}
	if b.MarketingConsent != nil {
		c.MarketingConsent = *b.MarketingConsent
	}
	if b.RecoveryOptOut != nil {
		c.RecoveryOptOut = *b.RecoveryOptOut
	}
	return c.Clean()
}

// visit finds the visitor and session the body names, when it names one;
// ok is false when it names none (the record keeps its link).
func (b contactBody) visit(ctx context.Context, db bun.IDB, storeID int64) (visitorID, sessionID *int64, ok bool, err error) {
	if b.VisitorID == nil {
		return nil, nil, false, nil
	}
	anon, session := strings.TrimSpace(*b.VisitorID), ""
	if b.SessionID != nil {
		session = strings.TrimSpace(*b.SessionID)
	}
	if utf8.RuneCountInString(anon) > maxVisitID || utf8.RuneCountInString(session) > maxVisitID {
		return nil, nil, false, apperr.Invalidf("visitor_id and session_id must be at most %d characters", maxVisitID)
	}
	visitorID, sessionID, err = models.VisitOf(ctx, db, storeID, anon, session)
	return visitorID, sessionID, true, err
}

// cartBody is what POST and PUT /carts take. Lines, when sent, replace
// the cart's lines.
type cartBody struct {
	contactBody
	Lines *[]models.LineAsk `json:"lines"`
}

// lineView is a line as the browser sees it.
type lineView struct {
	VariantID      *int64         `json:"variant_id"`
	ProductID      *int64         `json:"product_id"`
	Title          string         `json:"title"`
	VariantTitle   string         `json:"variant_title"`
	Handle         string         `json:"handle"`
	SKU            string         `json:"sku"`
	PriceCents     int64          `json:"price_cents"`
	Quantity       int64          `json:"quantity"`
	LineTotalCents int64          `json:"line_total_cents"`
	Properties     map[string]any `json:"properties"`
}

func basketView(l models.BasketLine) lineView {
	return lineView{VariantID: l.VariantID, ProductID: l.ProductID, Title: l.Title, VariantTitle: l.VariantTitle,
		Handle: l.Handle, SKU: l.SKU, PriceCents: l.PriceCents, Quantity: l.Quantity,
		LineTotalCents: l.PriceCents * l.Quantity, Properties: l.Properties}
}

// cartView is a cart as its browser sees it.
func cartView(c *models.Cart, lines []models.CartLine) map[string]any {
	ls := make([]lineView, len(lines))
	for i, l := range lines {
		ls[i] = basketView(l.BasketLine)
	}
	return map[string]any{
		"token": c.Token, "currency": c.Currency, "email": c.Email, "phone": c.Phone,
		"first_name": c.FirstName, "last_name": c.LastName, "marketing_consent": c.MarketingConsent,
		"recovery_opt_out": c.RecoveryOptOut, "item_count": c.ItemCount, "subtotal_cents": c.SubtotalCents,
		"lines": ls, "created_at": c.CreatedAt.UTC(), "updated_at": c.UpdatedAt.UTC(),
	}
}

// cartLines makes cart lines of asks.
func cartLines(ctx context.Context, db bun.IDB, storeID int64, asks []models.LineAsk, p models.Platform) ([]models.CartLine, error) {
	basket, err := models.BasketLines(ctx, db, storeID, asks, p)
	if err != nil {
		return nil, err
	}
	out := make([]models.CartLine, len(basket))
	for i, l := range basket {
		out[i].BasketLine = l
	}
	return out, nil
}

// changeCart applies the body to c (new when c.ID is 0) and its lines in
// tx, prices it and stores it.
func (s *service) changeCart(ctx context.Context, tx bun.Tx, c *models.Cart, lines []models.CartLine, in cartBody, now time.Time) ([]models.CartLine, error) {
	if err := in.contactBody.apply(&c.ShopperContact); err != nil {
		return nil, err
	}
	if v, sess, ok, err := in.visit(ctx, tx, c.StoreID); err != nil {
		return nil, err
	} else if ok {
		c.VisitorID, c.SessionID = v, sess
	}
	replace := in.Lines != nil || c.ID == 0
	if in.Lines != nil {
		var err error
		if lines, err = cartLines(ctx, tx, c.StoreID, *in.Lines, s.Platform); err != nil {
			return nil, err
		}
	}
	if err := models.PriceCart(ctx, tx, c, lines, s.Platform); err != nil {
		return nil, err
	}
	c.UpdatedAt = now
	if c.ID == 0 {
		c.CreatedAt = now
		if err := models.InsertCart(ctx, tx, c); err != nil {
			return nil, err
		}
	} else if err := models.SaveCart(ctx, tx, c); err != nil {
		return nil, err
	}
	if replace {
		return lines, models.ReplaceCartLines(ctx, tx, c, lines)
	}
	return lines, models.SaveCartLines(ctx, tx, lines)
}

// createCart is POST /carts: a new cart, 201.
func (s *service) createCart(w http.ResponseWriter, r *http.Request) {
	var in cartBody
	if err := readBody(r, &in); err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	var view map[string]any
	err := s.DB.RunInTx(r.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		st, err := models.GetStore(ctx, tx, storeOf(r))
		if err != nil {
			return err
		}
		c := &models.Cart{StoreID: st.ID, Currency: st.Currency}
		lines, err := s.changeCart(ctx, tx, c, nil, in, s.Now().UTC())
		view = cartView(c, lines)
		return err
	})
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, http.StatusCreated, map[string]any{"cart": view})
}

// getCart is GET /carts/{token}.
func (s *service) getCart(w http.ResponseWriter, r *http.Request) {
	token, err := tokenParam(r, "cart")
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	c, err := models.CartByToken(r.Context(), s.DB, storeOf(r), token, false)
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	lines, err := models.CartLines(r.Context(), s.DB, c.StoreID, c.ID)
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, http.StatusOK, map[string]any{"cart": cartView(c, lines)})
}

// updateCart is PUT /carts/{token}: the fields sent change, the cart is
// repriced.
func (s *service) updateCart(w http.ResponseWriter, r *http.Request) {
	token, err := tokenParam(r, "cart")
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	var in cartBody
	if err := readBody(r, &in); err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	var view map[string]any
	err = s.DB.RunInTx(r.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		c, err := models.CartByToken(ctx, tx, storeOf(r), token, true)
		if err != nil {
			return err
		}
		lines, err := models.CartLines(ctx, tx, c.StoreID, c.ID)
		if err != nil {
			return err
		}
		lines, err = s.changeCart(ctx, tx, c, lines, in, s.Now().UTC())
		view = cartView(c, lines)
		return err
	})
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, http.StatusOK, map[string]any{"cart": view})
}
