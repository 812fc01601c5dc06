package apitest_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// ssView fails unless v is an object with exactly fields, each written
// "name type" in the spec's legend (s, i, b, ts, obj, any, s[]; a trailing ?
// marks a field that may be absent or null). It returns the object.
func ssView(t *testing.T, what string, v any, fields ...string) map[string]any {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: want an object, got %T %v", what, v, v)
	}
	want := map[string]bool{}
	for _, f := range fields {
		name, typ, _ := strings.Cut(f, " ")
		optional := strings.HasSuffix(typ, "?")
		typ = strings.TrimSuffix(typ, "?")
		want[name] = true
		val, present := obj[name]
		switch {
		case !present && optional:
		case !present:
			t.Fatalf("%s lacks %s: %v", what, name, obj)
		case val == nil && (optional || typ == "any"):
		case !ssTypeOK(typ, val):
			t.Fatalf("%s.%s is %T %v, want type %s", what, name, val, val, typ)
		}
	}
	for k := range obj {
		if !want[k] {
			t.Fatalf("%s has field %s, which its view does not name: %v", what, k, obj)
		}
	}
	return obj
}

func ssTypeOK(typ string, v any) bool {
	switch typ {
	case "any":
		return true
	case "s":
		_, ok := v.(string)
		return ok
	case "b":
		_, ok := v.(bool)
		return ok
	case "i":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "ts":
		s, ok := v.(string)
		if !ok {
			return false
		}
		_, err := time.Parse(time.RFC3339Nano, s)
		return err == nil
	case "obj":
		_, ok := v.(map[string]any)
		return ok
	case "s[]":
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, x := range l {
			if _, ok := x.(string); !ok {
				return false
			}
		}
		return true
	}
	panic("ssTypeOK: unknown type " + typ)
}

// ssTotal is the total of a list answer, failing unless it is an integer.
func ssTotal(t *testing.T, r *apitest.Response) int {
	t.Helper()
	f, ok := r.Body["total"].(float64)
	if !ok || f != math.Trunc(f) {
		t.Fatalf("total must be an integer: %s", r.Raw)
	}
	return int(f)
}

// ssSettingNames lists the settings of a list answer as namespace.key,
// checking each row against StoreSettingView.
func ssSettingNames(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	var out []string
	for i, row := range r.List("settings") {
		s := ssView(t, fmt.Sprintf("settings[%d]", i), row, "key s", "namespace s", "value any")
		out = append(out, s["namespace"].(string)+"."+s["key"].(string))
	}
	return out
}

// ssSettingValues maps namespace.key to the value, for a list answer.
func ssSettingValues(t *testing.T, r *apitest.Response) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, row := range r.List("settings") {
		s := row.(map[string]any)
		out[s["namespace"].(string)+"."+s["key"].(string)] = s["value"]
	}
	return out
}

func settingBody(ns, key string, value any) map[string]any {
	return map[string]any{"namespace": ns, "key": key, "value": value}
}

