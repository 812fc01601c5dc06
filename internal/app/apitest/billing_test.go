package apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"storeadmin/graph"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/billing"
	"storeadmin/internal/testkit/testlog"
	"storeadmin/models"
	"storeadmin/resolvers"
)

// The fields of the spec's billing DTOs, exactly.
var (
	blSubscriptionKeys = []string{"billing_interval", "cancel_at_period_end", "currency", "current_period_end", "current_period_start", "id",
		"plan_id", "price_cents", "status", "store_id", "transaction_fee_bps", "transaction_fee_fixed_cents", "trial_ends_at"}
	blPlanKeys = []string{"billing_interval", "currency", "description", "features", "id", "is_default", "key", "name", "price_cents",
		"sort", "status", "transaction_fee_bps", "transaction_fee_fixed_cents", "trial_days"}
	blCardKeys    = []string{"brand", "exp_month", "exp_year", "id", "is_default", "last4"}
	blInvoiceKeys = []string{"amount_paid_cents", "attempt_count", "currency", "due_at", "external_id", "id", "issued_at", "last_error",
		"note", "number", "paid_at", "paid_via", "period_end", "period_start", "status", "store_handle", "store_id", "store_name",
		"subtotal_cents", "total_cents"}
	blAccruedKeys = []string{"currency", "fee_cents", "gross_cents", "orders", "period_end", "period_start", "transaction_fee_bps", "transaction_fee_fixed_cents"}
	blPageKeys    = []string{"invoices", "page", "page_size", "total"}
)

// blSecret is the billing provider's secret key in these tests: it must
// never be seen outside the Authorization header of the provider's calls.
const blSecret = "sk_test_51BLsecretNeverShownAnywhere0123456789"

// blProvider is a Stripe-compatible billing provider on loopback: setup
// intents, created and read back as Stripe answers them.
type blProvider struct {
	*httptest.Server
	mu      sync.Mutex
	intents map[string]*blIntent
	auths   []string // the Authorization header of every call
	fail    int      // when set, every call answers this status
}

type blIntent struct {
	id, status, storeID string
	card                map[string]any // set when completed
}

func newBLProvider(t *testing.T) *blProvider {
	t.Helper()
	p := &blProvider{intents: map[string]*blIntent{}}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

// answer writes v as JSON with status.
func blAnswer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (p *blProvider) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	auth := r.Header.Get("Authorization")
	p.auths = append(p.auths, auth)
	// A careless provider quotes the key it was given in its errors.
	if auth != "Bearer "+blSecret {
		blAnswer(w, 401, map[string]any{"error": map[string]any{"type": "invalid_request_error", "message": "Invalid API Key provided: " + auth}})
		return
	}
	if p.fail != 0 {
		blAnswer(w, p.fail, map[string]any{"error": map[string]any{"type": "api_error", "message": "something broke while using " + blSecret}})
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/setup_intents":
		if err := r.ParseForm(); err != nil || r.PostForm.Get("usage") != "off_session" || r.PostForm.Get("payment_method_types[]") != "card" ||
			r.PostForm.Get("metadata[store_id]") == "" || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			blAnswer(w, 400, map[string]any{"error": map[string]any{"message": "bad setup intent request"}})
			return
		}
		in := &blIntent{id: fmt.Sprintf("seti_%d", len(p.intents)+1), status: "requires_payment_method", storeID: r.PostForm.Get("metadata[store_id]")}
		p.intents[in.id] = in
		blAnswer(w, 200, p.view(in))
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/setup_intents/"):
		in := p.intents[strings.TrimPrefix(r.URL.Path, "/v1/setup_intents/")]
		if in == nil {
			blAnswer(w, 404, map[string]any{"error": map[string]any{"type": "invalid_request_error", "message": "No such setupintent"}})
			return
		}
		v := p.view(in)
		if r.URL.Query().Get("expand[]") == "payment_method" && in.card != nil {
			v["payment_method"] = map[string]any{"id": "pm_" + in.id, "type": "card", "card": in.card}
		}
		blAnswer(w, 200, v)
	default:
		blAnswer(w, 404, map[string]any{"error": map[string]any{"message": "unknown path"}})
	}
}

func (p *blProvider) view(in *blIntent) map[string]any {
	return map[string]any{"id": in.id, "object": "setup_intent", "client_secret": in.id + "_secret_abc", "status": in.status,
		"metadata": map[string]any{"store_id": in.storeID}, "payment_method": nil}
}

// complete plays the browser: the provider's form saves a card on the
// intent.
func (p *blProvider) complete(id, brand, last4 string, month, year int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	in := p.intents[id]
	in.status = "succeeded"
	in.card = map[string]any{"brand": brand, "last4": last4, "exp_month": month, "exp_year": year, "funding": "credit"}
}

