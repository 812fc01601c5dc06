package apitest_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/testkit/testsmtp"
	"storeadmin/models"
)

// surfaceSpec is the JSON type of each field of an AbandonedcartSurface.
var surfaceSpec = map[string]string{
	"mode": "s", "idle_minutes": "i", "delays_minutes": "i[]", "discount_enabled": "b?", "discount_from_step": "i?",
	"discount_ttl_hours": "i?", "discount_value": "i?", "discount_value_type": "s?",
}

// recoveryPolicy reads an answer's recovery policy, checking its shape.
func recoveryPolicy(t *testing.T, r *apitest.Response) map[string]any {
	t.Helper()
	expectPayload(t, r, "recovery")
	p := objectWithKeys(t, "recovery", r.Body["recovery"], []string{"cart", "checkout"})
	checkObject(t, "recovery.cart", p["cart"], surfaceSpec)
	checkObject(t, "recovery.checkout", p["checkout"], surfaceSpec)
	return p
}

// defaultSurface is DefaultRecoveryPolicy's surface as the API answers it.
func defaultSurface() map[string]any {
	return map[string]any{"mode": "email", "idle_minutes": float64(60), "delays_minutes": []any{float64(60), float64(1440)},
		"discount_enabled": nil, "discount_from_step": nil, "discount_ttl_hours": nil, "discount_value": nil, "discount_value_type": nil}
}

