package apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/models"
)

// Customised lines (README "Product customizer / Pricing and selections"):
// one price in a draft order, a storefront cart and checkout and the order
// placed; every rule of the selections refused naming the option.

// czShop is scStore's shop (its tee at 25.00, on sale) with the customizer
// fixture bound to the tee for every variant.
type czShop struct {
	draftOrderStore
	czFixture
	productID, bindingID int64
	pub                  string
}

func newCzShop(t *testing.T, e *apitest.Env, name string) czShop {
	t.Helper()
	ds := scStore(t, e, name)
	shop := czShop{draftOrderStore: ds, czFixture: newCzFixture(t, e, ds.store.ID), pub: e.PublishableKey(ds.store.ID)}
	if err := e.DB.NewRaw("SELECT product_id FROM product_variants WHERE id = ?", ds.variantID).Scan(context.Background(), &shop.productID); err != nil {
		t.Fatal(err)
	}
	czStock(t, e, ds.store.ID)
	shop.bindingID = idOf(t, czPutBinding(t, e, ds.admin, shop.productID, map[string]any{"template_id": shop.templateID,
		"option_set_id": shop.optionSetID, "library_scope": "gold"}))
	return shop
}

// czStock puts 1,000 of every variant of the store in stock.
func czStock(t *testing.T, e *apitest.Env, storeID int64) {
	t.Helper()
	if _, err := e.DB.NewRaw("UPDATE product_variants SET inventory_quantity = 1000 WHERE store_id = ?", storeID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// selections are answers by option id.
func (s czShop) selections(answers map[int64]any) map[string]any {
	out := map[string]any{}
	for id, a := range answers {
		out[czOpt(id)] = a
	}
	return out
}

// line is a customised line of the tee.
func (s czShop) line(qty int, answers map[int64]any) map[string]any {
	return map[string]any{"variant_id": s.variantID, "quantity": qty, "customization": map[string]any{"selections": s.selections(answers)}}
}

// czRed is a full answer: red (+1.00, one colour: +0.50), "Ada" (3 × 0.10),
// a gift with its message, a count and an artwork of the unscoped library.
func czRed(s czShop) map[int64]any {
	return map[int64]any{s.colour: "red", s.name: "Ada", s.gift: true, s.message: "Happy\nBirthday", s.count: 3, s.art: s.artItem}
}

// TestCzPricingSameEverywhere: the same customised line costs the same in
// a draft order, a storefront cart, its checkout and the orders placed from
// the draft and the checkout, which keep the selections in the line's
// properties.
func TestCzPricingSameEverywhere(t *testing.T) {
	e := apitest.New(t)
	s := newCzShop(t, e, "Mugs")
	const unit = 2500 + 100 + 3*10 + 50 // the variant, red, "Ada", red's colour beyond none included

	// The draft and the order it becomes.
	draftID := createDraftOrder(t, e, s.admin, map[string]any{"email": "ana@example.com", "shipping_address": parisAddress,
		"lines": []any{s.line(2, czRed(s))}})
	draft := e.Do(http.MethodGet, draftOrderPath(draftID), s.admin, nil).Expect(t, http.StatusOK).Obj("draft_order")
	dl := objectsOf(draft["lines"])[0]
	if wholeNumber(t, dl["price_cents"]) != unit || wholeNumber(t, dl["line_total_cents"]) != 2*unit || wholeNumber(t, draft["subtotal_cents"]) != 2*unit {
		t.Fatalf("draft: %v", draft)
	}
	g := e.GraphQL(s.admin, `query($id: Int!) { draftOrder(id: $id) { lines { properties } } }`, map[string]any{"id": draftID})
	czExpectSelections(t, s, "the draft line", g.Data()["draftOrder"].(map[string]any)["lines"].([]any)[0].(map[string]any)["properties"])
	paid := e.Do(http.MethodPost, draftOrderPath(draftID, "/mark-as-paid"), s.admin, nil).Expect(t, http.StatusOK)
	draftOrder := e.Do(http.MethodGet, orderPath(wholeNumber(t, paid.Body["order_id"])), s.admin, nil).Expect(t, http.StatusOK).Obj("order")
	ol := objectsOf(draftOrder["line_items"])[0]
	if wholeNumber(t, ol["price_cents"]) != unit {
		t.Fatalf("the draft's order line: %v", ol)
	}
	czExpectSelections(t, s, "the draft's order line", ol["properties"])

	// A cart, its checkout and the order it becomes.
	cart := e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"lines": []any{s.line(2, czRed(s))}}, nil).Expect(t, http.StatusCreated).Obj("cart")
	cl := objectsOf(cart["lines"])[0]
	if wholeNumber(t, cl["price_cents"]) != unit || wholeNumber(t, cart["subtotal_cents"]) != 2*unit {
		t.Fatalf("cart: %v", cart)
	}
	czExpectSelections(t, s, "the cart line", cl["properties"])
	co := e.Storefront(http.MethodPost, "/checkouts", s.pub, map[string]any{"cart_token": cart["token"], "email": "ana@example.com",
		"shipping_address": parisAddress}, nil).Expect(t, http.StatusCreated).Obj("checkout")
	path := "/checkouts/" + co["token"].(string)
	co = e.Storefront(http.MethodPut, path, s.pub, map[string]any{"shipping_rate_id": s.standardID}, nil).Expect(t, http.StatusOK).Obj("checkout")
	if wholeNumber(t, objectsOf(co["lines"])[0]["price_cents"]) != unit || wholeNumber(t, co["subtotal_cents"]) != 2*unit ||
		wholeNumber(t, co["total_cents"]) != wholeNumber(t, draftOrder["total_cents"]) {
		t.Fatalf("checkout %v\nthe draft's order %v", co, draftOrder)
	}
	scPay(t, e, s.pub, co, models.AttemptSuccess, wholeNumber(t, co["total_cents"])).Expect(t, http.StatusCreated)
	done := e.Storefront(http.MethodPost, path+"/complete", s.pub, nil, nil).Expect(t, http.StatusCreated)
	webOrder := e.Do(http.MethodGet, orderPath(wholeNumber(t, done.Obj("order")["id"])), s.admin, nil).Expect(t, http.StatusOK).Obj("order")
	wl := objectsOf(webOrder["line_items"])[0]
	if wholeNumber(t, wl["price_cents"]) != unit || wholeNumber(t, webOrder["total_cents"]) != wholeNumber(t, draftOrder["total_cents"]) {
		t.Fatalf("the checkout's order %v\nthe draft's %v", webOrder, draftOrder)
	}
	czExpectSelections(t, s, "the checkout's order line", wl["properties"])
}