func TestSettingsPutCreatesThenReplaces(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)

	values := map[string]any{
		"object":  map[string]any{"color": "red", "sizes": []any{float64(1), float64(2)}, "nested": map[string]any{"on": true}},
		"number":  42.5,
		"integer": float64(7),
		"string":  "hello",
		"true":    true,
		"false":   false,
		"array":   []any{"a", float64(1), nil},
	}
	for key, v := range values {
		r := e.Do(http.MethodPut, "/store/settings", admin, settingBody("theme", key, v)).Expect(t, 200)
		if len(r.Body) != 2 {
			t.Fatalf("PUT /store/settings must answer status and setting only: %s", r.Raw)
		}
		ref := ssView(t, "setting", r.Body["setting"], "key s", "namespace s")
		if ref["key"] != key || ref["namespace"] != "theme" {
			t.Fatalf("setting ref: %s", r.Raw)
		}
	}

	list := e.Do(http.MethodGet, "/store/settings", admin, nil).Expect(t, 200)
	if len(list.Body) != 3 {
		t.Fatalf("GET /store/settings must answer status, settings and total: %s", list.Raw)
	}
	if n := ssTotal(t, list); n != len(values) {
		t.Fatalf("total %d, want %d", n, len(values))
	}
	got := ssSettingValues(t, list)
	ssSettingNames(t, list)
	for key, v := range values {
		if !reflect.DeepEqual(got["theme."+key], v) {
			t.Fatalf("value of theme.%s read back as %#v, want %#v", key, got["theme."+key], v)
		}
	}
	e.SameOnGraphQL(t, list, admin, "ListStoreSettings", nil)

	// A second PUT replaces the value (even with one of another type) and
	// adds no row.
	replaced := e.Do(http.MethodPut, "/store/settings", admin, settingBody("theme", "object", "now a string")).Expect(t, 200)
	if replaced.Obj("setting")["key"] != "object" {
		t.Fatalf("replace: %s", replaced.Raw)
	}
	e.Do(http.MethodPut, "/store/settings", admin, settingBody("theme", "number", map[string]any{"was": "a number"})).Expect(t, 200)
	list = e.Do(http.MethodGet, "/store/settings", admin, nil).Expect(t, 200)
	if n := ssTotal(t, list); n != len(values) {
		t.Fatalf("after replacing, total %d, want %d", n, len(values))
	}
	got = ssSettingValues(t, list)
	if got["theme.object"] != "now a string" || !reflect.DeepEqual(got["theme.number"], map[string]any{"was": "a number"}) {
		t.Fatalf("replaced values: %s", list.Raw)
	}

	// The write is the same on GraphQL, and what it writes REST reads.
	put := e.Do(http.MethodPut, "/store/settings", admin, settingBody("checkout", "tipping", map[string]any{"enabled": true})).Expect(t, 200)
	e.SameOnGraphQL(t, put, admin, "PutStoreSetting", map[string]any{"input": settingBody("checkout", "tipping", map[string]any{"enabled": true})})
	g := e.GraphQL(admin, `mutation($in: StoreSettingInput!) { putStoreSetting(input: $in) { key namespace } }`,
		map[string]any{"in": settingBody("checkout", "rounding", float64(5))})
	if g.Body["errors"] != nil || g.Data()["putStoreSetting"].(map[string]any)["key"] != "rounding" {
		t.Fatalf("putStoreSetting over GraphQL: %s", g.Raw)
	}
	ns := e.Do(http.MethodGet, "/store/settings?namespace=checkout", admin, nil).Expect(t, 200)
	if ssTotal(t, ns) != 2 || !reflect.DeepEqual(ssSettingValues(t, ns), map[string]any{
		"checkout.rounding": float64(5), "checkout.tipping": map[string]any{"enabled": true},
	}) {
		t.Fatalf("checkout settings: %s", ns.Raw)
	}
	e.SameOnGraphQL(t, ns, admin, "ListStoreSettings", map[string]any{"namespace": "checkout"})
}

