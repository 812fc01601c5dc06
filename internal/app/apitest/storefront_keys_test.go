package apitest_test

import (
	"context"
	"net/http"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// A publishable storefront key opens only the storefront surface, and a
// secret API key never opens it: each is a 401 on the other's surface.
func TestStorefrontKeysOpenOnlyTheirSurface(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Keys Shop")
	pub := e.PublishableKey(s.ID)
	admin := e.Key(s.ID, auth.RoleAdmin)

	r := e.Do(http.MethodGet, "/store/orders", pub, nil).Expect(t, http.StatusUnauthorized)
	if r.Body["code"] != "UNAUTHENTICATED" {
		t.Fatalf("publishable key on the admin API: %s", r.Raw)
	}
	e.GraphQL(pub, `{ store { id } }`, nil).Expect(t, http.StatusUnauthorized)

	e.Storefront(http.MethodGet, "/config", admin, nil, nil).Expect(t, http.StatusUnauthorized)
	e.Storefront(http.MethodGet, "/config", "", nil, nil).Expect(t, http.StatusUnauthorized)
	e.Storefront(http.MethodGet, "/config", "sa_pub_madeup", nil, nil).Expect(t, http.StatusUnauthorized)
	e.Storefront(http.MethodGet, "/nothing", pub, nil, nil).Expect(t, http.StatusNotFound)
	if c := e.Storefront(http.MethodGet, "/config", pub, nil, nil).Expect(t, http.StatusOK); c.Obj("store")["handle"] != s.Handle {
		t.Fatalf("config: %s", c.Raw)
	}

	// Listed among the store's keys (the dashboard's list), and revoked
	// like any key.
	keys := akKeyRows(t, e, s.ID)
	var id int64
	for _, k := range keys {
		if k.Role == string(auth.RolePublishable) {
			id = k.ID
		}
	}
	if id == 0 {
		t.Fatalf("the publishable key is not listed: %+v", keys)
	}
	if _, err := models.RevokeAPIKey(context.Background(), e.DB, s.ID, id); err != nil {
		t.Fatal(err)
	}
	e.Storefront(http.MethodGet, "/config", pub, nil, nil).Expect(t, http.StatusUnauthorized)
}