// seen is what the provider was told: the Authorization headers of its
// calls, and the store each setup intent was made for.
func (p *blProvider) seen() (auths []string, stores map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	stores = map[string]string{}
	for id, in := range p.intents {
		stores[id] = in.storeID
	}
	return append([]string(nil), p.auths...), stores
}

func (p *blProvider) setFail(status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail = status
}

// client is the service's provider for p.
func (p *blProvider) client(t *testing.T, log *testlog.Records) *billing.Provider {
	t.Helper()
	cfg := billing.Config{APIURL: p.URL, SecretKey: blSecret, PublishableKey: "pk_test_blPublishable"}
	if log != nil {
		cfg.Log = log.Logger()
	}
	c, err := billing.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// blInvoices stores invoices of the store, each with a plan line, a fee
// line and a charge, issued a month apart, the newest last.
func blInvoices(t *testing.T, e *apitest.Env, storeID int64, n int) []models.BillingInvoice {
	t.Helper()
	var out []models.BillingInvoice
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	had, err := models.CountBillingInvoices(context.Background(), e.DB, storeID)
	if err != nil {
		t.Fatal(err)
	}
	for j := range n {
		i := int(had) + j
		from, to := base.AddDate(0, i, 0), base.AddDate(0, i+1, 0)
		paid := to.Add(time.Hour)
		out = append(out, models.BillingInvoice{Number: fmt.Sprintf("INV-%d-%d", storeID, i+1), Status: models.InvoicePaid, Currency: "USD",
			SubtotalCents: 2900 + 155, TotalCents: 2900 + 155, AmountPaidCents: 2900 + 155, AttemptCount: 1, ExternalID: fmt.Sprintf("in_%d_%d", storeID, i),
			PaidVia: "visa •••• 4242", PeriodStart: from, PeriodEnd: to, IssuedAt: to, PaidAt: &paid,
			Lines: []models.BillingInvoiceLine{
				{Kind: "subscription", Description: "Basic plan", Quantity: 1, UnitAmountCents: 2900, AmountCents: 2900, PeriodStart: &from, PeriodEnd: &to},
				{Kind: "transaction_fees", Description: "Transaction fees on 1 paid order", Quantity: 1, UnitAmountCents: 155, AmountCents: 155, PeriodStart: &from, PeriodEnd: &to},
			},
			Charges: []models.BillingCharge{
				{AmountCents: 3055, Status: "failed", CardBrand: "visa", CardLast4: "4242", FailureMessage: "Your card was declined.", CreatedAt: to},
				{AmountCents: 3055, Status: "succeeded", CardBrand: "visa", CardLast4: "4242", ExternalID: "ch_x", CreatedAt: paid},
			}})
	}
	if err := models.InsertBillingInvoices(context.Background(), e.DB, storeID, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// blCard saves a card of the store as its default, as the API's save does.
func blCard(t *testing.T, e *apitest.Env, storeID int64, brand, last4, ref string) int64 {
	t.Helper()
	c := &models.BillingCard{StoreID: storeID, Brand: brand, Last4: last4, ExpMonth: 12, ExpYear: 2030, ProviderRef: ref}
	if err := models.SaveBillingCard(context.Background(), e.DB, c); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// blTime reads an RFC 3339 field.
func blTime(t *testing.T, m map[string]any, k string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, stringField(t, m, k))
	if err != nil {
		t.Fatalf("%s: %v", k, err)
	}
	return v
}

// TestBillingReads: the overview, the plans, the invoices and one invoice
// over REST, each the same on GraphQL; the accrued fees of the paid orders
// of the current period.
func TestBillingReads(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	reader := e.Key(s.ID, auth.RoleStaff, "billing:read")
	created := time.Now()

	// A new store is on the default plan, in its trial, with nothing else.
	r := e.Do(http.MethodGet, "/store/billing", reader, nil).Expect(t, 200)
	expectPayload(t, r, "accrued", "cards", "collection_enabled", "invoices", "plan", "subscription")
	sub := objectWithKeys(t, "subscription", r.Body["subscription"], blSubscriptionKeys)
	plan := objectWithKeys(t, "plan", r.Body["plan"], blPlanKeys)
	if plan["key"] != "basic" || plan["is_default"] != true || sub["plan_id"] != plan["id"] || sub["status"] != "trialing" ||
		sub["store_id"] != float64(s.ID) || sub["price_cents"] != float64(2900) || sub["transaction_fee_bps"] != float64(200) ||
		sub["transaction_fee_fixed_cents"] != float64(30) || sub["cancel_at_period_end"] != false || sub["billing_interval"] != "month" || sub["currency"] != "USD" {
		t.Fatalf("a new store's billing: %s", r.Raw)
	}
	start, end := blTime(t, sub, "current_period_start"), blTime(t, sub, "current_period_end")
	if d := start.Sub(created); d > time.Minute || d < -time.Minute || !end.Equal(start.AddDate(0, 1, 0)) ||
		!blTime(t, sub, "trial_ends_at").Equal(start.AddDate(0, 0, 14)) {
		t.Fatalf("period %v - %v, trial %v", start, end, sub["trial_ends_at"])
	}
	if cards := r.List("cards"); len(cards) != 0 || r.Body["collection_enabled"] != false {
		t.Fatalf("cards and collection: %s", r.Raw)
	}
	if inv := objectWithKeys(t, "invoices", r.Body["invoices"], blPageKeys); inv["total"] != float64(0) || inv["page"] != float64(1) ||
		inv["page_size"] != float64(5) || len(inv["invoices"].([]any)) != 0 {
		t.Fatalf("invoices: %v", inv)
	}
	accrued := objectWithKeys(t, "accrued", r.Body["accrued"], blAccruedKeys)
	if accrued["orders"] != float64(0) || accrued["fee_cents"] != float64(0) || accrued["period_start"] != sub["current_period_start"] {
		t.Fatalf("accrued: %v", accrued)
	}

	// Fees: per paid order of the period, 2% of its total rounded half up,
	// plus 30 cents. Orders unpaid, paid before the period or another
	// store's do not count.
	now := time.Now().UTC()
	createOrder(t, e, s.ID, orderSpec{createdAt: now})                                                                // 6200: 124 + 30
	createOrder(t, e, s.ID, orderSpec{createdAt: now, lines: []orderLine{{sku: "PIN", price: 1225, quantity: 1}}})    // 1225: 24.5 → 25 + 30
	createOrder(t, e, s.ID, orderSpec{createdAt: now, payment: "pending"})                                            // unpaid
	createOrder(t, e, s.ID, orderSpec{createdAt: created.Add(-time.Hour)})                                            // before the period
	createOrder(t, e, other.ID, orderSpec{createdAt: now, lines: []orderLine{{sku: "X", price: 99999, quantity: 1}}}) // another store
	blCard(t, e, s.ID, "mastercard", "4444", "pm_1")
	blCard(t, e, s.ID, "visa", "4242", "pm_2")
	blCard(t, e, other.ID, "amex", "0005", "pm_3")
	invoices := blInvoices(t, e, s.ID, 3)
	otherInvoice := blInvoices(t, e, other.ID, 1)[0]

	r = e.Do(http.MethodGet, "/store/billing", reader, nil).Expect(t, 200)
	accrued = objectWithKeys(t, "accrued", r.Body["accrued"], blAccruedKeys)
	if accrued["orders"] != float64(2) || accrued["gross_cents"] != float64(7425) || accrued["fee_cents"] != float64(209) || accrued["currency"] != "USD" ||
		accrued["transaction_fee_bps"] != float64(200) || accrued["transaction_fee_fixed_cents"] != float64(30) {
		t.Fatalf("accrued: %v", accrued)
	}
	cards := checkObjects(t, "cards", r.Body["cards"], map[string]string{"brand": "s", "exp_month": "i", "exp_year": "i", "id": "i", "is_default": "b", "last4": "s"})
	for _, c := range cards {
		objectWithKeys(t, "card", c, blCardKeys)
	}
	if len(cards) != 2 || cards[0]["brand"] != "visa" || cards[0]["is_default"] != true || cards[1]["last4"] != "4444" || cards[1]["is_default"] != false {
		t.Fatalf("cards: %v", cards)
	}
	page := objectWithKeys(t, "invoices", r.Body["invoices"], blPageKeys)
	if page["total"] != float64(3) || len(page["invoices"].([]any)) != 3 {
		t.Fatalf("invoices: %v", page)
	}
	newest := objectWithKeys(t, "invoice", page["invoices"].([]any)[0], blInvoiceKeys)
	if newest["number"] != invoices[2].Number || newest["store_handle"] != s.Handle || newest["store_name"] != "Acme" || newest["due_at"] != nil ||
		newest["total_cents"] != float64(3055) || newest["status"] != "paid" || newest["paid_via"] != "visa •••• 4242" {
		t.Fatalf("newest invoice: %v", newest)
	}
	e.SameOnGraphQL(t, r, reader, "GetBilling", nil)

	// The plans, by sort.
	plans := e.Do(http.MethodGet, "/store/billing/plans", reader, nil).Expect(t, 200)
	expectPayload(t, plans, "plans")
	var keys []string
	for _, p := range plans.List("plans") {
		m := objectWithKeys(t, "plan", p, blPlanKeys)
		keys = append(keys, m["key"].(string))
		if len(m["features"].([]any)) == 0 || m["status"] != "active" {
			t.Fatalf("plan %v", m)
		}
	}
	if !reflect.DeepEqual(keys, []string{"basic", "growth", "pro"}) {
		t.Fatalf("plans %v", keys)
	}
	e.SameOnGraphQL(t, plans, reader, "ListBillingPlans", nil)

	// The invoices, paged by number.
	list := e.Do(http.MethodGet, "/store/billing/invoices", reader, nil).Expect(t, 200)
	expectPayload(t, list, blPageKeys...)
	if list.Body["total"] != float64(3) || list.Body["page"] != float64(1) || list.Body["page_size"] != float64(50) || len(list.List("invoices")) != 3 {
		t.Fatalf("invoices: %s", list.Raw)
	}
	e.SameOnGraphQL(t, list, reader, "ListBillingInvoices", nil)
	p2 := e.Do(http.MethodGet, "/store/billing/invoices?page=2&page_size=2", reader, nil).Expect(t, 200)
	if rows := p2.List("invoices"); len(rows) != 1 || rows[0].(map[string]any)["number"] != invoices[0].Number || p2.Body["total"] != float64(3) ||
		p2.Body["page"] != float64(2) || p2.Body["page_size"] != float64(2) {
		t.Fatalf("page 2: %s", p2.Raw)
	}
	e.SameOnGraphQL(t, p2, reader, "ListBillingInvoices", map[string]any{"page": 2, "page_size": 2})
	if p3 := e.Do(http.MethodGet, "/store/billing/invoices?page=3&page_size=2", reader, nil).Expect(t, 200); len(p3.List("invoices")) != 0 || p3.Body["total"] != float64(3) {
		t.Fatalf("past the last page: %s", p3.Raw)
	}
	for q, field := range map[string]string{"page=0": "page", "page=-1": "page", "page=1000001": "page", "page_size=0": "page_size",
		"page_size=251": "page_size", "page=abc": "page", "limit=5": "limit", "offset=1": "offset"} {
		bad := e.Do(http.MethodGet, "/store/billing/invoices?"+q, reader, nil).Expect(t, 400)
		if bad.Body["field"] != field && !strings.Contains(bad.Message(), field) {
			t.Fatalf("%s: %s", q, bad.Raw)
		}
	}

	// One invoice, with its lines in order and its charges oldest first.
	path := "/store/billing/invoices/" + strconv.FormatInt(invoices[1].ID, 10)
	one := e.Do(http.MethodGet, path, reader, nil).Expect(t, 200)
	expectPayload(t, one, "charges", "invoice", "lines")
	if inv := objectWithKeys(t, "invoice", one.Body["invoice"], blInvoiceKeys); inv["number"] != invoices[1].Number || inv["id"] != float64(invoices[1].ID) {
		t.Fatalf("invoice: %v", inv)
	}
	lines := checkObjects(t, "lines", one.Body["lines"], map[string]string{"amount_cents": "i", "description": "s", "id": "i", "kind": "s",
		"period_end": "any", "period_start": "any", "quantity": "i", "unit_amount_cents": "i"})
	charges := checkObjects(t, "charges", one.Body["charges"], map[string]string{"amount_cents": "i", "card_brand": "s", "card_last4": "s",
		"created_at": "ts", "external_id": "s", "failure_message": "s", "id": "i", "status": "s"})
	if len(lines) != 2 || lines[0]["kind"] != "subscription" || lines[1]["kind"] != "transaction_fees" ||
		len(charges) != 2 || charges[0]["status"] != "failed" || charges[0]["failure_message"] != "Your card was declined." || charges[1]["status"] != "succeeded" {
		t.Fatalf("lines %v charges %v", lines, charges)
	}
	e.SameOnGraphQL(t, one, reader, "GetBillingInvoice", map[string]any{"id": invoices[1].ID})

	// Another store's invoice is a 404, like a missing one.
	for _, id := range []int64{otherInvoice.ID, 987654} {
		e.Do(http.MethodGet, "/store/billing/invoices/"+strconv.FormatInt(id, 10), reader, nil).Expect(t, 404)
		expectGraphQLNotFound(t, e, reader, `query($id: Int!) { billingInvoice(id: $id) { invoice { id } lines { id } } }`, map[string]any{"id": id})
	}
	e.Do(http.MethodGet, "/store/billing/invoices/abc", reader, nil).Expect(t, 400)

	// The overview costs the same statements however many cards and
	// invoices the store has: one per root field, the subscription read
	// once for the subscription, its plan and the accrued fees.
	count := countStatements(e)
	overview := func() int64 {
		return count(func() { e.Do(http.MethodGet, "/store/billing", reader, nil).Expect(t, 200) })
	}
	few := overview()
	blInvoices(t, e, s.ID, 7)
	blCard(t, e, s.ID, "amex", "0005", "pm_9")
	if many := overview(); many != few || few != 6 {
		t.Fatalf("GET /store/billing: %d statements with 3 invoices, %d with 10; want 6", few, many)
	}
}

// blWrites are the billing writes, over REST, with valid bodies.
func blWrites(cardID int64) []apitest.Call {
	return []apitest.Call{
		{Method: http.MethodPut, Path: "/store/billing/plan", Body: map[string]any{"plan_id": 2}},
		{Method: http.MethodPut, Path: "/store/billing/cancel", Body: map[string]any{"cancel_at_period_end": true}},
		{Method: http.MethodPut, Path: "/store/billing/cancel", Body: nil},
		{Method: http.MethodPost, Path: "/store/billing/card/setup", Body: nil},
		{Method: http.MethodPost, Path: "/store/billing/card", Body: map[string]any{"setup_intent_id": "seti_1"}},
		{Method: http.MethodDelete, Path: "/store/billing/card/" + strconv.FormatInt(cardID, 10), Body: nil},
	}
}

// TestBillingAccess: reads need billing:read (any role); every write is
// refused to every key, whatever it holds, before its input is read, and
// changes nothing.
func TestBillingAccess(t *testing.T) {
	p := newBLProvider(t)
	e := apitest.New(t, apitest.WithBilling(p.client(t, nil)))
	s := e.Store("Acme")
	inv := blInvoices(t, e, s.ID, 1)[0]
	blCard(t, e, s.ID, "mastercard", "4444", "pm_1")
	card := blCard(t, e, s.ID, "visa", "4242", "pm_2")
	blCard(t, e, s.ID, "amex", "0005", "pm_0") // the default now
	reads := []apitest.Call{
		{Method: http.MethodGet, Path: "/store/billing"},
		{Method: http.MethodGet, Path: "/store/billing/plans"},
		{Method: http.MethodGet, Path: "/store/billing/invoices"},
		{Method: http.MethodGet, Path: "/store/billing/invoices?page=1&page_size=1"},
		{Method: http.MethodGet, Path: "/store/billing/invoices/" + strconv.FormatInt(inv.ID, 10)},
	}
	writes := blWrites(card)
	before := blState(t, e, s.ID)
	k := checkAccess(t, e, s.ID, "billing", map[string]string{
		"orders": e.Key(s.ID, auth.RoleAdmin, "orders:write"), "payments": e.Key(s.ID, auth.RoleAdmin, "payments:write"),
	}, reads, writes)

	// Refused to every key: the billing writer, an admin with no scopes or
	// every scope; bad input does not change that.
	keys := map[string]string{"billing writer": k.writer, "admin, no scopes": e.Key(s.ID, auth.RoleAdmin), "admin, every scope": keyWithAllScopes(t, e, s.ID)}
	e.ExpectEach(t, 403, keys, writes)
	e.ExpectEach(t, 403, keys, []apitest.Call{
		{Method: http.MethodPut, Path: "/store/billing/plan", Body: map[string]any{"plan_id": "x"}},
		{Method: http.MethodPut, Path: "/store/billing/plan", Body: `{"plan_id": `},
		{Method: http.MethodPost, Path: "/store/billing/card", Body: map[string]any{}},
		{Method: http.MethodDelete, Path: "/store/billing/card/abc"},
	})
	for _, q := range []string{
		`mutation { changeBillingPlan(input: {plan_id: 2}) { id } }`,
		`mutation { cancelBillingSubscription { id } }`,
		`mutation { createBillingCardSetup { client_secret } }`,
		`mutation { saveBillingCard(input: {setup_intent_id: "seti_1"}) { id } }`,
		fmt.Sprintf(`mutation { deleteBillingCard(id: %d) }`, card),
	} {
		akForbidden(t, q, e.GraphQL(k.writer, q, nil))
	}
	if after := blState(t, e, s.ID); !reflect.DeepEqual(after, before) {
		t.Fatalf("a refused write changed billing:\nbefore %v\nafter  %v", before, after)
	}
	// The provider was never called.
	if auths, _ := p.seen(); len(auths) != 0 {
		t.Fatalf("the provider was called %d times", len(auths))
	}
}

// blState is the store's subscription and cards, to see that nothing
// changed.
func blState(t *testing.T, e *apitest.Env, storeID int64) string {
	t.Helper()
	var rows []string
	if err := e.DB.NewRaw(`SELECT row_to_json(x)::text FROM (
		SELECT 's' AS t, to_jsonb(s) AS r FROM billing_subscriptions AS s WHERE store_id = ?
		UNION ALL SELECT 'c', to_jsonb(c) FROM billing_cards AS c WHERE store_id = ?) AS x ORDER BY 1`, storeID, storeID).Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	return strings.Join(rows, "\n")
}

// blSession is a dashboard session of a new admin of the store: the
// principal the billing writes are for.
func blSession(t *testing.T, e *apitest.Env, storeID int64, email string) context.Context {
	t.Helper()
	return akSession(e, storeID, addMember(t, e, storeID, email, "Ada", "admin", models.MemberActive), auth.RoleAdmin)
}

// TestBillingResolversForSessions: the writes keys may not make, made by
// a dashboard session: plan changes, cancelling and taking it back, and
// cards saved through the billing provider.
func TestBillingResolversForSessions(t *testing.T) {
	p := newBLProvider(t)
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	ctx, otherCtx := blSession(t, e, s.ID, "ada@acme.test"), blSession(t, e, other.ID, "bo@bolt.test")
	now := time.Now()
	r := &resolvers.Resolver{DB: e.DB, Now: func() time.Time { return now }, Billing: p.client(t, nil)}
	mut, qry := r.Mutation(), r.Query()
	plan := func(key string) *models.BillingPlan {
		pl, err := models.GetBillingPlanByKey(context.Background(), e.DB, key)
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	basic, growth, pro := plan("basic"), plan("growth"), plan("pro")

	// A plan change takes the plan's price and fees; the trial and the
	// period stay.
	before, _ := qry.BillingSubscription(ctx)
	sub, err := mut.ChangeBillingPlan(ctx, graph.BillingPlanInput{PlanID: growth.ID})
	if err != nil || sub.PlanID != growth.ID || sub.PriceCents != 7900 || sub.TransactionFeeBps != 100 || sub.TransactionFeeFixedCents != 20 ||
		sub.Status != models.SubscriptionTrialing || !sub.CurrentPeriodStart.Equal(before.CurrentPeriodStart) || !sub.TrialEndsAt.Equal(*before.TrialEndsAt) {
		t.Fatalf("changeBillingPlan: %+v, %v", sub, err)
	}
	_, err = mut.ChangeBillingPlan(ctx, graph.BillingPlanInput{PlanID: growth.ID})
	akCode(t, "the current plan", err, apperr.Conflict)
	_, err = mut.ChangeBillingPlan(ctx, graph.BillingPlanInput{PlanID: 987654})
	akCode(t, "an unknown plan", err, apperr.Invalid)
	if apperr.FieldOf(err) != "plan_id" {
		t.Fatalf("an unknown plan names %q", apperr.FieldOf(err))
	}
	retired := &models.BillingPlan{Key: "legacy", Name: "Legacy", PriceCents: 100, Currency: "USD", BillingInterval: "month", Features: []string{},
		TransactionFeeBps: 1, Status: models.PlanRetired}
	if _, err := e.DB.NewInsert().Model(retired).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err = mut.ChangeBillingPlan(ctx, graph.BillingPlanInput{PlanID: retired.ID})
	akCode(t, "a retired plan", err, apperr.Invalid)
	if pls, _ := qry.BillingPlans(ctx); len(pls) != 3 {
		t.Fatalf("a retired plan is listed: %d plans", len(pls))
	}
	if os, _ := qry.BillingSubscription(otherCtx); os.PlanID != basic.ID {
		t.Fatalf("the other store's plan changed: %+v", os)
	}

	// Cancel at the period's end (the default), idempotently; take it back.
	yes, no := true, false
	for _, c := range []struct {
		arg  *bool
		want bool
	}{{nil, true}, {&yes, true}, {&no, false}, {&no, false}, {&yes, true}} {
		sub, err = mut.CancelBillingSubscription(ctx, c.arg)
		if err != nil || sub.CancelAtPeriodEnd != c.want || sub.Status != models.SubscriptionTrialing || !sub.CurrentPeriodEnd.Equal(before.CurrentPeriodEnd) {
			t.Fatalf("cancel %v: %+v, %v", c.arg, sub, err)
		}
	}
	// After the period it has ended: neither way is possible, and choosing
	// a plan starts a new subscription from then.
	now = before.CurrentPeriodEnd.Add(time.Hour)
	if sub, _ = qry.BillingSubscription(ctx); sub.Status != models.SubscriptionCanceled || !sub.CurrentPeriodEnd.Equal(before.CurrentPeriodEnd) {
		t.Fatalf("after the period: %+v", sub)
	}
	for _, arg := range []*bool{&yes, &no} {
		_, err = mut.CancelBillingSubscription(ctx, arg)
		akCode(t, "cancelling an ended subscription", err, apperr.Conflict)
	}
	sub, err = mut.ChangeBillingPlan(ctx, graph.BillingPlanInput{PlanID: growth.ID})
	if err != nil || sub.Status != models.SubscriptionActive || sub.CancelAtPeriodEnd || !sub.CurrentPeriodStart.Equal(now.UTC()) || sub.PlanID != growth.ID {
		t.Fatalf("a plan after the end: %+v, %v", sub, err)
	}
	if sub, err = mut.ChangeBillingPlan(ctx, graph.BillingPlanInput{PlanID: pro.ID}); err != nil || sub.PriceCents != pro.PriceCents {
		t.Fatalf("to pro: %+v %v", sub, err)
	}
	now = time.Now()

	// Cards: a setup intent at the provider, tagged with the store...
	setup, err := mut.CreateBillingCardSetup(ctx)
	if err != nil || setup.ClientSecret != "seti_1_secret_abc" || setup.PublishableKey != "pk_test_blPublishable" {
		t.Fatalf("createBillingCardSetup: %+v, %v", setup, err)
	}
	if auths, stores := p.seen(); stores["seti_1"] != strconv.FormatInt(s.ID, 10) || auths[0] != "Bearer "+blSecret {
		t.Fatalf("the provider saw stores %v, auth %q", stores, auths)
	}
	// ... saved once the provider's form has completed it, as the default.
	_, err = mut.SaveBillingCard(ctx, graph.BillingCardInput{SetupIntentID: "seti_1"})
	akCode(t, "an intent not completed", err, apperr.Invalid)
	p.complete("seti_1", "visa", "4242", 8, 2030)
	visa, err := mut.SaveBillingCard(ctx, graph.BillingCardInput{SetupIntentID: "seti_1"})
	if err != nil || visa.Brand != "visa" || visa.Last4 != "4242" || visa.ExpMonth != 8 || visa.ExpYear != 2030 || !visa.IsDefault || visa.ID == 0 {
		t.Fatalf("saveBillingCard: %+v, %v", visa, err)
	}
	_, err = mut.SaveBillingCard(ctx, graph.BillingCardInput{SetupIntentID: "seti_1"})
	akCode(t, "the same card again", err, apperr.Conflict)
	if on, _ := qry.BillingCollectionEnabled(ctx); !on {
		t.Fatal("collection is off with a provider and a default card")
	}
	if _, err := mut.CreateBillingCardSetup(ctx); err != nil {
		t.Fatal(err)
	}
	p.complete("seti_2", "mastercard", "4444", 1, 2031)
	mc, err := mut.SaveBillingCard(ctx, graph.BillingCardInput{SetupIntentID: "seti_2"})
	if err != nil || !mc.IsDefault {
		t.Fatalf("a second card: %+v, %v", mc, err)
	}
	if cards, _ := qry.BillingCards(ctx); len(cards) != 2 || cards[0].ID != mc.ID || cards[1].IsDefault {
		t.Fatalf("cards: %+v", cards)
	}
	// Another store's intent, an unknown one and a malformed id are 400s.
	if _, err := mut.CreateBillingCardSetup(otherCtx); err != nil {
		t.Fatal(err)
	}
	p.complete("seti_3", "amex", "0005", 1, 2031)
	for id, code := range map[string]apperr.Code{"seti_3": apperr.Invalid, "seti_999": apperr.Invalid, "pm_123": apperr.Invalid, "seti_1/../x": apperr.Invalid, "": apperr.Invalid} {
		_, err = mut.SaveBillingCard(ctx, graph.BillingCardInput{SetupIntentID: id})
		akCode(t, "saving "+id, err, code)
		if apperr.FieldOf(err) != "setup_intent_id" {
			t.Fatalf("saving %q names %q: %v", id, apperr.FieldOf(err), err)
		}
	}
	if cards, _ := qry.BillingCards(otherCtx); len(cards) != 0 {
		t.Fatalf("the other store has cards: %+v", cards)
	}

	// The default card cannot be deleted; another can, once; another
	// store's is not found.
	_, err = mut.DeleteBillingCard(ctx, mc.ID)
	akCode(t, "deleting the default card", err, apperr.Conflict)
	if ok, err := mut.DeleteBillingCard(ctx, visa.ID); !ok || err != nil {
		t.Fatalf("deleteBillingCard: %v", err)
	}
	_, err = mut.DeleteBillingCard(ctx, visa.ID)
	akCode(t, "deleting a deleted card", err, apperr.NotFound)
	_, err = mut.DeleteBillingCard(otherCtx, mc.ID)
	akCode(t, "deleting another store's card", err, apperr.NotFound)

	// The provider failing or out of reach is a 503, and so is billing
	// not configured.
	p.setFail(500)
	_, err = mut.CreateBillingCardSetup(ctx)
	akCode(t, "the provider failing", err, apperr.Unavailable)
	_, err = mut.SaveBillingCard(ctx, graph.BillingCardInput{SetupIntentID: "seti_2"})
	akCode(t, "the provider failing on save", err, apperr.Unavailable)
	p.setFail(0)
	gone := newBLProvider(t)
	down := gone.client(t, nil)
	gone.Close()
	_, err = (&resolvers.Resolver{DB: e.DB, Now: time.Now, Billing: down}).Mutation().CreateBillingCardSetup(ctx)
	akCode(t, "the provider out of reach", err, apperr.Unavailable)
	bare := &resolvers.Resolver{DB: e.DB, Now: time.Now}
	_, err = bare.Mutation().CreateBillingCardSetup(ctx)
	akCode(t, "billing not configured", err, apperr.Unavailable)
	if !strings.Contains(err.Error(), "billing is not configured") {
		t.Fatalf("not configured: %v", err)
	}
	_, err = bare.Mutation().SaveBillingCard(ctx, graph.BillingCardInput{SetupIntentID: "seti_2"})
	akCode(t, "saving without billing", err, apperr.Unavailable)
	if on, _ := bare.Query().BillingCollectionEnabled(ctx); on {
		t.Fatal("collection is on without a provider")
	}
}

// TestBillingSecretNeverShown: the provider's secret key is in no answer,
// no log line (a provider quoting it in its errors included) and no row.
func TestBillingSecretNeverShown(t *testing.T) {
	p := newBLProvider(t)
	logs := &testlog.Records{}
	client := p.client(t, logs)
	e := apitest.New(t, apitest.WithBilling(client), apitest.WithLog(logs))
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	ctx := blSession(t, e, s.ID, "ada@acme.test")
	r := &resolvers.Resolver{DB: e.DB, Now: time.Now, Billing: client}
	mut := r.Mutation()

	var seen []string
	see := func(v any, err error) {
		b, _ := json.Marshal(v)
		seen = append(seen, string(b))
		if err != nil {
			seen = append(seen, err.Error())
		}
	}
	see(mut.CreateBillingCardSetup(ctx))
	p.complete("seti_1", "visa", "4242", 8, 2030)
	see(mut.SaveBillingCard(ctx, graph.BillingCardInput{SetupIntentID: "seti_1"}))
	p.setFail(402)
	see(mut.CreateBillingCardSetup(ctx))
	see(mut.SaveBillingCard(ctx, graph.BillingCardInput{SetupIntentID: "seti_1"}))
	p.setFail(0)
	// A provider given another key quotes it back.
	wrong, err := billing.New(billing.Config{APIURL: p.URL, SecretKey: blSecret + "x", PublishableKey: "pk", Log: logs.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	see((&resolvers.Resolver{DB: e.DB, Now: time.Now, Billing: wrong}).Mutation().CreateBillingCardSetup(ctx))
	for _, c := range append(blWrites(1), apitest.Call{Method: http.MethodGet, Path: "/store/billing"}) {
		seen = append(seen, string(e.Do(c.Method, c.Path, key, c.Body).Raw))
	}
	seen = append(seen, string(e.GraphQL(key, `{ billingCollectionEnabled billingCards { id last4 } }`, nil).Raw))
	if !strings.Contains(strings.Join(seen, "\n"), `"collection_enabled":true`) {
		t.Fatalf("the billing read did not see the provider: %v", seen)
	}
	var rows []string
	if err := e.DB.NewRaw(`SELECT row_to_json(x)::text FROM billing_cards AS x UNION ALL SELECT row_to_json(x)::text FROM billing_subscriptions AS x
		UNION ALL SELECT row_to_json(x)::text FROM audit_logs AS x`).Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	lines := logs.String()
	if !strings.Contains(lines, "[secret key]") || !strings.Contains(lines, "billing provider: refused") {
		t.Fatalf("the provider's refusals are not logged: %s", lines)
	}
	for what, text := range map[string]string{"answers": strings.Join(seen, "\n"), "log": lines, "rows": strings.Join(rows, "\n")} {
		if strings.Contains(text, blSecret) || strings.Contains(text, blSecret[8:30]) {
			t.Fatalf("the billing secret is in the %s:\n%s", what, text)
		}
	}
}
