package apitest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/geoip"
	"storeadmin/internal/base/geoip/geoiptest"
	"storeadmin/internal/storefront"
	"storeadmin/models"
)

const (
	chromeUA    = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	googlebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
)

// sfEvent is an event of visitor at t, with more fields.
func sfEvent(id, name, visitor string, t time.Time, more map[string]any) map[string]any {
	e := map[string]any{"id": id, "name": name, "visitor_id": visitor, "session_id": "cs-" + visitor, "time": t.UTC().Format(time.RFC3339Nano)}
	if name == "page_view" && more["path"] == nil {
		e["path"] = "/"
	}
	for k, v := range more {
		e[k] = v
	}
	return e
}

func sfBatch(events ...map[string]any) map[string]any { return map[string]any{"events": events} }

// sfSession is a stored session, as the columns ingestion writes.
type sfSession struct {
	ID              int64     `bun:"id"`
	SessionKey      string    `bun:"session_key"`
	ClientSessionID string    `bun:"client_session_id"`
	FirstSeenAt     time.Time `bun:"first_seen_at"`
	LastSeenAt      time.Time `bun:"last_seen_at"`
	LandingPath     *string   `bun:"landing_path"`
	Referrer        *string   `bun:"referrer"`
	UTM             *string   `bun:"utm"`
	ClickIDs        *string   `bun:"click_ids"`
	Browser         *string   `bun:"browser"`
	OS              *string   `bun:"os"`
	Device          *string   `bun:"device"`
	IsBot           bool      `bun:"is_bot"`
	IP              *string   `bun:"ip"`
	Country         *string   `bun:"country"`
	City            *string   `bun:"city"`
	Language        *string   `bun:"language"`
	ScreenW         *int      `bun:"screen_w"`
	PageViews       int       `bun:"page_views"`
	Events          int       `bun:"events"`
}