func TestSettingsListPagingAndFilter(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleStaff, "settings:read")
	ctx := context.Background()

	// 55 settings: more than a default page. 40 in "shipping", 15 in "tax".
	var want []string
	for i := 0; i < 55; i++ {
		ns := "shipping"
		if i >= 40 {
			ns = "tax"
		}
		k := fmt.Sprintf("k%02d", i)
		if err := models.PutSetting(ctx, e.DB, &models.StoreSetting{StoreID: s.ID, Namespace: ns, Key: k, Value: i}); err != nil {
			t.Fatal(err)
		}
		want = append(want, ns+"."+k)
	}

	all := e.Do(http.MethodGet, "/store/settings", key, nil).Expect(t, 200)
	if ssTotal(t, all) != 55 || len(all.List("settings")) != models.DefaultLimit {
		t.Fatalf("first page without limit: %d rows, total %d", len(all.List("settings")), ssTotal(t, all))
	}
	e.SameOnGraphQL(t, all, key, "ListStoreSettings", nil)

	// Pages of 20 walk the whole list in order, and total ignores paging.
	var walked []string
	for offset := 0; offset < 70; offset += 20 {
		path := "/store/settings?limit=20&offset=" + strconv.Itoa(offset)
		p := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
		if ssTotal(t, p) != 55 {
			t.Fatalf("%s: total %d, want 55", path, ssTotal(t, p))
		}
		rows := ssSettingNames(t, p)
		wantRows := min(20, max(0, 55-offset))
		if len(rows) != wantRows {
			t.Fatalf("%s: %d rows, want %d", path, len(rows), wantRows)
		}
		walked = append(walked, rows...)
		e.SameOnGraphQL(t, p, key, "ListStoreSettings", map[string]any{"limit": 20, "offset": offset})
	}
	if !reflect.DeepEqual(walked, want) {
		t.Fatalf("pages walk\n%v\nwant\n%v", walked, want)
	}

	// The namespace filter narrows rows and total alike.
	tax := e.Do(http.MethodGet, "/store/settings?namespace=tax&limit=10&offset=10", key, nil).Expect(t, 200)
	if ssTotal(t, tax) != 15 || !reflect.DeepEqual(ssSettingNames(t, tax), want[50:]) {
		t.Fatalf("tax page 2: %s", tax.Raw)
	}
	e.SameOnGraphQL(t, tax, key, "ListStoreSettings", map[string]any{"namespace": "tax", "limit": 10, "offset": 10})
	none := e.Do(http.MethodGet, "/store/settings?namespace=nothing-here", key, nil).Expect(t, 200)
	if ssTotal(t, none) != 0 || len(none.List("settings")) != 0 {
		t.Fatalf("unknown namespace: %s", none.Raw)
	}

	for _, bad := range []string{"limit=0", "limit=251", "limit=ten", "offset=-1", "offset=x"} {
		e.Do(http.MethodGet, "/store/settings?"+bad, key, nil).Expect(t, 400)
	}
}

func TestSettingsAccess(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	body := settingBody("theme", "color", "red")

	expectUnauthorized(t, e, s.ID, http.MethodGet, "/store/settings", nil)
	expectUnauthorized(t, e, s.ID, http.MethodPut, "/store/settings", body)

	for _, c := range []struct {
		name     string
		key      string
		get, put int
	}{
		{"admin, no scopes", e.Key(s.ID, auth.RoleAdmin), 200, 200},
		{"admin, settings:write", e.Key(s.ID, auth.RoleAdmin, "settings:write"), 200, 200},
		{"admin, settings:read", e.Key(s.ID, auth.RoleAdmin, "settings:read"), 200, 403},
		{"admin, store:write", e.Key(s.ID, auth.RoleAdmin, "store:write"), 403, 403},
		{"admin, webhooks:read and staff:write", e.Key(s.ID, auth.RoleAdmin, "webhooks:read", "staff:write"), 403, 403},
		{"staff, no scopes", e.Key(s.ID, auth.RoleStaff), 200, 403},
		{"staff, settings:write", e.Key(s.ID, auth.RoleStaff, "settings:write"), 200, 403},
		{"staff, store:read", e.Key(s.ID, auth.RoleStaff, "store:read"), 403, 403},
	} {
		if r := e.Do(http.MethodGet, "/store/settings", c.key, nil); r.Status != c.get {
			t.Fatalf("%s: GET status %d, want %d: %s", c.name, r.Status, c.get, r.Raw)
		} else {
			r.Expect(t, c.get)
		}
		if r := e.Do(http.MethodPut, "/store/settings", c.key, body); r.Status != c.put {
			t.Fatalf("%s: PUT status %d, want %d: %s", c.name, r.Status, c.put, r.Raw)
		} else {
			r.Expect(t, c.put)
		}
	}

	// GraphQL applies the same gates.
	readOnly := e.Key(s.ID, auth.RoleAdmin, "settings:read")
	g := e.GraphQL(readOnly, `mutation { putStoreSetting(input: {namespace: "a", key: "b", value: 1}) { key } }`, nil)
	if g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("putStoreSetting with settings:read: %s", g.Raw)
	}
	g = e.GraphQL(e.Key(s.ID, auth.RoleAdmin, "store:read"), `{ storeSettings { key } }`, nil)
	if g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("storeSettings with store:read: %s", g.Raw)
	}
	g = e.GraphQL(revokedKey(t, e, s.ID), `{ storeSettings { key } }`, nil)
	if g.Status != 401 || g.ErrorCode() != "UNAUTHENTICATED" {
		t.Fatalf("storeSettings with a revoked key: %d %s", g.Status, g.Raw)
	}

	// Refused writes wrote nothing; the allowed ones wrote one setting.
	r := e.Do(http.MethodGet, "/store/settings", e.Key(s.ID, auth.RoleAdmin), nil).Expect(t, 200)
	if ssTotal(t, r) != 1 {
		t.Fatalf("settings after the access checks: %s", r.Raw)
	}
}