// czExpectSelections fails unless props keep czRed's selections under
// _customization, with the binding, template and option set.
func czExpectSelections(t *testing.T, s czShop, what string, props any) {
	t.Helper()
	c, _ := props.(map[string]any)[models.CzPropertyKey].(map[string]any)
	sels, _ := c["selections"].(map[string]any)
	want := map[int64]map[string]any{
		s.colour:  {"picked": true, "raw": "red", "value_id": float64(s.red)},
		s.name:    {"picked": true, "raw": "Ada", "value_id": float64(0)},
		s.gift:    {"picked": true, "raw": "true", "value_id": float64(0)},
		s.message: {"picked": true, "raw": "Happy\nBirthday", "value_id": float64(0)},
		s.count:   {"picked": true, "raw": "3", "value_id": float64(0)},
		s.art:     {"picked": true, "raw": strconv.FormatInt(s.artItem, 10), "value_id": float64(s.artItem)},
	}
	if c == nil || c["binding_id"] != float64(s.bindingID) || c["template_id"] != float64(s.templateID) ||
		c["option_set_id"] != float64(s.optionSetID) || len(sels) != len(want) {
		t.Fatalf("%s: properties %v", what, props)
	}
	for id, w := range want {
		got, _ := sels[czOpt(id)].(map[string]any)
		for k, v := range w {
			if got[k] != v {
				t.Fatalf("%s: selection %d is %v, want %v", what, id, got, w)
			}
		}
	}
}