func sfSessions(t *testing.T, e *apitest.Env, storeID int64) []sfSession {
	t.Helper()
	var out []sfSession
	err := e.DB.NewRaw(`SELECT id, session_key, client_session_id, first_seen_at, last_seen_at, landing_path, referrer,
		utm::text, click_ids::text, browser, os, device, is_bot, host(ip) AS ip, country, city, language, screen_w, page_views, events
		FROM storefront_sessions WHERE store_id = ? ORDER BY first_seen_at, id`, storeID).Scan(context.Background(), &out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sfCount(t *testing.T, e *apitest.Env, table string, storeID int64) int {
	t.Helper()
	var n int
	if err := e.DB.NewRaw("SELECT count(*) FROM "+table+" WHERE store_id = ?", storeID).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// A batch is stored with its visitor and session, enriched with the user
// agent, the place of the address and the address as the policy keeps it;
// the same batch again is stored once.
func TestStorefrontEventsStoreABatch(t *testing.T) {
	geo := geoiptest.Write(t, map[string]geoip.Place{"203.0.113.0/24": {Country: "DE", Region: "Berlin", City: "Berlin"}})
	db, err := geoip.Open(geo)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := apitest.New(t, apitest.WithClientIPHeader("X-Forwarded-For"), apitest.WithStorefront(0, nil, db, storefront.IPTruncated))
	s := e.Store("Events Shop")
	key := e.PublishableKey(s.ID)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	device := map[string]any{"screen_w": 1920, "screen_h": 1080, "viewport_w": 1400, "viewport_h": 900, "language": "de-DE", "timezone": "Europe/Berlin"}
	batch := sfBatch(
		sfEvent("e1", "page_view", "v1", t0, map[string]any{"path": "/?utm_source=news", "referrer": "https://www.google.com/",
			"utm":       map[string]any{"source": "newsletter", "medium": "email", "campaign": "black-friday"},
			"click_ids": map[string]any{"gclid": "abc"}, "dwell_ms": 5200, "scroll_pct": 80, "device": device}),
		sfEvent("e2", "product_view", "v1", t0.Add(time.Minute), map[string]any{"product_id": 12, "product_title": "Linen shirt"}),
		sfEvent("e3", "search", "v1", t0.Add(2*time.Minute), map[string]any{"query": "shirt", "result_count": 4}),
		sfEvent("e4", "click", "v1", t0.Add(3*time.Minute), map[string]any{"element": map[string]any{"selector": "#buy", "text": "Buy"}}),
		sfEvent("e5", "add_to_cart", "v1", t0.Add(4*time.Minute), map[string]any{"variant_id": 7, "quantity": 2, "value_cents": 5998, "currency": "EUR", "cart_token": "c1"}),
		sfEvent("e6", "checkout_step", "v1", t0.Add(5*time.Minute), map[string]any{"step": "shipping", "checkout_token": "k1"}),
		sfEvent("e7", "page_view", "v1", t0.Add(6*time.Minute), map[string]any{"path": "/checkout"}),
	)
	hdr := map[string]string{"User-Agent": chromeUA, "X-Forwarded-For": "203.0.113.77"}
	r := e.Storefront(http.MethodPost, "/events", key, batch, hdr).Expect(t, http.StatusOK)
	if r.Body["received"] != 7.0 || r.Body["stored"] != 7.0 || r.Body["duplicates"] != 0.0 {
		t.Fatalf("answer: %s", r.Raw)
	}
	ss := sfSessions(t, e, s.ID)
	if len(ss) != 1 {
		t.Fatalf("sessions: %+v", ss)
	}
	got := ss[0]
	if !strings.HasPrefix(got.SessionKey, "ss_") || got.ClientSessionID != "cs-v1" || got.PageViews != 2 || got.Events != 7 ||
		str(got.LandingPath) != "/?utm_source=news" || str(got.Referrer) != "https://www.google.com/" ||
		!strings.Contains(str(got.UTM), `"utm_campaign": "black-friday"`) || !strings.Contains(str(got.ClickIDs), `"gclid": "abc"`) ||
		str(got.Browser) != "Chrome" || str(got.OS) != "Windows" || str(got.Device) != "desktop" || got.IsBot ||
		str(got.IP) != "203.0.113.0" || str(got.Country) != "DE" || str(got.City) != "Berlin" ||
		str(got.Language) != "de-DE" || got.ScreenW == nil || *got.ScreenW != 1920 {
		t.Fatalf("session: %+v utm %s ip %s", got, str(got.UTM), str(got.IP))
	}
	if !got.FirstSeenAt.Equal(t0) || !got.LastSeenAt.Equal(t0.Add(6*time.Minute)) {
		t.Fatalf("session times %s .. %s, want %s ..", got.FirstSeenAt, got.LastSeenAt, t0)
	}
	if n := sfCount(t, e, "visitors", s.ID); n != 1 {
		t.Fatalf("%d visitors", n)
	}

	// The tracker retries the batch (sendBeacon: text/plain, key in the
	// query): nothing is stored twice, the session's counts stay.
	r = e.Storefront(http.MethodPost, "/events?key="+key, "", batch, map[string]string{"Content-Type": "text/plain;charset=UTF-8", "User-Agent": chromeUA}).Expect(t, http.StatusOK)
	if r.Body["stored"] != 0.0 || r.Body["duplicates"] != 7.0 {
		t.Fatalf("retry: %s", r.Raw)
	}
	if again := sfSessions(t, e, s.ID); len(again) != 1 || again[0].Events != 7 || again[0].PageViews != 2 {
		t.Fatalf("after the retry: %+v", again)
	}
	if n := sfCount(t, e, "storefront_events", s.ID); n != 7 {
		t.Fatalf("%d events", n)
	}
	// Twice in one batch: the first copy counts.
	r = e.Storefront(http.MethodPost, "/events", key, sfBatch(
		sfEvent("e8", "page_view", "v1", t0.Add(7*time.Minute), nil),
		sfEvent("e8", "page_view", "v1", t0.Add(7*time.Minute), nil)), nil).Expect(t, http.StatusOK)
	if r.Body["stored"] != 1.0 || r.Body["duplicates"] != 1.0 {
		t.Fatalf("a batch with a copy: %s", r.Raw)
	}
}

// A visit ends after 30 idle minutes; events may come out of order and
// late, and join the visit they belong to.
func TestStorefrontEventsSessionisation(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Visits Shop")
	key := e.PublishableKey(s.ID)
	t0 := time.Now().Add(-5 * time.Hour).Truncate(time.Second)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

	// Out of order in one batch: 50' first, then 0' and 10'. 0'..10' is
	// one visit, 50' (40 idle minutes later) another.
	e.Storefront(http.MethodPost, "/events", key, sfBatch(
		sfEvent("a50", "page_view", "v", at(50), map[string]any{"path": "/later"}),
		sfEvent("a10", "product_view", "v", at(10), map[string]any{"product_id": 1}),
		sfEvent("a0", "page_view", "v", at(0), map[string]any{"path": "/first"}),
	), nil).Expect(t, http.StatusOK)
	ss := sfSessions(t, e, s.ID)
	if len(ss) != 2 || str(ss[0].LandingPath) != "/first" || ss[0].Events != 2 || str(ss[1].LandingPath) != "/later" || ss[1].Events != 1 {
		t.Fatalf("two visits: %+v", ss)
	}
	first, second := ss[0], ss[1]

	// An hour-late retry of a lost batch: 30' is within 30 minutes of
	// both visits; it joins the earlier one, and the visits stay two.
	// 25' alone (a page view before nothing) joins the first too.
	e.Storefront(http.MethodPost, "/events", key, sfBatch(
		sfEvent("a30", "page_view", "v", at(30), map[string]any{"path": "/bridge"}),
		sfEvent("a25", "click", "v", at(25), map[string]any{"element": map[string]any{"text": "More"}}),
	), nil).Expect(t, http.StatusOK)
	ss = sfSessions(t, e, s.ID)
	if len(ss) != 2 || ss[0].ID != first.ID || ss[0].Events != 4 || ss[0].PageViews != 2 ||
		!ss[0].LastSeenAt.Equal(at(30)) || str(ss[0].LandingPath) != "/first" || ss[1].ID != second.ID || ss[1].Events != 1 {
		t.Fatalf("late events: %+v", ss)
	}

	// A late page view before the first visit's start becomes its landing.
	e.Storefront(http.MethodPost, "/events", key, sfBatch(
		sfEvent("am5", "page_view", "v", at(-5), map[string]any{"path": "/ad", "utm": map[string]any{"source": "google"}}),
	), nil).Expect(t, http.StatusOK)
	ss = sfSessions(t, e, s.ID)
	if len(ss) != 2 || ss[0].ID != first.ID || str(ss[0].LandingPath) != "/ad" || !ss[0].FirstSeenAt.Equal(at(-5)) || !strings.Contains(str(ss[0].UTM), "google") {
		t.Fatalf("an earlier landing: %+v", ss[0])
	}

	// Far from both: a third visit; another visitor: its own.
	e.Storefront(http.MethodPost, "/events", key, sfBatch(
		sfEvent("a200", "page_view", "v", at(200), nil),
		sfEvent("w0", "page_view", "w", at(0), nil),
	), nil).Expect(t, http.StatusOK)
	if ss = sfSessions(t, e, s.ID); len(ss) != 4 {
		t.Fatalf("four visits: %+v", ss)
	}
	if n := sfCount(t, e, "visitors", s.ID); n != 2 {
		t.Fatalf("%d visitors", n)
	}
}

// Bots are flagged by their user agent.
func TestStorefrontEventsFlagBots(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Bots Shop")
	key := e.PublishableKey(s.ID)
	e.Storefront(http.MethodPost, "/events", key, sfBatch(sfEvent("b1", "page_view", "crawler", time.Now(), nil)),
		map[string]string{"User-Agent": googlebotUA}).Expect(t, http.StatusOK)
	ss := sfSessions(t, e, s.ID)
	if len(ss) != 1 || !ss[0].IsBot || str(ss[0].Device) != "bot" || str(ss[0].Browser) != "Googlebot" {
		t.Fatalf("a bot's session: %+v", ss)
	}
}

// Wrong keys are 401; a wrong batch is refused whole with 400 naming the
// field, a body too large 413, another media type 415: nothing is stored.
func TestStorefrontEventsRefused(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Refusing Shop")
	key := e.PublishableKey(s.ID)
	ok := sfBatch(sfEvent("x1", "page_view", "v", time.Now(), nil))

	e.Storefront(http.MethodPost, "/events", "", ok, nil).Expect(t, http.StatusUnauthorized)
	e.Storefront(http.MethodPost, "/events", e.Key(s.ID, auth.RoleAdmin), ok, nil).Expect(t, http.StatusUnauthorized)
	revoked := e.PublishableKey(s.ID)
	var revokedID int64
	if err := e.DB.NewRaw("SELECT max(id) FROM api_keys WHERE store_id = ? AND role = 'publishable'", s.ID).Scan(context.Background(), &revokedID); err != nil {
		t.Fatal(err)
	}
	if _, err := models.RevokeAPIKey(context.Background(), e.DB, s.ID, revokedID); err != nil {
		t.Fatal(err)
	}
	e.Storefront(http.MethodPost, "/events", revoked, ok, nil).Expect(t, http.StatusUnauthorized)

	now := time.Now()
	many := make([]map[string]any, storefront.MaxBatch+1)
	for i := range many {
		many[i] = sfEvent(fmt.Sprint("m", i), "page_view", "v", now, nil)
	}
	good := func(i int) map[string]any { return sfEvent(fmt.Sprint("g", i), "page_view", "v", now, nil) }
	for _, c := range []struct {
		body  any
		field string
	}{
		{`{"events": [`, ""},
		{`[]`, ""},
		{map[string]any{"events": []any{}}, "events"},
		{map[string]any{"events": many}, "events"},
		{map[string]any{"events": []any{good(0)}, "store_id": s.ID}, "store_id"},
		{sfBatch(good(0), good(1), good(2), sfEvent("p", "page_view", "v", now, map[string]any{"path": "no-slash"})), "events[3].path"},
		{sfBatch(good(0), sfEvent("p", "page_view", "v", now, map[string]any{"session": "s"})), "events[1].session"},
		{sfBatch(sfEvent("p", "teleport", "v", now, nil)), "events[0].name"},
		{sfBatch(sfEvent("p", "page_view", "v", now.Add(time.Hour), nil)), "events[0].time"},
		{sfBatch(sfEvent("p", "page_view", "v", now.Add(-30*24*time.Hour), nil)), "events[0].time"},
		{sfBatch(sfEvent("p", "page_view", "", now, nil)), "events[0].visitor_id"},
		{sfBatch(sfEvent("", "page_view", "v", now, nil)), "events[0].id"},
		{sfBatch(sfEvent("p", "page_view", "v", now, map[string]any{"scroll_pct": 101})), "events[0].scroll_pct"},
		{sfBatch(sfEvent("p", "page_view", "v", now, map[string]any{"dwell_ms": "long"})), "events[0].dwell_ms"},
		{sfBatch(sfEvent("p", "page_view", "v", now, map[string]any{"utm": map[string]any{"sauce": "x"}})), "events[0].utm.sauce"},
		{sfBatch(sfEvent("p", "search", "v", now, nil)), "events[0].query"},
		{sfBatch(sfEvent("p", "product_view", "v", now, nil)), "events[0].product_id"},
		{sfBatch(sfEvent("p", "checkout_step", "v", now, nil)), "events[0].step"},
		{sfBatch(sfEvent("p", "add_to_cart", "v", now, map[string]any{"product_id": 1, "currency": "eur"})), "events[0].currency"},
		{sfBatch(sfEvent("p", "page_view", "v", now, map[string]any{"device": map[string]any{"timezone": "Mars/Olympus"}})), "events[0].device.timezone"},
		{sfBatch(sfEvent("p", "page_view", "v", now, map[string]any{"referrer": "javascript:alert(1)"})), "events[0].referrer"},
		{sfBatch(sfEvent("p", "page_view", "v", now, map[string]any{"path": "/\u0000"})), "events[0].path"},
		{sfBatch(sfEvent("p", "page_view", "v", now, map[string]any{"path": "/" + strings.Repeat("a", 3000)})), "events[0].path"},
	} {
		r := e.Storefront(http.MethodPost, "/events", key, c.body, nil).Expect(t, http.StatusBadRequest)
		if got, _ := r.Body["field"].(string); got != c.field {
			t.Errorf("%.120v: field %q, want %q: %s", c.body, got, c.field, r.Raw)
		}
	}
	big := `{"events": [{"id": "big", "name": "page_view", "visitor_id": "v", "time": "` + now.UTC().Format(time.RFC3339) + `", "path": "/` + strings.Repeat("a", 1<<20) + `"}]}`
	e.Storefront(http.MethodPost, "/events", key, big, nil).Expect(t, http.StatusRequestEntityTooLarge)
	e.Storefront(http.MethodPost, "/events", key, ok, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}).Expect(t, http.StatusUnsupportedMediaType)
	e.Storefront(http.MethodGet, "/events", key, nil, nil).Expect(t, http.StatusMethodNotAllowed)
	if n := sfCount(t, e, "storefront_events", s.ID); n != 0 {
		t.Fatalf("refused batches stored %d events", n)
	}
	if n := sfCount(t, e, "visitors", s.ID); n != 0 {
		t.Fatalf("refused batches made %d visitors", n)
	}
}

// A batch naming another store's visitor and session lands in the key's
// store alone: ids from the browser are only ever looked up in it.
func TestStorefrontEventsStayInTheirStore(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Shop A"), e.Store("Shop B")
	keyA, keyB := e.PublishableKey(a.ID), e.PublishableKey(b.ID)
	now := time.Now()
	e.Storefront(http.MethodPost, "/events", keyA, sfBatch(sfEvent("same-id", "page_view", "shared", now, nil)), nil).Expect(t, http.StatusOK)
	sa := sfSessions(t, e, a.ID)
	// B's batch names A's visitor, client session, event id and even A's
	// session key as its session id.
	forged := sfEvent("same-id", "page_view", "shared", now, nil)
	forged["session_id"] = sa[0].SessionKey
	r := e.Storefront(http.MethodPost, "/events", keyB, sfBatch(forged), nil).Expect(t, http.StatusOK)
	if r.Body["stored"] != 1.0 {
		t.Fatalf("B's event: %s", r.Raw)
	}
	if got := sfSessions(t, e, a.ID); len(got) != 1 || got[0].Events != 1 {
		t.Fatalf("A's sessions changed: %+v", got)
	}
	sb := sfSessions(t, e, b.ID)
	if len(sb) != 1 || sb[0].ID == sa[0].ID || sb[0].SessionKey == sa[0].SessionKey {
		t.Fatalf("B's sessions: %+v", sb)
	}
	var crossed int
	if err := e.DB.NewRaw(`SELECT count(*) FROM storefront_events e JOIN storefront_sessions s ON s.id = e.session_id
		JOIN visitors v ON v.id = e.visitor_id WHERE e.store_id <> s.store_id OR e.store_id <> v.store_id`).Scan(context.Background(), &crossed); err != nil {
		t.Fatal(err)
	}
	if crossed != 0 {
		t.Fatalf("%d events in another store's session or visitor", crossed)
	}
}

// The surface's own CORS: a preflight is granted to any origin for the
// surface's methods and headers; the request itself only from the store's
// active domains and the configured origins. The admin API's "*" never
// applies here.
func TestStorefrontEventsCORS(t *testing.T) {
	e := apitest.New(t, apitest.WithStorefront(0, []string{"http://localhost:3000"}, nil, ""))
	s := e.Store("Cors Shop")
	key := e.PublishableKey(s.ID)
	ctx := context.Background()
	for host, status := range map[string]string{"shop.example": "active", "pending.example": "pending"} {
		if _, err := e.DB.NewRaw("INSERT INTO domains (store_id, hostname, status, verification_token) VALUES (?, ?, ?, 't')", s.ID, host, status).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	pre := e.Storefront(http.MethodOptions, "/events", "", nil, map[string]string{"Origin": "https://anywhere.example",
		"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type, x-storefront-key"})
	if pre.Status != http.StatusNoContent || pre.Header.Get("Access-Control-Allow-Origin") != "https://anywhere.example" ||
		!strings.Contains(pre.Header.Get("Access-Control-Allow-Headers"), storefront.KeyHeader) ||
		strings.Contains(pre.Header.Get("Access-Control-Allow-Methods"), "DELETE") {
		t.Fatalf("preflight: %d %v", pre.Status, pre.Header)
	}
	n := 0
	post := func(origin string, status int) *apitest.Response {
		n++
		return e.Storefront(http.MethodPost, "/events", key, sfBatch(sfEvent(fmt.Sprint("c", n), "page_view", "v", time.Now(), nil)),
			map[string]string{"Origin": origin}).Expect(t, status)
	}
	for _, origin := range []string{"https://shop.example", "http://localhost:3000"} {
		if r := post(origin, http.StatusOK); r.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Fatalf("%s: Access-Control-Allow-Origin %q", origin, r.Header.Get("Access-Control-Allow-Origin"))
		}
	}
	for _, origin := range []string{"https://evil.example", "https://pending.example", "https://shop.example:8443", "null"} {
		if r := post(origin, http.StatusForbidden); r.Header.Get("Access-Control-Allow-Origin") == "*" {
			t.Fatalf("%s: the admin API's CORS answered", origin)
		}
	}
	// Without Origin (a server, curl) CORS does not apply.
	if r := e.Storefront(http.MethodGet, "/config", key, nil, nil).Expect(t, http.StatusOK); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("no Origin, yet %q", r.Header.Get("Access-Control-Allow-Origin"))
	}
}

// Each shopper address has its budget; another address has its own.
func TestStorefrontEventsRateLimit(t *testing.T) {
	e := apitest.New(t, apitest.WithClientIPHeader("X-Forwarded-For"), apitest.WithStorefront(3, nil, nil, ""))
	s := e.Store("Busy Shop")
	key := e.PublishableKey(s.ID)
	send := func(ip string, i int) *apitest.Response {
		return e.Storefront(http.MethodPost, "/events", key, sfBatch(sfEvent(fmt.Sprint(ip, i), "page_view", "v", time.Now(), nil)),
			map[string]string{"X-Forwarded-For": ip})
	}
	for i := range 3 {
		send("198.51.100.1", i).Expect(t, http.StatusOK)
	}
	if r := send("198.51.100.1", 3).Expect(t, http.StatusTooManyRequests); r.Header.Get("Retry-After") == "" {
		t.Fatalf("429 without Retry-After: %v", r.Header)
	}
	send("198.51.100.2", 0).Expect(t, http.StatusOK)
}

// A store whose storefront is off, or which is closed, takes nothing.
func TestStorefrontEventsSwitchedOff(t *testing.T) {
	e := apitest.New(t)
	off, closed := e.Store("Off Shop"), e.Store("Closed Shop")
	offKey, closedKey := e.PublishableKey(off.ID), e.PublishableKey(closed.ID)
	ctx := context.Background()
	off.StorefrontEnabled = false
	if err := models.UpdateStore(ctx, e.DB, off, "storefront_enabled"); err != nil {
		t.Fatal(err)
	}
	if _, err := models.CloseStore(ctx, e.DB, closed.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{offKey, closedKey} {
		r := e.Storefront(http.MethodPost, "/events", k, sfBatch(sfEvent("o", "page_view", "v", time.Now(), nil)), nil).Expect(t, http.StatusForbidden)
		if !strings.Contains(r.Message(), "switched off") {
			t.Fatalf("message: %s", r.Raw)
		}
	}
	if n := sfCount(t, e, "storefront_events", off.ID) + sfCount(t, e, "storefront_events", closed.ID); n != 0 {
		t.Fatalf("%d events stored", n)
	}
}

// BenchmarkStorefrontEvents posts batches of 50 events (5 visitors, 10
// each, a visit that goes on) over HTTP, as trackers do, and reports
// events per second.
//
//	go test ./internal/app/apitest/ -run '^$' -bench StorefrontEvents
func BenchmarkStorefrontEvents(b *testing.B) {
	e := apitest.New(b, apitest.WithStorefront(1<<30, nil, nil, ""))
	s := e.Store("Bench Events")
	key := e.PublishableKey(s.ID)
	client := &http.Client{}
	start := time.Now().Add(-6 * 24 * time.Hour)
	batch := 0
	b.ResetTimer()
	for b.Loop() {
		events := make([]map[string]any, 50)
		for i := range events {
			n := batch*50 + i
			visitor := fmt.Sprint("v", (batch%200)*5+i%5)
			events[i] = sfEvent(fmt.Sprint("b", n), "page_view", visitor, start.Add(time.Duration(batch)*time.Second+time.Duration(i)*time.Millisecond),
				map[string]any{"path": fmt.Sprint("/products/p-", n%300), "utm": map[string]any{"source": "google", "medium": "cpc"},
					"device": map[string]any{"screen_w": 390, "screen_h": 844, "language": "en-US", "timezone": "America/New_York"}})
		}
		body, _ := json.Marshal(sfBatch(events...))
		batch++
		req, _ := http.NewRequest(http.MethodPost, e.URL+"/storefront/v1/events", bytes.NewReader(body))
		req.Header.Set("Content-Type", "text/plain")
		req.Header.Set(storefront.KeyHeader, key)
		req.Header.Set("User-Agent", chromeUA)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.ReportMetric(float64(batch*50)/b.Elapsed().Seconds(), "events/s")
}