// TestRecoverySettings: the default policy; PUT replaces the surfaces it
// sends, whole, and keeps the others; every bad value is a 400 naming its
// field; REST = GraphQL; scope marketing.
func TestRecoverySettings(t *testing.T) {
	e, s, key := newAcme(t)
	r := e.Do(http.MethodGet, "/store/recovery-settings", key, nil).Expect(t, 200)
	if got := recoveryPolicy(t, r); !reflect.DeepEqual(got, map[string]any{"cart": defaultSurface(), "checkout": defaultSurface()}) {
		t.Fatalf("default policy: %v", got)
	}
	e.SameOnGraphQL(t, r, key, "GetRecoverySettings", nil)

	cart := map[string]any{"mode": "email", "idle_minutes": 30, "delays_minutes": []int{60, 1440, 4320},
		"discount_enabled": true, "discount_from_step": 2, "discount_ttl_hours": 48, "discount_value": 10, "discount_value_type": "percentage"}
	r = e.Do(http.MethodPut, "/store/recovery-settings", key, map[string]any{"cart": cart}).Expect(t, 200)
	got := recoveryPolicy(t, r)
	wantCart := map[string]any{"mode": "email", "idle_minutes": float64(30), "delays_minutes": []any{float64(60), float64(1440), float64(4320)},
		"discount_enabled": true, "discount_from_step": float64(2), "discount_ttl_hours": float64(48), "discount_value": float64(10), "discount_value_type": "percentage"}
	if !reflect.DeepEqual(got, map[string]any{"cart": wantCart, "checkout": defaultSurface()}) {
		t.Fatalf("after PUT cart: %v", got)
	}
	expectAuditRecord(t, e, key, "action=updateRecoverySettings&limit=1", "recovery_settings", s.ID)
	// The checkout alone: the cart keeps its policy; the read sent back is
	// taken as it is.
	r = e.Do(http.MethodPut, "/store/recovery-settings", key, map[string]any{"checkout": map[string]any{"mode": "off", "idle_minutes": 120, "delays_minutes": []int{}}}).Expect(t, 200)
	got = recoveryPolicy(t, r)
	wantCheckout := map[string]any{"mode": "off", "idle_minutes": float64(120), "delays_minutes": []any{},
		"discount_enabled": nil, "discount_from_step": nil, "discount_ttl_hours": nil, "discount_value": nil, "discount_value_type": nil}
	if !reflect.DeepEqual(got, map[string]any{"cart": wantCart, "checkout": wantCheckout}) {
		t.Fatalf("after PUT checkout: %v", got)
	}
	e.Do(http.MethodPut, "/store/recovery-settings", key, got).Expect(t, 200)
	r = e.Do(http.MethodGet, "/store/recovery-settings", key, nil).Expect(t, 200)
	if again := recoveryPolicy(t, r); !reflect.DeepEqual(again, got) {
		t.Fatalf("a read sent back changed the policy: %v", again)
	}
	e.SameOnGraphQL(t, e.Do(http.MethodPut, "/store/recovery-settings", key, map[string]any{"checkout": wantCheckout}).Expect(t, 200), key,
		"UpdateRecoverySettings", map[string]any{"input": map[string]any{"checkout": map[string]any{"mode": "off", "idle_minutes": 120, "delays_minutes": []int{}}}})

	// Each bad value: a 400 naming the field, nothing stored.
	surface := func(change map[string]any) map[string]any {
		s := map[string]any{"mode": "email", "idle_minutes": 60, "delays_minutes": []int{60, 120}}
		for k, v := range change {
			if v == nil {
				delete(s, k)
			} else {
				s[k] = v
			}
		}
		return map[string]any{"cart": s}
	}
	discount := map[string]any{"discount_enabled": true, "discount_from_step": 1, "discount_ttl_hours": 24, "discount_value": 10, "discount_value_type": "percentage"}
	with := func(change map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range discount {
			m[k] = v
		}
		for k, v := range change {
			m[k] = v
		}
		return surface(m)
	}
	for name, c := range map[string]struct {
		body  any
		field string
	}{
		"no surface":          {map[string]any{}, ""},
		"unknown mode":        {surface(map[string]any{"mode": "sms"}), "cart.mode"},
		"idle too short":      {surface(map[string]any{"idle_minutes": 4}), "cart.idle_minutes"},
		"idle too long":       {surface(map[string]any{"idle_minutes": 10081}), "cart.idle_minutes"},
		"no delays for email": {surface(map[string]any{"delays_minutes": []int{}}), "cart.delays_minutes"},
		"six reminders":       {surface(map[string]any{"delays_minutes": []int{1, 2, 3, 4, 5, 6}}), "cart.delays_minutes"},
		"delay zero":          {surface(map[string]any{"delays_minutes": []int{0}}), "cart.delays_minutes[0]"},
		"delay past 30 days":  {surface(map[string]any{"delays_minutes": []int{60, 43201}}), "cart.delays_minutes[1]"},
		"delays not rising":   {surface(map[string]any{"delays_minutes": []int{60, 60}}), "cart.delays_minutes[1]"},
		"mode left out":       {surface(map[string]any{"mode": nil}), "cart.mode"},
		"delays a string":     {surface(map[string]any{"delays_minutes": "60"}), "cart.delays_minutes"},
		"discount step 0":     {with(map[string]any{"discount_from_step": 0}), "cart.discount_from_step"},
		"discount step past":  {with(map[string]any{"discount_from_step": 3}), "cart.discount_from_step"},
		"ttl zero":            {with(map[string]any{"discount_ttl_hours": 0}), "cart.discount_ttl_hours"},
		"ttl past 30 days":    {with(map[string]any{"discount_ttl_hours": 721}), "cart.discount_ttl_hours"},
		"percent over 100":    {with(map[string]any{"discount_value": 101}), "cart.discount_value"},
		"percent zero":        {with(map[string]any{"discount_value": 0}), "cart.discount_value"},
		"amount zero":         {with(map[string]any{"discount_value_type": "fixed_amount", "discount_value": 0}), "cart.discount_value"},
		"value type unknown":  {with(map[string]any{"discount_value_type": "free_shipping"}), "cart.discount_value_type"},
		"enabled without ttl": {with(map[string]any{"discount_ttl_hours": nil}), "cart.discount_ttl_hours"},
		"value without type":  {surface(map[string]any{"discount_value": 5}), "cart.discount_value"},
	} {
		r := e.Do(http.MethodPut, "/store/recovery-settings", key, c.body)
		r.Expect(t, 400)
		if c.field != "" && !strings.Contains(string(r.Raw), c.field) {
			t.Fatalf("%s: the 400 does not name %s: %s", name, c.field, r.Raw)
		}
	}
	// A fixed amount of any size up to the discounts' bound is taken.
	e.Do(http.MethodPut, "/store/recovery-settings", key, with(map[string]any{"discount_value_type": "fixed_amount", "discount_value": 500})).Expect(t, 200)
	if g := e.GraphQL(key, `mutation { updateRecoverySettings(input: {cart: {mode: "email", idle_minutes: 60, delays_minutes: [30, 20]}}) { cart { mode } } }`, nil); g.ErrorCode() != string(apperr.Invalid) {
		t.Fatalf("GraphQL: delays not rising: %s", g.Raw)
	}

	checkAccess(t, e, s.ID, "marketing", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "abandoned:write", "store:write")},
		[]apitest.Call{{Method: http.MethodGet, Path: "/store/recovery-settings"}},
		[]apitest.Call{{Method: http.MethodPut, Path: "/store/recovery-settings", Body: map[string]any{"cart": map[string]any{"mode": "off", "idle_minutes": 60, "delays_minutes": []int{}}}}})
	if p, _ := models.GetRecoveryPolicy(context.Background(), e.DB, s.ID); p.Cart.Mode != "email" || p.Cart.DiscountValue == nil || *p.Cart.DiscountValue != 500 {
		t.Fatalf("a refused PUT changed the policy: %+v", p.Cart)
	}
	// Another store's policy is its own.
	other := e.Store("Bolt")
	r = e.Do(http.MethodGet, "/store/recovery-settings", e.Key(other.ID, auth.RoleAdmin), nil).Expect(t, 200)
	if got := recoveryPolicy(t, r); !reflect.DeepEqual(got["cart"], defaultSurface()) {
		t.Fatalf("another store's policy: %v", got)
	}
}