func TestSettingsInvalidInput(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)

	for name, bad := range map[string]any{
		"broken JSON":          `{"namespace": "theme", "key": `,
		"two JSON values":      `{"namespace": "theme", "key": "a", "value": 1} {}`,
		"an array body":        `[{"namespace": "theme", "key": "a", "value": 1}]`,
		"a string body":        `"theme.a"`,
		"no body":              nil,
		"empty object":         map[string]any{},
		"namespace missing":    map[string]any{"key": "a", "value": 1},
		"key missing":          map[string]any{"namespace": "theme", "value": 1},
		"namespace null":       map[string]any{"namespace": nil, "key": "a", "value": 1},
		"namespace an object":  map[string]any{"namespace": map[string]any{"x": 1}, "key": "a", "value": 1},
		"key a list":           map[string]any{"namespace": "theme", "key": []any{"a"}, "value": 1},
		"key a bool":           map[string]any{"namespace": "theme", "key": true, "value": 1},
		"namespace empty":      settingBody("", "a", 1),
		"namespace uppercase":  settingBody("Theme", "a", 1),
		"namespace spaces":     settingBody("my theme", "a", 1),
		"namespace padded":     settingBody(" theme", "a", 1),
		"namespace too long":   settingBody(strings.Repeat("n", 65), "a", 1),
		"namespace slash":      settingBody("theme/dark", "a", 1),
		"namespace non-ASCII":  settingBody("thème", "a", 1),
		"key empty":            settingBody("theme", "", 1),
		"key spaces":           settingBody("theme", "primary color", 1),
		"key too long":         settingBody("theme", strings.Repeat("k", 129), 1),
		"key non-ASCII":        settingBody("theme", "couleur-é", 1),
		"key with a colon":     settingBody("theme", "a:b", 1),
		"value over 64 KiB":    settingBody("theme", "big", strings.Repeat("x", 64<<10)),
		"object over 64 KiB":   settingBody("theme", "big", map[string]any{"blob": strings.Repeat("x", 64<<10)}),
		"value list too large": settingBody("theme", "big", strings.Split(strings.Repeat("ab,", 22<<10), ",")),
	} {
		r := e.Do(http.MethodPut, "/store/settings", admin, bad)
		if r.Status != 400 {
			t.Fatalf("%s: status %d, want 400; body: %.300s", name, r.Status, r.Raw)
		}
		r.Expect(t, 400)
	}
	// A body over 1 MiB is refused before it is read as JSON: 413.
	e.Do(http.MethodPut, "/store/settings", admin, settingBody("theme", "huge", strings.Repeat("x", 1<<20))).Expect(t, http.StatusRequestEntityTooLarge)

	// The limits themselves are allowed.
	for name, ok := range map[string]any{
		"namespace of 64":    settingBody(strings.Repeat("n", 64), "a", 1),
		"key of 128":         settingBody("theme", strings.Repeat("k", 128), 1),
		"value of 64 KiB":    settingBody("theme", "big", strings.Repeat("x", 64<<10-2)), // the quotes make 65536 bytes
		"dots dashes digits": settingBody("app.v2_beta-1", "0.max_items-per_page", 1),
	} {
		r := e.Do(http.MethodPut, "/store/settings", admin, ok)
		if r.Status != 200 {
			t.Fatalf("%s: status %d, want 200; body: %.300s", name, r.Status, r.Raw)
		}
	}
	r := e.Do(http.MethodGet, "/store/settings", admin, nil).Expect(t, 200)
	if ssTotal(t, r) != 4 {
		t.Fatalf("only the four valid settings may be stored, got %v", ssSettingNames(t, r))
	}
}