// TestCzPricingParts: each part of the unit price: the quantity tier in
// place of the variant's price, values' deltas, characters, extra colours
// and elements (a group's elements each), never below 0; and a running
// price test's arm, which changes the base only.
func TestCzPricingParts(t *testing.T) {
	e := apitest.New(t)
	s := newCzShop(t, e, "Mugs")
	price := func(qty int, answers map[int64]any) int64 {
		t.Helper()
		c := e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"lines": []any{s.line(qty, answers)}}, nil).Expect(t, http.StatusCreated).Obj("cart")
		return wholeNumber(t, objectsOf(c["lines"])[0]["price_cents"])
	}
	for name, c := range map[string]struct {
		qty     int
		answers map[int64]any
		want    int64
	}{
		"red":                {2, map[int64]any{s.colour: "red", s.name: "Ada"}, 2500 + 100 + 30 + 50},
		"from 5 units: tier": {5, map[int64]any{s.colour: "red", s.name: "Ada"}, 2000 + 100 + 30 + 50},
		"from 50 units":      {50, map[int64]any{s.colour: "red", s.name: "Ada"}, 1500 + 100 + 30 + 50},
		// blue: a colour (+0.50) and the name element made visible (+1.00).
		"blue":                         {1, map[int64]any{s.colour: "blue", s.name: "Grace"}, 2500 + 50 + 50 + 100},
		"a gift's message":             {1, map[int64]any{s.colour: "blue", s.name: "Grace", s.gift: true, s.message: "Hi"}, 2500 + 50 + 50 + 100},
		"name padded: trimmed":         {1, map[int64]any{s.colour: "red", s.name: " Ada "}, 2500 + 100 + 30 + 50},
		"a message with \\r\\n breaks": {1, map[int64]any{s.colour: "blue", s.name: "Grace", s.gift: true, s.message: "Hi\r\nyou"}, 2500 + 50 + 50 + 100},
	} {
		if got := price(c.qty, c.answers); got != c.want {
			t.Fatalf("%s: %d, want %d", name, got, c.want)
		}
	}

	// More elements than included, through a group; a negative delta never
	// takes the price below 0.
	ctx := context.Background()
	if _, err := e.DB.NewRaw(`UPDATE cz_option_values SET price_delta_cents = -100000000,
		functions = '[{"group_key": "bg", "property": "visibility", "value": "visible"}, {"element_key": "logo", "property": "image", "value": "x.png"}]'
		WHERE id = ?`, s.red).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if got := price(1, map[int64]any{s.colour: "red", s.name: "Ada"}); got != 0 {
		t.Fatalf("below 0: %d", got)
	}
	if _, err := e.DB.NewRaw(`UPDATE cz_option_values SET price_delta_cents = 0 WHERE id = ?`, s.red).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := price(1, map[int64]any{s.colour: "red", s.name: "Ada"}), int64(2500+30+3*100); got != want {
		t.Fatalf("three elements (bg1, bg2, logo): %d, want %d", got, want)
	}

	// A price test's arm b (-20%) changes the base, not the surcharges.
	admin := s.admin
	e.Do(http.MethodPut, "/store/experiments/money-opt-in", admin, map[string]any{"enabled": true}).Expect(t, 200)
	x := createExperiment(t, e, admin, experimentBody("Mug price", models.ExperimentKindPrice,
		map[string]any{"product_ids": []int64{s.productID}}, map[string]any{"price_change_pct": -20}))
	experimentAction(t, e, admin, idOf(t, x), "start", nil, 200)
	anon := ""
	for i := 0; anon == ""; i++ {
		v := "buyer-" + strconv.Itoa(i)
		if models.AssignVariant(x["key"].(string), v, []models.ExperimentVariant{{Position: 1, SplitPct: 50}, {Position: 2, SplitPct: 50}}).Position == 2 {
			anon = v
		}
	}
	scVisit(t, e, s.store.ID, anon, "cs-"+anon)
	c := e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"visitor_id": anon, "lines": []any{
		s.line(5, map[int64]any{s.colour: "blue", s.name: "Ada"})}}, nil).Expect(t, http.StatusCreated).Obj("cart")
	if got, want := wholeNumber(t, objectsOf(c["lines"])[0]["price_cents"]), int64(2000*80/100+30+50+100); got != want {
		t.Fatalf("at arm b from 5 units: %d, want %d", got, want)
	}
}