// shopCart is an abandoned cart or checkout a test makes in the tables
// (the storefront's carts and the abandonment job are other areas').
type shopCart struct {
	kind, token, email string
	id                 int64
	abandonedAt        time.Time
}

// abandoned inserts an abandoned cart (kind cart) or checkout of the store
// with two lines, abandoned at at, and returns it.
func abandoned(t *testing.T, e *apitest.Env, storeID int64, kind, token, email string, at time.Time) shopCart {
	t.Helper()
	ctx := context.Background()
	c := shopCart{kind: kind, token: token, email: email, abandonedAt: at}
	var err error
	if kind == models.RecoveryCart {
		err = e.DB.NewRaw(`INSERT INTO carts (store_id, token, currency, email, first_name, item_count, subtotal_cents, abandoned_at, updated_at)
			VALUES (?, ?, 'EUR', ?, 'Ana', 3, 5450, ?, ?) RETURNING id`, storeID, token, email, at, at.Add(-time.Hour)).Scan(ctx, &c.id)
	} else {
		err = e.DB.NewRaw(`INSERT INTO checkouts (store_id, token, currency, email, first_name, item_count, subtotal_cents, shipping_cents, total_cents, expires_at, abandoned_at, updated_at)
			VALUES (?, ?, 'EUR', ?, 'Ana', 3, 5450, 500, 5950, ?, ?, ?) RETURNING id`, storeID, token, email, at.Add(30*24*time.Hour), at, at.Add(-time.Hour)).Scan(ctx, &c.id)
	}
	if err != nil {
		t.Fatal(err)
	}
	table, ref := kind+"_lines", kind+"_id"
	for i, l := range []struct {
		title, variant string
		price, qty     int64
	}{{"Trail Shoe", "42 / Blue", 3950, 1}, {"Wool Socks", "", 750, 2}} {
		if _, err := e.DB.NewRaw("INSERT INTO ? (store_id, ?, position, title, variant_title, price_cents, quantity) VALUES (?, ?, ?, ?, ?, ?, ?)",
			bun.Ident(table), bun.Ident(ref), storeID, c.id, i, l.title, l.variant, l.price, l.qty).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// recoveryMessages reads the reminders of a cart or checkout, oldest
// first.
func recoveryMessages(t *testing.T, e *apitest.Env, c shopCart) []models.RecoveryMessage {
	t.Helper()
	var out []models.RecoveryMessage
	if err := e.DB.NewSelect().Model(&out).Where("? = ?", bun.Ident(c.kind+"_id"), c.id).OrderExpr("id").Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	return out
}

// recoveryEmails reads recovery_emails of a cart or checkout.
func recoveryEmails(t *testing.T, e *apitest.Env, c shopCart) int {
	t.Helper()
	var n int
	if err := e.DB.NewRaw("SELECT recovery_emails FROM ? WHERE id = ?", bun.Ident(c.kind+"s"), c.id).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// runDue runs the reminder sequence at now and returns how many reminders
// it recorded.
func runDue(t *testing.T, e *apitest.Env, now time.Time) int {
	t.Helper()
	n, err := e.Recovery.RunDue(context.Background(), e.DB, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

var (
	recoverLinkRe = regexp.MustCompile(`http://[^\s"<>]+/storefront/v1/recover/[^\s"<>]+`)
	optOutLinkRe  = regexp.MustCompile(`http://[^\s"<>]+/storefront/v1/opt-out/[^\s"<>]+`)
)

// noRedirects is a client that hands back a redirect instead of following
// it (a recovery link's 302 leads to the store's storefront, elsewhere).
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// follow requests a link without following its redirect.
func follow(t *testing.T, method, link string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, link, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestRecoverySequence drives a cart's reminders with a clock: each step
// goes out once, when due, as a real SMTP message rendered from the cart;
// the step from discount_from_step on carries a single-use code that works
// once; the recovery link records the click, stops the sequence and leads
// to the cart on the store's storefront; a forged link leads nowhere.
func TestRecoverySequence(t *testing.T) {
	mailbox := testsmtp.Start(t, "shop", "s3cret")
	e := apitest.New(t, apitest.WithSMTP(mailbox.URL()))
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	e.Do(http.MethodPut, "/store/email", key, map[string]any{"from_name": "Acme Outdoor", "reply_to": "care@acme.example"}).Expect(t, 200)
	e.Do(http.MethodPut, "/store/recovery-settings", key, map[string]any{"cart": map[string]any{
		"mode": "email", "idle_minutes": 60, "delays_minutes": []int{60, 1440, 2880},
		"discount_enabled": true, "discount_from_step": 2, "discount_ttl_hours": 48, "discount_value": 15, "discount_value_type": "percentage"}}).Expect(t, 200)
	t0 := time.Now().UTC().Truncate(time.Second)
	cart := abandoned(t, e, s.ID, models.RecoveryCart, "cart-tok-1", "ana@example.com", t0)
	// Another store's cart, whose policy is the default.
	other := e.Store("Bolt")
	otherCart := abandoned(t, e, other.ID, models.RecoveryCart, "cart-tok-1", "bea@example.com", t0)

	if n := runDue(t, e, t0.Add(59*time.Minute)); n != 0 || len(mailbox.Messages()) != 0 {
		t.Fatalf("before the first delay: %d recorded, %d mailed", n, len(mailbox.Messages()))
	}
	// Both stores' first steps are due at 60 minutes; once only.
	if n := runDue(t, e, t0.Add(61*time.Minute)); n != 2 {
		t.Fatalf("first step: %d recorded, want 2", n)
	}
	if n := runDue(t, e, t0.Add(62*time.Minute)); n != 0 {
		t.Fatalf("first step again: %d recorded", n)
	}
	msgs := mailbox.Messages()
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want 2", len(msgs))
	}
	first := msgs[0]
	if first.To != "ana@example.com" {
		first = msgs[1]
	}
	if first.Subject != "You left something in your cart at Acme" || first.From != "no-reply@platform.test" ||
		first.Header.Get("From") != `"Acme Outdoor" <no-reply@platform.test>` || first.Header.Get("Reply-To") != "<care@acme.example>" {
		t.Fatalf("first reminder's headers: %q from %s, %v", first.Subject, first.From, first.Header)
	}
	for _, want := range []string{"Hello Ana", "1 x Trail Shoe (42 / Blue): 39.50 EUR", "2 x Wool Socks: 15.00 EUR", "Subtotal: 54.50 EUR"} {
		if !strings.Contains(first.Text, want) {
			t.Fatalf("the text lacks %q:\n%s", want, first.Text)
		}
	}
	if !strings.Contains(first.HTML, "Trail Shoe (42 / Blue)") || strings.Contains(first.Text, "code") {
		t.Fatalf("first reminder's body:\n%s\n%s", first.Text, first.HTML)
	}
	if !strings.HasPrefix(first.Header.Get("List-Unsubscribe"), "<"+e.URL+"/storefront/v1/opt-out/") {
		t.Fatalf("List-Unsubscribe: %q", first.Header.Get("List-Unsubscribe"))
	}
	ms := recoveryMessages(t, e, cart)
	if len(ms) != 1 || ms[0].Step != 1 || ms[0].Status != models.RecoverySent || ms[0].ToEmail != "ana@example.com" || ms[0].Subject != first.Subject ||
		ms[0].SentAt == nil || ms[0].DiscountCode != "" || recoveryEmails(t, e, cart) != 1 {
		t.Fatalf("first step recorded as %+v, recovery_emails %d", ms, recoveryEmails(t, e, cart))
	}

	// Step 2 carries a single-use code, valid 48 hours.
	at2 := t0.Add(1441 * time.Minute)
	if n := runDue(t, e, at2); n != 2 {
		t.Fatalf("second step: %d recorded, want 2", n)
	}
	second := mailbox.Messages()[2]
	if second.To != "ana@example.com" {
		second = mailbox.Messages()[3]
	}
	ms = recoveryMessages(t, e, cart)
	code := ms[1].DiscountCode
	if len(ms) != 2 || ms[1].Step != 2 || !strings.HasPrefix(code, "COMEBACK-") || !strings.Contains(second.Text, "Use the code "+code+" for 15% off") ||
		!strings.HasPrefix(second.Subject, "15% off") {
		t.Fatalf("second step: %+v\n%s", ms, second.Text)
	}
	if om := recoveryMessages(t, e, otherCart); len(om) != 2 || om[1].DiscountCode != "" {
		t.Fatalf("the other store's cart (default policy, no discount): %+v", om)
	}
	d, err := models.DiscountByCode(context.Background(), e.DB, s.ID, code)
	if err != nil {
		t.Fatal(err)
	}
	if d.UsageLimit == nil || *d.UsageLimit != 1 || d.Value != 15 || d.ValueType != "percentage" || d.EndsAt == nil || !d.EndsAt.Equal(at2.Add(48*time.Hour)) {
		t.Fatalf("the discount: %+v", d)
	}
	redeem := func(at time.Time) error {
		return models.RedeemDiscount(context.Background(), e.DB, s.ID, d.ID, "ana@example.com", 0, at)
	}
	if err := redeem(at2.Add(49 * time.Hour)); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("redeemed after its 48 hours: %v", err)
	}
	if err := redeem(at2.Add(time.Hour)); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if err := redeem(at2.Add(2 * time.Hour)); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("second use: %v", err)
	}
	// Through the discounts area, the code is an ordinary single-use one.
	r := e.Do(http.MethodGet, "/store/discounts?class=code", key, nil).Expect(t, 200)
	if rows := objectsOf(r.Body["discounts"]); len(rows) != 1 || rows[0]["code"] != code || rows[0]["usage_limit"] != float64(1) || rows[0]["used_count"] != float64(1) {
		t.Fatalf("the discounts list: %s", r.Raw)
	}

	// The recovery link: forged or truncated, it leads nowhere; followed,
	// it leads to the cart with the code and stops the sequence.
	link := recoverLinkRe.FindString(second.Text)
	if link == "" || !strings.Contains(second.HTML, strings.ReplaceAll(link, "&", "&amp;")) {
		t.Fatalf("no recovery link in:\n%s", second.Text)
	}
	for _, bad := range []string{link[:len(link)-2], strings.Replace(link, "recover/", "recover/1", 1), strings.Replace(link, "/recover/", "/opt-out/", 1) + "x"} {
		if resp := follow(t, http.MethodGet, bad); resp.StatusCode != 404 {
			t.Fatalf("%s: %d, want 404", bad, resp.StatusCode)
		}
	}
	resp := follow(t, http.MethodGet, link)
	want := "https://" + s.Handle + ".platform.test/cart/cart-tok-1?discount=" + url.QueryEscape(code)
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != want {
		t.Fatalf("recovery link: %d to %q, want 302 to %q", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	if ms = recoveryMessages(t, e, cart); ms[1].ClickedAt == nil || ms[0].ClickedAt != nil {
		t.Fatalf("the click is not recorded on its reminder: %+v", ms)
	}
	// The shopper is back: no third step for this cart; the other store's
	// sequence (two steps) is over too.
	if n := runDue(t, e, t0.Add(2881*time.Minute)); n != 0 || len(recoveryMessages(t, e, cart)) != 2 {
		t.Fatalf("after the click: %d recorded", n)
	}
	// With an active primary domain, links lead there.
	if _, err := e.DB.NewRaw("INSERT INTO domains (store_id, hostname, is_primary, status, verification_token) VALUES (?, 'shop.acme.example', true, 'active', 'x')", s.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if resp := follow(t, http.MethodGet, recoverLinkRe.FindString(first.Text)); resp.Header.Get("Location") != "https://shop.acme.example/cart/cart-tok-1" {
		t.Fatalf("with a primary domain: %q", resp.Header.Get("Location"))
	}
}

// TestRecoveryOptOutWins: the opt-out link (a page whose button posts, and
// one-click POST) stops every reminder of the shopper's checkout and its
// cart: later steps are recorded skipped, and a resend is a 409. A policy
// turned off stops sequences too.
func TestRecoveryOptOutWins(t *testing.T) {
	mailbox := testsmtp.Start(t, "", "")
	e := apitest.New(t, apitest.WithSMTP(mailbox.URL()))
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin, "abandoned:write")
	t0 := time.Now().UTC().Truncate(time.Second)
	co := abandoned(t, e, s.ID, models.RecoveryCheckout, "co-1", "ana@example.com", t0)
	if n := runDue(t, e, t0.Add(61*time.Minute)); n != 1 || len(mailbox.Messages()) != 1 {
		t.Fatalf("first step: %d", n)
	}
	first := mailbox.Messages()[0]
	if first.Subject != "Complete your purchase at Acme" || !strings.Contains(first.Text, "Total: 59.50 EUR") {
		t.Fatalf("a checkout's reminder: %q\n%s", first.Subject, first.Text)
	}
	link := optOutLinkRe.FindString(first.Text)
	// Opening the link shows a page; only its button (a POST) opts out, so
	// mail scanners that open links opt nobody out.
	resp := follow(t, http.MethodGet, link)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("opt-out page: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var optedOut bool
	e.DB.NewRaw("SELECT recovery_opt_out FROM checkouts WHERE id = ?", co.id).Scan(context.Background(), &optedOut)
	if optedOut {
		t.Fatal("opening the opt-out page opted out")
	}
	if resp := follow(t, http.MethodPost, strings.Replace(link, "sig=", "sig=x", 1)); resp.StatusCode != 404 {
		t.Fatalf("forged opt-out: %d", resp.StatusCode)
	}
	if resp := follow(t, http.MethodPost, link); resp.StatusCode != 200 {
		t.Fatalf("opt-out: %d", resp.StatusCode)
	}
	// Later steps are recorded skipped, not sent; a resend is refused.
	if n := runDue(t, e, t0.Add(1441*time.Minute)); n != 1 || len(mailbox.Messages()) != 1 {
		t.Fatalf("after the opt-out: %d recorded, %d mailed", n, len(mailbox.Messages()))
	}
	ms := recoveryMessages(t, e, co)
	if len(ms) != 2 || ms[1].Status != models.RecoverySkipped || ms[1].Step != 2 || !strings.Contains(ms[1].Error, "opted out") || recoveryEmails(t, e, co) != 1 {
		t.Fatalf("after the opt-out: %+v", ms)
	}
	r := e.Do(http.MethodPost, "/store/abandoned-checkouts/co-1/resend", key, nil).Expect(t, 409)
	if !strings.Contains(string(r.Raw), "opted out") {
		t.Fatalf("resend after the opt-out: %s", r.Raw)
	}
	// A cart without an email address: skipped, recorded as such.
	noMail := abandoned(t, e, s.ID, models.RecoveryCart, "cart-anon", "", t0)
	runDue(t, e, t0.Add(61*time.Minute))
	if ms := recoveryMessages(t, e, noMail); len(ms) != 1 || ms[0].Status != models.RecoverySkipped || recoveryEmails(t, e, noMail) != 0 {
		t.Fatalf("no email: %+v", ms)
	}
	// A policy turned off sends nothing more.
	quiet := abandoned(t, e, s.ID, models.RecoveryCart, "cart-quiet", "cy@example.com", t0)
	e.Do(http.MethodPut, "/store/recovery-settings", e.Key(s.ID, auth.RoleAdmin), map[string]any{"cart": map[string]any{"mode": "off", "idle_minutes": 60, "delays_minutes": []int{60}}}).Expect(t, 200)
	if n := runDue(t, e, t0.Add(90*time.Minute)); n != 0 || len(recoveryMessages(t, e, quiet)) != 0 {
		t.Fatalf("policy off: %d recorded", n)
	}
}

// TestRecoveryResend: one extra reminder now (step 0), the sequence
// untouched; refused for what is not abandoned (409), unknown or another
// store's tokens (404); REST = GraphQL; scope abandoned.
func TestRecoveryResend(t *testing.T) {
	mailbox := testsmtp.Start(t, "", "")
	e := apitest.New(t, apitest.WithSMTP(mailbox.URL()))
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	t0 := time.Now().UTC().Truncate(time.Second)
	cart := abandoned(t, e, s.ID, models.RecoveryCart, "cart-1", "ana@example.com", t0)
	r := e.Do(http.MethodPost, "/store/abandoned-carts/cart-1/resend", key, nil).Expect(t, 200)
	expectPayload(t, r)
	ms := recoveryMessages(t, e, cart)
	if len(ms) != 1 || ms[0].Step != 0 || ms[0].Status != models.RecoverySent || len(mailbox.Messages()) != 1 || recoveryEmails(t, e, cart) != 1 {
		t.Fatalf("resend: %+v, %d mailed", ms, len(mailbox.Messages()))
	}
	expectAuditRecord(t, e, key, "action=resendAbandonedCart&limit=1", "recovery_message", ms[0].ID)
	// The sequence keeps its timing.
	if n := runDue(t, e, t0.Add(61*time.Minute)); n != 1 {
		t.Fatalf("the first step after a resend: %d", n)
	}
	if g := e.GraphQL(key, `mutation($t: String!) { resendAbandonedCart(token: $t) }`, map[string]any{"t": "cart-1"}); g.Data()["resendAbandonedCart"] != true {
		t.Fatalf("GraphQL resend: %s", g.Raw)
	}
	co := abandoned(t, e, s.ID, models.RecoveryCheckout, "co-1", "ana@example.com", t0)
	e.Do(http.MethodPost, "/store/abandoned-checkouts/co-1/resend", key, nil).Expect(t, 200)
	if ms := recoveryMessages(t, e, co); len(ms) != 1 || len(mailbox.Messages()) != 4 {
		t.Fatalf("checkout resend: %+v", ms)
	}

	// Not abandoned, recovered: 409; unknown and another store's: 404.
	var live int64
	if err := e.DB.NewRaw("INSERT INTO carts (store_id, token, currency, email) VALUES (?, 'cart-live', 'EUR', 'x@example.com') RETURNING id", s.ID).Scan(context.Background(), &live); err != nil {
		t.Fatal(err)
	}
	if r := e.Do(http.MethodPost, "/store/abandoned-carts/cart-live/resend", key, nil).Expect(t, 409); !strings.Contains(string(r.Raw), "not abandoned") {
		t.Fatalf("not abandoned: %s", r.Raw)
	}
	e.DB.NewRaw("UPDATE checkouts SET recovered_at = now() WHERE id = ?", co.id).Exec(context.Background())
	e.Do(http.MethodPost, "/store/abandoned-checkouts/co-1/resend", key, nil).Expect(t, 409)
	e.Do(http.MethodPost, "/store/abandoned-carts/nope/resend", key, nil).Expect(t, 404)
	other := e.Store("Bolt")
	otherKey := e.Key(other.ID, auth.RoleAdmin)
	e.Do(http.MethodPost, "/store/abandoned-carts/cart-1/resend", otherKey, nil).Expect(t, 404)
	expectGraphQLCode(t, e, otherKey, "NOT_FOUND", map[string]any{"t": "cart-1"}, `mutation($t: String!) { resendAbandonedCart(token: $t) }`)
	if n := len(mailbox.Messages()); n != 4 {
		t.Fatalf("refusals mailed: %d messages", n)
	}

	checkAccess(t, e, s.ID, "abandoned", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "marketing:write", "orders:write")},
		nil, []apitest.Call{{Method: http.MethodPost, Path: "/store/abandoned-carts/cart-1/resend"}, {Method: http.MethodPost, Path: "/store/abandoned-checkouts/co-1/resend"}})
	if n := len(mailbox.Messages()); n != 4 {
		t.Fatalf("refused keys mailed: %d messages", n)
	}
	expectUnauthorized(t, e, s.ID, http.MethodPost, "/store/abandoned-carts/cart-1/resend", nil)
}

// TestRecoveryOutbox: without an SMTP server a reminder goes to the outbox
// (the whole message) and counts as out; its link works the same.
func TestRecoveryOutbox(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	t0 := time.Now().UTC().Truncate(time.Second)
	cart := abandoned(t, e, s.ID, models.RecoveryCart, "cart-1", "ana@example.com", t0)
	if n := runDue(t, e, t0.Add(61*time.Minute)); n != 1 {
		t.Fatalf("first step: %d", n)
	}
	ms := recoveryMessages(t, e, cart)
	if len(ms) != 1 || ms[0].Status != models.RecoveryOutboxed || recoveryEmails(t, e, cart) != 1 {
		t.Fatalf("outboxed: %+v", ms)
	}
	var box struct {
		StoreID int64  `bun:"store_id"`
		To      string `bun:"to_addr"`
		Subject string `bun:"subject"`
		Message []byte `bun:"message"`
	}
	if err := e.DB.NewRaw("SELECT store_id, to_addr, subject, message FROM mail_outbox").Scan(context.Background(), &box); err != nil {
		t.Fatal(err)
	}
	raw := strings.ReplaceAll(string(box.Message), "=\r\n", "")
	link := recoverLinkRe.FindString(strings.ReplaceAll(raw, "=3D", "="))
	if box.StoreID != s.ID || box.To != "ana@example.com" || box.Subject != ms[0].Subject || link == "" {
		t.Fatalf("outbox row: %d %s %q, link %q", box.StoreID, box.To, box.Subject, link)
	}
	if resp := follow(t, http.MethodGet, link); resp.StatusCode != 302 {
		t.Fatalf("outboxed link: %d", resp.StatusCode)
	}
}

// TestRecoveryCatchUp: steps that came due together (the service was
// down) go out as one, the latest; a step due over a day ago never goes.
func TestRecoveryCatchUp(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	t0 := time.Now().UTC().Truncate(time.Second)
	cart := abandoned(t, e, s.ID, models.RecoveryCart, "cart-1", "ana@example.com", t0)
	if n := runDue(t, e, t0.Add(1500*time.Minute)); n != 1 {
		t.Fatalf("two steps due: %d recorded, want 1", n)
	}
	if ms := recoveryMessages(t, e, cart); len(ms) != 1 || ms[0].Step != 2 {
		t.Fatalf("after catching up: %+v", ms)
	}
	late := abandoned(t, e, s.ID, models.RecoveryCart, "cart-2", "bea@example.com", t0)
	if n := runDue(t, e, t0.Add(1440*time.Minute+25*time.Hour)); n != 0 || len(recoveryMessages(t, e, late)) != 0 {
		t.Fatalf("a step due over a day ago: %d recorded", n)
	}
}