// A setting key may hold letters of either case (schema/settings.graphqls);
// it is kept as written.
func TestSettingsKeyKeepsCase(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	r := e.Do(http.MethodPut, "/store/settings", admin, settingBody("theme", "PrimaryColor", "red")).Expect(t, 200)
	if r.Obj("setting")["key"] != "PrimaryColor" {
		t.Fatalf("setting ref: %s", r.Raw)
	}
	l := e.Do(http.MethodGet, "/store/settings", admin, nil).Expect(t, 200)
	if !reflect.DeepEqual(ssSettingValues(t, l), map[string]any{"theme.PrimaryColor": "red"}) {
		t.Fatalf("settings: %s", l.Raw)
	}
}

// A number where the schema wants a String is a wrong type, not a string.
func TestSettingsRejectsNumbersForStrings(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	bad := []any{
		map[string]any{"namespace": 5, "key": "a", "value": 1},
		map[string]any{"namespace": "theme", "key": 12, "value": 1},
		`{"namespace": 1.5e3, "key": "a", "value": 1}`,
	}
	for _, b := range bad {
		r := e.Do(http.MethodPut, "/store/settings", admin, b)
		if r.Status != 400 {
			t.Fatalf("%v: status %d, want 400: %s", b, r.Status, r.Raw)
		}
		r.Expect(t, 400)
	}
	g := e.GraphQL(admin, `mutation($in: StoreSettingInput!) { putStoreSetting(input: $in) { key namespace } }`,
		map[string]any{"in": map[string]any{"namespace": 5, "key": "a", "value": 1}})
	if g.ErrorCode() == "" || g.Data()["putStoreSetting"] != nil {
		t.Fatalf("GraphQL input {namespace: 5}: %s", g.Raw)
	}
	if l := e.Do(http.MethodGet, "/store/settings", admin, nil).Expect(t, 200); ssTotal(t, l) != 0 {
		t.Fatalf("wrongly typed settings were stored: %s", l.Raw)
	}
}

// A setting needs a value (value: JSON! in the schema): missing or null is
// 400, not a 500 from the NOT NULL column; null inside a value is fine.
func TestSettingsValueRequired(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	for _, body := range []any{
		map[string]any{"namespace": "theme", "key": "missing"},
		map[string]any{"namespace": "theme", "key": "null", "value": nil},
	} {
		r := e.Do(http.MethodPut, "/store/settings", admin, body)
		if r.Status != 400 {
			t.Fatalf("%v: status %d, want 400: %s", body, r.Status, r.Raw)
		}
		r.Expect(t, 400)
	}
	e.Do(http.MethodPut, "/store/settings", admin, settingBody("theme", "inner-null", map[string]any{"a": nil})).Expect(t, 200)
	l := e.Do(http.MethodGet, "/store/settings", admin, nil).Expect(t, 200)
	if !reflect.DeepEqual(ssSettingValues(t, l), map[string]any{"theme.inner-null": map[string]any{"a": nil}}) {
		t.Fatalf("settings: %s", l.Raw)
	}
}

// 64 KiB is a bound on the JSON value; characters that Go's encoder escapes
// for HTML (<, >, &) must count as the one byte they are in the request.
func TestSettingsValueSizeCountsJSONBytes(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	v := strings.Repeat("<b>&amp;</b>", 2000) // 24,000 bytes of JSON string
	r := e.Do(http.MethodPut, "/store/settings", admin, settingBody("content", "banner", v))
	if r.Status != 200 {
		t.Fatalf("a 24 KB HTML value is refused as over 64 KiB: %d %s", r.Status, r.Raw)
	}
	l := e.Do(http.MethodGet, "/store/settings", admin, nil).Expect(t, 200)
	if ssSettingValues(t, l)["content.banner"] != v {
		t.Fatalf("HTML value not read back as written")
	}
}