// TestCzSelectionRules: every rule a selection breaks is a 400 naming the
// option, on a draft line and a storefront line alike, and nothing is
// written.
func TestCzSelectionRules(t *testing.T) {
	e := apitest.New(t)
	s := newCzShop(t, e, "Mugs")
	ok := map[int64]any{s.colour: "red", s.name: "Ada"}
	with := func(changes map[int64]any) map[int64]any {
		out := map[int64]any{}
		for k, v := range ok {
			out[k] = v
		}
		for k, v := range changes {
			if v == nil {
				delete(out, k)
			} else {
				out[k] = v
			}
		}
		return out
	}
	named := func(id int64, label string) string { return `option "` + label + `" (` + czOpt(id) + `)` }
	for name, c := range map[string]struct {
		answers map[int64]any
		says    string
	}{
		"a value not the option's":    {with(map[int64]any{s.colour: "green"}), `"green" is not a value of ` + named(s.colour, "Colour")},
		"a value not text":            {with(map[int64]any{s.colour: 3}), "must be the slug of a value of " + named(s.colour, "Colour")},
		"a required option missing":   {with(map[int64]any{s.name: nil}), "is missing: " + named(s.name, "Name") + " is required"},
		"required text left empty":    {with(map[int64]any{s.name: ""}), "is missing: " + named(s.name, "Name")},
		"required text left blank":    {with(map[int64]any{s.name: "  \t "}), "is missing: " + named(s.name, "Name")},
		"a shown required unanswered": {with(map[int64]any{s.gift: true}), "is missing: " + named(s.message, "Message")},
		"a hidden option answered":    {with(map[int64]any{s.gift: false, s.message: "Hi"}), "answers " + named(s.message, "Message") + ", which its conditions hide"},
		"hidden without its box":      {with(map[int64]any{s.message: "Hi"}), "answers " + named(s.message, "Message")},
		"text too long":               {with(map[int64]any{s.name: "Bartholomew"}), named(s.name, "Name") + " must be at most 10 characters"},
		"text of the wrong mode":      {with(map[int64]any{s.name: "Ada 2"}), named(s.name, "Name") + " must hold only letters"},
		"text on two lines":           {with(map[int64]any{s.name: "A\nB"}), named(s.name, "Name") + " must be one line"},
		"too many lines":              {with(map[int64]any{s.gift: true, s.message: "a\nb\nc"}), named(s.message, "Message") + " must be at most 2 lines"},
		"a line too long":             {with(map[int64]any{s.gift: true, s.message: "ok\nthirteen char"}), named(s.message, "Message") + " line 2 must be at most 12"},
		"not the pattern":             {with(map[int64]any{s.gift: true, s.message: "#1"}), named(s.message, "Message") + " must match the pattern"},
		"a checkbox not a boolean":    {with(map[int64]any{s.gift: "yes"}), "must be true or false for " + named(s.gift, "Gift")},
		"a number out of bounds":      {with(map[int64]any{s.count: 11}), "must be at most 10 for " + named(s.count, "Count")},
		"a number not a number":       {with(map[int64]any{s.count: "3"}), "must be a number"},
		"a number off its steps":      {with(map[int64]any{s.count: 3.3}), "must be 1 plus a whole number of steps of 0.5 for " + named(s.count, "Count")},
		"an artwork of another scope": {with(map[int64]any{s.art: s.scopedOtherItem}), "is not an artwork item offered to this binding"},
		"an artwork of another group": {with(map[int64]any{s.art: s.otherGroupItem}), "is not an artwork item offered to this binding"},
		"an item not of artwork":      {with(map[int64]any{s.art: s.otherKindItem}), "is not an artwork item offered to this binding"},
		"an artwork not an id":        {with(map[int64]any{s.art: 1.5}), "must be the id of an artwork library item for " + named(s.art, "Art")},
		"an unknown option":           {with(map[int64]any{999999: "x"}), "999999 is not an option of option set"},
	} {
		r := e.Do(http.MethodPost, "/store/draft-orders", s.admin, map[string]any{"lines": []any{s.line(1, c.answers)}}).Expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(r.Message(), "lines[0].customization.selections.") || !strings.Contains(r.Message(), c.says) {
			t.Fatalf("%s, draft: %s\nwant %q", name, r.Raw, c.says)
		}
		w := e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"lines": []any{s.line(1, c.answers)}}, nil).Expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(w.Message(), "lines[0].customization.selections.") || !strings.Contains(w.Message(), c.says) {
			t.Fatalf("%s, cart: %s\nwant %q", name, w.Raw, c.says)
		}
	}
	// The GraphQL surface names the field too.
	g := e.GraphQL(s.admin, `mutation($in: DraftOrderInput!) { createDraftOrder(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"lines": []any{s.line(1, with(map[int64]any{s.colour: "green"}))}}})
	if g.ErrorCode() != "BAD_USER_INPUT" || !strings.Contains(string(g.Raw), `"field":"lines[0].customization.selections.`+czOpt(s.colour)+`"`) {
		t.Fatalf("GraphQL: %s", g.Raw)
	}
	var drafts int
	if err := e.DB.NewRaw("SELECT count(*) FROM draft_orders WHERE store_id = ?", s.store.ID).Scan(context.Background(), &drafts); err != nil || drafts != 0 {
		t.Fatalf("refused drafts written: %d (%v)", drafts, err)
	}

	// The line's own rules: a price of its own, no variant, a product
	// without a binding, a binding of another product, a property the
	// customizer keeps.
	other := createSimpleProduct(t, e, s.admin, "Plain", 900, nil)
	var plainVariant int64
	if err := e.DB.NewRaw("SELECT id FROM product_variants WHERE product_id = ?", other).Scan(context.Background(), &plainVariant); err != nil {
		t.Fatal(err)
	}
	custom := map[string]any{"selections": s.selections(ok)}
	for name, c := range map[string]struct {
		line map[string]any
		says string
	}{
		"a price of its own": {map[string]any{"variant_id": s.variantID, "quantity": 1, "price_cents": 1, "customization": custom}, "lines[0].price_cents may not be sent"},
		"no variant":         {map[string]any{"title": "X", "price_cents": 1, "quantity": 1, "customization": custom}, "lines[0].customization needs variant_id"},
		"an unbound product": {map[string]any{"variant_id": plainVariant, "quantity": 1, "customization": custom}, "lines[0].customization is for a product that is not personalisable"},
		"another's binding": {map[string]any{"variant_id": s.variantID, "quantity": 1, "customization": map[string]any{"binding_id": 999999, "selections": s.selections(ok)}},
			"lines[0].customization.binding_id 999999 is not a binding of product"},
		"selections not an object": {map[string]any{"variant_id": s.variantID, "quantity": 1, "customization": map[string]any{"selections": []any{}}}, "lines[0].customization.selections must be an object"},
	} {
		r := e.Do(http.MethodPost, "/store/draft-orders", s.admin, map[string]any{"lines": []any{c.line}}).Expect(t, http.StatusBadRequest)
		if !strings.Contains(r.Message(), c.says) {
			t.Fatalf("%s: %s\nwant %q", name, r.Raw, c.says)
		}
	}
	// A personalisable product whose option set has a required option is
	// not bought without customization.
	bare := map[string]any{"lines": []any{map[string]any{"variant_id": s.variantID, "quantity": 1}}}
	for what, r := range map[string]*apitest.Response{
		"draft": e.Do(http.MethodPost, "/store/draft-orders", s.admin, bare).Expect(t, http.StatusBadRequest),
		"cart":  e.Storefront(http.MethodPost, "/carts", s.pub, bare, nil).Expect(t, http.StatusBadRequest),
	} {
		if !strings.HasPrefix(r.Message(), "lines[0].customization is needed") || !strings.Contains(r.Message(), named(s.colour, "Colour")+" is required") {
			t.Fatalf("%s without customization: %s", what, r.Raw)
		}
	}
	r := e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"lines": []any{map[string]any{"variant_id": s.variantID, "quantity": 1,
		"properties": map[string]any{models.CzPropertyKey: "forged"}}}}, nil).Expect(t, http.StatusBadRequest)
	if !strings.Contains(r.Message(), "is kept by the customizer") {
		t.Fatalf("a forged customisation: %s", r.Raw)
	}

	// Another store's binding and option ids are not this store's.
	o := newCzShop(t, e, "Others")
	if r := e.Do(http.MethodPost, "/store/draft-orders", s.admin, map[string]any{"lines": []any{map[string]any{"variant_id": s.variantID, "quantity": 1,
		"customization": map[string]any{"binding_id": o.bindingID, "selections": s.selections(ok)}}}}).Expect(t, http.StatusBadRequest); !strings.Contains(r.Message(), "is not a binding of product") {
		t.Fatalf("another store's binding: %s", r.Raw)
	}
	if r := e.Do(http.MethodPost, "/store/draft-orders", s.admin, map[string]any{"lines": []any{s.line(1, with(map[int64]any{o.colour: "red"}))}}).
		Expect(t, http.StatusBadRequest); !strings.Contains(r.Message(), "is not an option of option set") {
		t.Fatalf("another store's option: %s", r.Raw)
	}
	if r := e.Do(http.MethodPost, "/store/draft-orders", s.admin, map[string]any{"lines": []any{s.line(1, with(map[int64]any{s.art: o.artItem}))}}).
		Expect(t, http.StatusBadRequest); !strings.Contains(r.Message(), "is not an artwork item offered") {
		t.Fatalf("another store's artwork: %s", r.Raw)
	}
}

// TestCzSelectionScopedBinding: a variant takes its option value's binding,
// else the every-variant one; binding_id picks one of the product's; a
// customised line changed under a cart that no longer fits is a 409.
func TestCzSelectionScopedBinding(t *testing.T) {
	e := apitest.New(t)
	s := newCzShop(t, e, "Mugs")
	body := pdSizeColor("MUG")
	body["title"], body["status"] = "Mug", "active"
	p := createProduct(t, e, s.admin, body)
	pid := idOf(t, p)
	variants := productVariants(p)
	czStock(t, e, s.store.ID)
	every := czPutBinding(t, e, s.admin, pid, map[string]any{"template_id": s.templateID, "option_set_id": s.optionSetID})
	blue := czPutBinding(t, e, s.admin, pid, map[string]any{"template_id": s.otherTemplateID, "option_set_id": s.optionSetID,
		"option_name": "Color", "option_value": "Blue"})
	// Scopes of two option names that would both cover a variant (Size = S
	// and Color = Blue: the blue S) are refused; Color = Red beside Color =
	// Blue is not.
	r := e.Do(http.MethodPut, czBindingsPath(pid), s.admin, map[string]any{"template_id": s.templateID, "option_set_id": s.optionSetID,
		"option_name": "Size", "option_value": "S"}).Expect(t, http.StatusConflict)
	if !strings.Contains(r.Message(), fmt.Sprintf("binding %v (Color = \"Blue\")", blue["id"])) {
		t.Fatalf("overlapping scopes: %s", r.Raw)
	}
	red := czPutBinding(t, e, s.admin, pid, map[string]any{"template_id": s.templateID, "option_set_id": s.optionSetID,
		"option_name": "Color", "option_value": "Red"})
	expectBareDelete(t, e, s.admin, czBindingsPath(pid, idOf(t, red)))
	bindingOf := func(variant map[string]any, bindingID any) float64 {
		t.Helper()
		cz := map[string]any{"selections": s.selections(map[int64]any{s.colour: "red", s.name: "Ada"})}
		if bindingID != nil {
			cz["binding_id"] = bindingID
		}
		c := e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"lines": []any{map[string]any{"variant_id": variant["id"], "quantity": 1,
			"customization": cz}}}, nil).Expect(t, http.StatusCreated).Obj("cart")
		props := objectsOf(c["lines"])[0]["properties"].(map[string]any)
		return props[models.CzPropertyKey].(map[string]any)["binding_id"].(float64)
	}
	for _, v := range variants {
		want := every["id"]
		if v["option2"] == "Blue" {
			want = blue["id"]
		}
		if got := bindingOf(v, nil); got != want {
			t.Fatalf("variant %v: binding %v, want %v", v["title"], got, want)
		}
	}
	if got := bindingOf(variants[0], every["id"]); got != every["id"] {
		t.Fatalf("binding_id named: %v", got)
	}
	// binding_id may not pick a binding that does not cover the variant: a
	// shopper would take its tiers and skip its options.
	for _, v := range variants {
		if v["option2"] == "Blue" {
			continue
		}
		r := e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"lines": []any{map[string]any{"variant_id": v["id"], "quantity": 1,
			"customization": map[string]any{"binding_id": blue["id"], "selections": s.selections(map[int64]any{s.colour: "red", s.name: "Ada"})}}}}, nil).
			Expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(r.Message(), "lines[0].customization.binding_id ") || !strings.Contains(r.Message(), "does not cover variant") {
			t.Fatalf("a binding of another variant: %s", r.Raw)
		}
		break
	}

	// A cart's line the option set no longer fits is a conflict when the
	// cart is priced again.
	cart := e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"lines": []any{s.line(1, map[int64]any{s.colour: "red", s.name: "Ada"})}}, nil).
		Expect(t, http.StatusCreated).Obj("cart")
	if _, err := e.DB.NewRaw(`UPDATE cz_options SET validation = '{"max_length": 2}' WHERE id = ?`, s.name).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	r = e.Storefront(http.MethodPost, "/checkouts", s.pub, map[string]any{"cart_token": cart["token"]}, nil).Expect(t, http.StatusConflict)
	if !strings.Contains(r.Message(), "no longer fits its product's customizer") || !strings.Contains(r.Message(), `option "Name"`) {
		t.Fatalf("a line that no longer fits: %s", r.Raw)
	}
	e.Storefront(http.MethodPut, "/carts/"+cart["token"].(string), s.pub, map[string]any{"first_name": "Ana"}, nil).Expect(t, http.StatusConflict)
}

// TestCzPricingStatements: a cart's customised lines are checked and
// priced with a fixed number of statements whatever their number: each
// product's bindings and each binding's template and option set are read
// once.
func TestCzPricingStatements(t *testing.T) {
	e := apitest.New(t)
	s := newCzShop(t, e, "Mugs")
	count := countStatements(e)
	cart := func(n int) int64 {
		lines := make([]any, n)
		for i := range lines {
			lines[i] = s.line(1, map[int64]any{s.colour: "red", s.name: "Ada" + strings.Repeat("a", i)[:min(i, 6)]})
		}
		return count(func() {
			e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"lines": lines}, nil).Expect(t, http.StatusCreated)
		})
	}
	cart(1) // the key and the store are cached from here on
	if one, many := cart(1), cart(7); one != many {
		t.Fatalf("a cart of 1 customised line: %d statements, of 7: %d", one, many)
	}
}

// TestCzPlatformOffRefusesCustomizedLines: while the platform offers no
// customizer (serve --customizer=false), a customised line is a 409 naming
// it on a draft, a cart and a checkout; the same product without
// customization still sells.
func TestCzPlatformOffRefusesCustomizedLines(t *testing.T) {
	e := apitest.New(t, apitest.WithPlatform(models.Platform{CustomizerOff: true}))
	s := newCzShop(t, e, "Mugs")
	r := e.Do(http.MethodPost, "/store/draft-orders", s.admin, map[string]any{"email": "ana@example.com", "lines": []any{s.line(1, czRed(s))}}).
		Expect(t, http.StatusConflict)
	if !strings.HasPrefix(r.Message(), "lines[0].customization: the platform offers no product customizer") {
		t.Fatalf("draft: %s", r.Raw)
	}
	for _, path := range []string{"/carts", "/checkouts"} {
		r := e.Storefront(http.MethodPost, path, s.pub, map[string]any{"email": "ana@example.com", "lines": []any{s.line(1, czRed(s))}}, nil).
			Expect(t, http.StatusConflict)
		if !strings.HasPrefix(r.Message(), "lines[0].customization: the platform offers no product customizer") {
			t.Fatalf("%s: %s", path, r.Raw)
		}
	}
	plain := map[string]any{"variant_id": s.variantID, "quantity": 1}
	cart := e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"lines": []any{plain}}, nil).Expect(t, http.StatusCreated).Obj("cart")
	e.Do(http.MethodPost, "/store/draft-orders", s.admin, map[string]any{"email": "ana@example.com", "lines": []any{plain}}).Expect(t, http.StatusCreated)

	// A cart's line customised before the switch keeps its customisation
	// and price into its checkout.
	kept := models.CzLineCustomization{BindingID: s.bindingID, TemplateID: s.templateID, OptionSetID: s.optionSetID,
		Selections: map[string]models.CzSelection{czOpt(s.colour): {Picked: true, Raw: "red", ValueID: s.red}, czOpt(s.name): {Picked: true, Raw: "Ada"}}}
	raw, err := json.Marshal(kept)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.NewRaw("UPDATE cart_lines SET properties = jsonb_build_object(?, ?::jsonb) WHERE store_id = ?",
		models.CzPropertyKey, string(raw), s.store.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := e.Storefront(http.MethodPost, "/checkouts", s.pub, map[string]any{"cart_token": cart["token"]}, nil).Expect(t, http.StatusCreated).Obj("checkout")
	props := objectsOf(c["lines"])[0]["properties"].(map[string]any)
	if props[models.CzPropertyKey].(map[string]any)["binding_id"] != float64(s.bindingID) {
		t.Fatalf("the kept customisation: %v", props)
	}
}

// TestCzPlainLineBeforeBinding: a plain line a shopper put in a cart
// before its product became personalised stays plain into the checkout
// (a new plain line of that product is refused, TestCzSelectionRules).
func TestCzPlainLineBeforeBinding(t *testing.T) {
	e := apitest.New(t)
	s := newCzShop(t, e, "Mugs")
	expectBareDelete(t, e, s.admin, czBindingsPath(s.productID))
	plain := map[string]any{"variant_id": s.variantID, "quantity": 1}
	cart := e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"lines": []any{plain}}, nil).Expect(t, http.StatusCreated).Obj("cart")
	czPutBinding(t, e, s.admin, s.productID, map[string]any{"template_id": s.templateID, "option_set_id": s.optionSetID})
	e.Storefront(http.MethodPost, "/checkouts", s.pub, map[string]any{"cart_token": cart["token"], "email": "ana@example.com"}, nil).
		Expect(t, http.StatusCreated)
	e.Storefront(http.MethodPost, "/carts", s.pub, map[string]any{"lines": []any{plain}}, nil).Expect(t, http.StatusBadRequest)
}
