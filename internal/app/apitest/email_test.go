package apitest_test

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// emGet reads GET /store/email and returns its StoremailConfig.
func emGet(t *testing.T, e *apitest.Env, key string) (map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/email", key, nil).Expect(t, 200)
	expectPayload(t, r, "email")
	return checkObject(t, "email", r.Body["email"], map[string]string{"from_name": "s", "reply_to": "s"}), r
}

// emPut sends PUT /store/email and returns its StoremailConfig.
func emPut(t *testing.T, e *apitest.Env, key string, body any) (map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodPut, "/store/email", key, body).Expect(t, 200)
	expectPayload(t, r, "email")
	return checkObject(t, "email", r.Body["email"], map[string]string{"from_name": "s", "reply_to": "s"}), r
}

// TestEmailSettings: a store that never set them gets its name and contact
// email, following the profile; PUT sets the fields sent, per store.
func TestEmailSettings(t *testing.T) {
	e, s, key := newAcme(t)
	other := e.Store("Bolt")
	otherKey := e.Key(other.ID, auth.RoleAdmin)

	got, r := emGet(t, e, key)
	if !reflect.DeepEqual(got, map[string]any{"from_name": "Acme", "reply_to": ""}) {
		t.Fatalf("defaults: %v", got)
	}
	e.SameOnGraphQL(t, r, key, "GetEmailSettings", nil)
	// The defaults follow the profile until the store sets its own.
	e.Do(http.MethodPut, "/store", key, map[string]any{"name": "Acme Outdoor", "contact_email": "hello@acme.example"}).Expect(t, 200)
	if got, _ := emGet(t, e, key); !reflect.DeepEqual(got, map[string]any{"from_name": "Acme Outdoor", "reply_to": "hello@acme.example"}) {
		t.Fatalf("defaults after a profile change: %v", got)
	}

	// A field left out keeps its value (here, the default).
	got, r = emPut(t, e, key, map[string]any{"from_name": "  Acme Support  "})
	if !reflect.DeepEqual(got, map[string]any{"from_name": "Acme Support", "reply_to": "hello@acme.example"}) {
		t.Fatalf("PUT from_name: %v", got)
	}
	e.SameOnGraphQL(t, r, key, "UpdateEmailSettings", map[string]any{"input": map[string]any{"from_name": "Acme Support"}})
	expectAuditRecord(t, e, key, "action=updateEmailSettings&limit=1", "email_settings", s.ID)
	got, _ = emPut(t, e, key, map[string]any{"reply_to": "care@acme.example"})
	if !reflect.DeepEqual(got, map[string]any{"from_name": "Acme Support", "reply_to": "care@acme.example"}) {
		t.Fatalf("PUT reply_to: %v", got)
	}
	// Stored now: a profile change no longer moves them; a read sent back
	// is accepted; an empty reply_to is none.
	e.Do(http.MethodPut, "/store", key, map[string]any{"name": "Renamed"}).Expect(t, 200)
	if again, _ := emGet(t, e, key); !reflect.DeepEqual(again, got) {
		t.Fatalf("after a profile change: %v, want %v", again, got)
	}
	emPut(t, e, key, got)
	if got, _ := emPut(t, e, key, map[string]any{"reply_to": "", "from_name": "Ünïcode & Söns — Shop"}); got["reply_to"] != "" || got["from_name"] != "Ünïcode & Söns — Shop" {
		t.Fatalf("empty reply_to: %v", got)
	}
	if g := e.GraphQL(key, `mutation { updateEmailSettings(input: {reply_to: "team@acme.example"}) { from_name reply_to } }`, nil); !reflect.DeepEqual(g.Data()["updateEmailSettings"],
		map[string]any{"from_name": "Ünïcode & Söns — Shop", "reply_to": "team@acme.example"}) {
		t.Fatalf("GraphQL update: %s", g.Raw)
	}

	// A name stored with a line break (before the profile refused one)
	// becomes a one-line default sender.
	other.Name = "Bolt\r\nBcc: victim@example.com\u2028 Shop"
	if err := models.UpdateStore(context.Background(), e.DB, other, "name"); err != nil {
		t.Fatal(err)
	}
	if theirs, _ := emGet(t, e, otherKey); theirs["from_name"] != "Bolt Bcc: victim@example.com Shop" {
		t.Fatalf("a default from a two-line name: %q", theirs["from_name"])
	}
	e.Do(http.MethodPut, "/store/email", otherKey, map[string]any{"reply_to": "x@bolt.example"}).Expect(t, 200)
	if theirs, _ := emGet(t, e, otherKey); theirs["from_name"] != "Bolt Bcc: victim@example.com Shop" {
		t.Fatalf("a default stored from a two-line name: %q", theirs["from_name"])
	}
	other.Name = "Bolt"
	if err := models.UpdateStore(context.Background(), e.DB, other, "name"); err != nil {
		t.Fatal(err)
	}
	e.Do(http.MethodPut, "/store/email", otherKey, map[string]any{"from_name": "Bolt", "reply_to": ""}).Expect(t, 200)

	// The other store's are its own.
	if theirs, _ := emGet(t, e, otherKey); !reflect.DeepEqual(theirs, map[string]any{"from_name": "Bolt", "reply_to": ""}) {
		t.Fatalf("another store's settings: %v", theirs)
	}

	// Each rule: one line of at most 100 characters for the name (it goes
	// into the From header), one plain address for reply_to.
	before, _ := emGet(t, e, key)
	expectEach400(t, e, key, "PUT /store/email", http.MethodPut, "/store/email", map[string]any{
		"empty from_name":          map[string]any{"from_name": "   "},
		"from_name with CRLF":      map[string]any{"from_name": "Acme\r\nBcc: victim@example.com"},
		"from_name with LF":        map[string]any{"from_name": "Acme\nSupport"},
		"from_name with a tab":     map[string]any{"from_name": "Acme\tSupport"},
		"from_name with U+2028":    map[string]any{"from_name": "Acme\u2028Support"},
		"from_name with NEL":       map[string]any{"from_name": "Acme\u0085Support"},
		"from_name too long":       map[string]any{"from_name": strings.Repeat("a", 256)},
		"from_name not a string":   map[string]any{"from_name": 42},
		"reply_to not an address":  map[string]any{"reply_to": "not-an-email"},
		"reply_to display name":    map[string]any{"reply_to": "Acme <care@acme.example>"},
		"reply_to quoted name":     map[string]any{"reply_to": `"ceo@bank.example" <evil@attacker.example>`},
		"reply_to angle brackets":  map[string]any{"reply_to": "<care@acme.example>"},
		"reply_to comment":         map[string]any{"reply_to": "care@acme.example (Acme)"},
		"reply_to two addresses":   map[string]any{"reply_to": "care@acme.example, boss@acme.example"},
		"reply_to a group":         map[string]any{"reply_to": "team: care@acme.example;"},
		"reply_to with CRLF":       map[string]any{"reply_to": "care@acme.example\r\nBcc: victim@example.com"},
		"reply_to quoted local":    map[string]any{"reply_to": `"care team"@acme.example`},
		"reply_to too long":        map[string]any{"reply_to": strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63) + ".example"},
		"reply_to not a string":    map[string]any{"reply_to": true},
		"unknown field":            map[string]any{"from_name": "Acme", "sender": "x"},
		"not an object":            `["Acme"]`,
		"not JSON":                 `{"from_name": `,
		"with NUL":                 map[string]any{"from_name": "Acme\u0000"},
		"reply_to with a NUL byte": map[string]any{"reply_to": "care@acme.example\u0000"},
	})
	if g := e.GraphQL(key, `mutation { updateEmailSettings(input: {from_name: "a\nb"}) { from_name } }`, nil); g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("GraphQL two-line from_name: %s", g.Raw)
	}
	if after, _ := emGet(t, e, key); !reflect.DeepEqual(after, before) {
		t.Fatalf("a refused PUT changed the settings: %v, was %v", after, before)
	}
}

// TestEmailSettingsAccess: reads need email:read (any role), the PUT
// email:write and the admin role; a refused PUT changes nothing.
func TestEmailSettingsAccess(t *testing.T) {
	e, s, key := newAcme(t)
	checkAccess(t, e, s.ID, "email", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "forms:write", "store:write")},
		[]apitest.Call{{Method: http.MethodGet, Path: "/store/email"}},
		[]apitest.Call{{Method: http.MethodPut, Path: "/store/email", Body: map[string]any{"from_name": "Hijacked"}}})
	if got, _ := emGet(t, e, key); got["from_name"] != "Acme" {
		t.Fatalf("a refused PUT changed the settings: %v", got)
	}
	expectUnauthorized(t, e, s.ID, http.MethodPut, "/store/email", map[string]any{"from_name": "x"})
}