func TestSettingsTenantIsolation(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Acme"), e.Store("Bolt")
	ka, kb := e.Key(a.ID, auth.RoleAdmin), e.Key(b.ID, auth.RoleAdmin)

	e.Do(http.MethodPut, "/store/settings", ka, settingBody("theme", "color", "red")).Expect(t, 200)
	e.Do(http.MethodPut, "/store/settings", kb, settingBody("theme", "color", "blue")).Expect(t, 200)
	e.Do(http.MethodPut, "/store/settings", kb, settingBody("bolt-only", "secret", "b's")).Expect(t, 200)

	ra := e.Do(http.MethodGet, "/store/settings", ka, nil).Expect(t, 200)
	if ssTotal(t, ra) != 1 || !reflect.DeepEqual(ssSettingValues(t, ra), map[string]any{"theme.color": "red"}) {
		t.Fatalf("store A sees: %s", ra.Raw)
	}
	e.SameOnGraphQL(t, ra, ka, "ListStoreSettings", nil)
	none := e.Do(http.MethodGet, "/store/settings?namespace=bolt-only", ka, nil).Expect(t, 200)
	if ssTotal(t, none) != 0 || len(none.List("settings")) != 0 {
		t.Fatalf("store A sees store B's namespace: %s", none.Raw)
	}

	// A's replace touches only A's row.
	e.Do(http.MethodPut, "/store/settings", ka, settingBody("theme", "color", "green")).Expect(t, 200)
	rb := e.Do(http.MethodGet, "/store/settings", kb, nil).Expect(t, 200)
	if ssTotal(t, rb) != 2 || !reflect.DeepEqual(ssSettingValues(t, rb), map[string]any{"theme.color": "blue", "bolt-only.secret": "b's"}) {
		t.Fatalf("store B after A's write: %s", rb.Raw)
	}
	e.SameOnGraphQL(t, rb, kb, "ListStoreSettings", nil)
	ra = e.Do(http.MethodGet, "/store/settings", ka, nil).Expect(t, 200)
	if !reflect.DeepEqual(ssSettingValues(t, ra), map[string]any{"theme.color": "green"}) {
		t.Fatalf("store A after its write: %s", ra.Raw)
	}
}

// A call closed to every key answers 403 whatever the request holds: a key
// cannot make it succeed by fixing its input, so the refusal comes first.
func TestStaffRefusalPrecedesBadInput(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin, "staff:write")
	e.ExpectEach(t, 403, map[string]string{"admin with the write scope": admin}, []apitest.Call{
		{http.MethodPost, "/store/members/invite", nil},
		{http.MethodPost, "/store/members/invite", map[string]any{}},
		{http.MethodPost, "/store/members/invite", `{"email": `},
		{http.MethodPut, "/store/members/5", map[string]any{}},
		{http.MethodPut, "/store/members/abc", map[string]any{"role": "admin"}},
		{http.MethodDelete, "/store/members/abc", nil},
	})
}

// addMember seeds a user and makes them a member of the store.
func addMember(t *testing.T, e *apitest.Env, storeID int64, email, name, role, status string) int64 {
	t.Helper()
	ctx := context.Background()
	u, _, err := models.EnsureUser(ctx, e.DB, email, name)
	if err != nil {
		t.Fatalf("ensure user: %v", err)
	}
	if err := models.AddMember(ctx, e.DB, &models.StoreMember{StoreID: storeID, UserID: u.ID, Role: role, Status: status}); err != nil {
		t.Fatalf("add member: %v", err)
	}
	return u.ID
}

func ssMembers(t *testing.T, e *apitest.Env, storeID int64) map[int64]models.StoreMember {
	t.Helper()
	ms, err := models.ListMembers(context.Background(), e.DB, storeID, models.Paging{Limit: models.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]models.StoreMember{}
	for _, m := range ms {
		out[m.UserID] = m
	}
	return out
}

func TestStaffListMembers(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	owner := addMember(t, e, s.ID, "olga@acme.test", "Olga Owner", "owner", models.MemberActive)
	admin := addMember(t, e, s.ID, "Adam@acme.test", "Adam Admin", "admin", models.MemberActive)
	staff1 := addMember(t, e, s.ID, "zoe@acme.test", "Zoe", "staff", models.MemberActive)
	staff2 := addMember(t, e, s.ID, "bea@acme.test", "", "staff", models.MemberInvited)
	staff3 := addMember(t, e, s.ID, "carl@acme.test", "Carl", "staff", models.MemberActive)
	// Adam is also staff of the other store, which has its own owner.
	if err := models.AddMember(context.Background(), e.DB, &models.StoreMember{StoreID: other.ID, UserID: admin, Role: "staff", Status: models.MemberActive}); err != nil {
		t.Fatal(err)
	}
	otherOwner := addMember(t, e, other.ID, "ivo@bolt.test", "Ivo", "owner", models.MemberActive)

	key := e.Key(s.ID, auth.RoleAdmin)
	r := e.Do(http.MethodGet, "/store/members", key, nil).Expect(t, 200)
	if len(r.Body) != 3 || ssTotal(t, r) != 5 {
		t.Fatalf("GET /store/members must answer status, members and total 5: %s", r.Raw)
	}
	type row struct {
		id                        int64
		email, name, role, status string
	}
	want := []row{ // owners first, then admins, then the rest by email
		{owner, "olga@acme.test", "Olga Owner", "owner", "active"},
		{admin, "Adam@acme.test", "Adam Admin", "admin", "active"},
		{staff2, "bea@acme.test", "", "staff", "invited"},
		{staff3, "carl@acme.test", "Carl", "staff", "active"},
		{staff1, "zoe@acme.test", "Zoe", "staff", "active"},
	}
	rows := r.List("members")
	if len(rows) != len(want) {
		t.Fatalf("members: %s", r.Raw)
	}
	for i, w := range want {
		m := ssView(t, fmt.Sprintf("members[%d]", i), rows[i], "email s", "name s", "role s", "status s", "user_id i")
		if m["user_id"] != float64(w.id) || m["email"] != w.email || m["name"] != w.name || m["role"] != w.role || m["status"] != w.status {
			t.Fatalf("members[%d] = %v, want %+v", i, m, w)
		}
	}
	e.SameOnGraphQL(t, r, key, "ListMembers", nil)

	// Paging: total ignores limit and offset.
	var walked []any
	for offset := 0; offset < 6; offset += 2 {
		p := e.Do(http.MethodGet, fmt.Sprintf("/store/members?limit=2&offset=%d", offset), key, nil).Expect(t, 200)
		if ssTotal(t, p) != 5 {
			t.Fatalf("offset %d: total %d", offset, ssTotal(t, p))
		}
		walked = append(walked, p.List("members")...)
		e.SameOnGraphQL(t, p, key, "ListMembers", map[string]any{"limit": 2, "offset": offset})
	}
	if !reflect.DeepEqual(walked, rows) {
		t.Fatalf("pages of 2 walk %v, want %v", walked, rows)
	}
	e.Do(http.MethodGet, "/store/members?limit=0", key, nil).Expect(t, 400)
	e.Do(http.MethodGet, "/store/members?offset=-3", key, nil).Expect(t, 400)

	// Another store's key sees only its own members, with its own roles.
	ro := e.Do(http.MethodGet, "/store/members", e.Key(other.ID, auth.RoleStaff, "staff:read"), nil).Expect(t, 200)
	if ssTotal(t, ro) != 2 || len(ro.List("members")) != 2 {
		t.Fatalf("other store's members: %s", ro.Raw)
	}
	for _, m := range ro.List("members") {
		m := m.(map[string]any)
		switch m["user_id"] {
		case float64(otherOwner):
		case float64(admin):
			if m["role"] != "staff" {
				t.Fatalf("Adam's role in the other store: %v", m)
			}
		default:
			t.Fatalf("other store lists a member it does not have: %v", m)
		}
	}

	// Access: r = staff:read, any role.
	expectUnauthorized(t, e, s.ID, http.MethodGet, "/store/members", nil)
	e.Do(http.MethodGet, "/store/members", e.Key(s.ID, auth.RoleStaff), nil).Expect(t, 200)
	e.Do(http.MethodGet, "/store/members", e.Key(s.ID, auth.RoleStaff, "staff:read"), nil).Expect(t, 200)
	e.Do(http.MethodGet, "/store/members", e.Key(s.ID, auth.RoleAdmin, "staff:write"), nil).Expect(t, 200)
	e.Do(http.MethodGet, "/store/members", e.Key(s.ID, auth.RoleAdmin, "settings:write", "store:read"), nil).Expect(t, 403)
	if g := e.GraphQL(e.Key(s.ID, auth.RoleAdmin, "store:read"), `{ members { user_id } membersCount }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("members with store:read over GraphQL: %s", g.Raw)
	}
}

func TestStaffWritesRefusedToEveryKey(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	addMember(t, e, s.ID, "olga@acme.test", "Olga", "owner", models.MemberActive)
	carl := addMember(t, e, s.ID, "carl@acme.test", "Carl", "staff", models.MemberActive)
	ivo := addMember(t, e, other.ID, "ivo@bolt.test", "Ivo", "staff", models.MemberActive)
	before, beforeOther := ssMembers(t, e, s.ID), ssMembers(t, e, other.ID)

	keys := map[string]string{
		"admin, no scopes":                    e.Key(s.ID, auth.RoleAdmin),
		"admin, staff:write":                  e.Key(s.ID, auth.RoleAdmin, "staff:write"),
		"admin, staff:read and staff:write":   e.Key(s.ID, auth.RoleAdmin, "staff:read", "staff:write"),
		"admin, every scope of the catalogue": keyWithAllScopes(t, e, s.ID),
		"staff, no scopes":                    e.Key(s.ID, auth.RoleStaff),
		"staff, staff:write":                  e.Key(s.ID, auth.RoleStaff, "staff:write"),
		"admin, store:read":                   e.Key(s.ID, auth.RoleAdmin, "store:read"),
	}
	calls := []apitest.Call{
		{http.MethodPost, "/store/members/invite", map[string]any{"email": "new@acme.test", "name": "New", "role": "staff"}},
		{http.MethodPost, "/store/members/invite", map[string]any{"email": "ivo@bolt.test", "role": "admin"}},
		{http.MethodPut, fmt.Sprintf("/store/members/%d", carl), map[string]any{"role": "admin"}},
		{http.MethodPut, fmt.Sprintf("/store/members/%d", ivo), map[string]any{"role": "admin"}},
		{http.MethodPut, "/store/members/987654", map[string]any{"role": "admin"}},
		{http.MethodDelete, fmt.Sprintf("/store/members/%d", carl), nil},
		{http.MethodDelete, fmt.Sprintf("/store/members/%d", ivo), nil},
		{http.MethodDelete, "/store/members/987654", nil},
	}
	e.ExpectEach(t, 403, keys, calls)
	for _, c := range calls[:1] {
		expectUnauthorized(t, e, s.ID, c.Method, c.Path, c.Body)
	}
	expectUnauthorized(t, e, s.ID, http.MethodPut, fmt.Sprintf("/store/members/%d", carl), map[string]any{"role": "admin"})
	expectUnauthorized(t, e, s.ID, http.MethodDelete, fmt.Sprintf("/store/members/%d", carl), nil)

	// GraphQL refuses the mutations to keys too.
	admin := keys["admin, staff:write"]
	for _, q := range []string{
		`mutation { inviteMember(input: {email: "new@acme.test", role: "staff"}) { added } }`,
		fmt.Sprintf(`mutation { updateMember(userId: %d, input: {role: "admin"}) }`, carl),
		fmt.Sprintf(`mutation { removeMember(userId: %d) }`, carl),
	} {
		if g := e.GraphQL(admin, q, nil); g.ErrorCode() != "FORBIDDEN" || g.Data()["inviteMember"] != nil {
			t.Fatalf("%s: %s", q, g.Raw)
		}
	}

	// Nothing changed, in either store, and no user was created.
	if after := ssMembers(t, e, s.ID); !reflect.DeepEqual(after, before) {
		t.Fatalf("members changed:\n%v\n%v", before, after)
	}
	if after := ssMembers(t, e, other.ID); !reflect.DeepEqual(after, beforeOther) {
		t.Fatalf("other store's members changed:\n%v\n%v", beforeOther, after)
	}
	if n, err := e.DB.NewSelect().Model((*models.User)(nil)).Where("lower(email) = ?", "new@acme.test").Count(context.Background()); err != nil || n != 0 {
		t.Fatalf("an invited user was created (%d, %v)", n, err)
	}
}
