package apitest_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"storeadmin/graph"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/loaders"
	"storeadmin/models"
	"storeadmin/resolvers"
	"storeadmin/rest"
)

// akMCPKey stores an AI-connector key of the store and returns its id.
func akMCPKey(t *testing.T, e *apitest.Env, storeID int64, name string) int64 {
	t.Helper()
	_, hash, hint := auth.NewSecret("mcp")
	p := models.MCPPresets[0]
	k := &models.MCPKey{StoreID: storeID, Name: name, Kind: "mcp", Preset: p.Key, Role: p.Role, Scopes: p.Scopes, SecretHash: hash, Hint: hint}
	if _, err := e.DB.NewInsert().Model(k).Returning("*").Exec(context.Background()); err != nil {
		t.Fatalf("insert MCP key: %v", err)
	}
	return k.ID
}

// akKeyRows reads every API key row of the store, newest first.
func akKeyRows(t *testing.T, e *apitest.Env, storeID int64) []models.APIKey {
	t.Helper()
	keys, err := models.ListAPIKeys(context.Background(), e.DB, storeID, models.Paging{Limit: models.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// akMCPRows reads every AI-connector key row of the store.
func akMCPRows(t *testing.T, e *apitest.Env, storeID int64) []models.MCPKey {
	t.Helper()
	keys, err := models.ListMCPKeys(context.Background(), e.DB, storeID, models.Paging{Limit: models.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// akForbidden fails unless a GraphQL answer refuses with FORBIDDEN and
// leaks no data.
func akForbidden(t *testing.T, what string, g *apitest.Response) {
	t.Helper()
	errs, _ := g.Body["errors"].([]any)
	if len(errs) == 0 {
		t.Fatalf("%s: want FORBIDDEN, got %d %s", what, g.Status, g.Raw)
	}
	for _, x := range errs {
		ext, _ := x.(map[string]any)["extensions"].(map[string]any)
		if ext["code"] != "FORBIDDEN" {
			t.Fatalf("%s: every error must be FORBIDDEN: %s", what, g.Raw)
		}
	}
	for k, v := range g.Data() {
		if v != nil {
			t.Fatalf("%s: data.%s leaked: %s", what, k, g.Raw)
		}
	}
}

func TestAPIKeysRefusedToEveryKey(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	victim := e.Key(s.ID, auth.RoleStaff, "store:read")
	victimID := keyID(t, e, s.ID, victim)
	otherKey := e.Key(other.ID, auth.RoleAdmin)
	otherKeyID := keyID(t, e, other.ID, otherKey)
	mcpID, otherMCPID := akMCPKey(t, e, s.ID, "Claude"), akMCPKey(t, e, other.ID, "Bolt's Claude")

	keys := map[string]string{
		"admin, no scopes":                     e.Key(s.ID, auth.RoleAdmin),
		"admin, api-keys:write":                e.Key(s.ID, auth.RoleAdmin, "api-keys:write"),
		"admin, api-keys:read and write":       e.Key(s.ID, auth.RoleAdmin, "api-keys:read", "api-keys:write"),
		"admin, every scope":                   keyWithAllScopes(t, e, s.ID),
		"staff, no scopes":                     e.Key(s.ID, auth.RoleStaff),
		"staff, api-keys:write":                e.Key(s.ID, auth.RoleStaff, "api-keys:write"),
		"admin, another resource's write only": e.Key(s.ID, auth.RoleAdmin, "store:write"),
	}
	keysBefore, mcpBefore := akKeyRows(t, e, s.ID), akMCPRows(t, e, s.ID)
	otherBefore, otherMCPBefore := akKeyRows(t, e, other.ID), akMCPRows(t, e, other.ID)

	calls := []apitest.Call{
		{http.MethodGet, "/store/api-keys", nil},
		{http.MethodGet, "/store/api-keys?limit=5&offset=0", nil},
		{http.MethodPost, "/store/api-keys", map[string]any{"name": "made by a key", "role": "staff"}},
		{http.MethodPost, "/store/api-keys", map[string]any{"name": "escalation", "role": "admin", "scopes": []string{"api-keys:write"}}},
		{http.MethodGet, "/store/api-keys/scopes", nil},
		{http.MethodDelete, fmt.Sprintf("/store/api-keys/%d", victimID), nil},
		{http.MethodDelete, fmt.Sprintf("/store/api-keys/%d", otherKeyID), nil},
		{http.MethodDelete, "/store/api-keys/987654", nil},
		{http.MethodGet, "/store/mcp-keys", nil},
		{http.MethodGet, "/store/mcp-keys/activity", nil},
		{http.MethodGet, "/store/mcp-keys/activity?limit=10&offset=0", nil},
		{http.MethodGet, "/store/mcp-keys/presets", nil},
		{http.MethodDelete, fmt.Sprintf("/store/mcp-keys/%d", mcpID), nil},
		{http.MethodDelete, fmt.Sprintf("/store/mcp-keys/%d", otherMCPID), nil},
		{http.MethodDelete, "/store/mcp-keys/987654", nil},
	}
	e.ExpectEach(t, 403, keys, calls)
	// GraphQL refuses every operation of the area, and each field alone.
	admin := keys["admin, api-keys:read and write"]
	for _, c := range []struct {
		op   string
		vars map[string]any
	}{
		{"ListAPIKeys", nil},
		{"ListAPIKeys", map[string]any{"limit": 5, "offset": 0}},
		{"CreateAPIKey", map[string]any{"input": map[string]any{"name": "made by a key", "role": "staff"}}},
		{"APIKeyScopes", nil},
		{"RevokeAPIKey", map[string]any{"id": victimID}},
		{"ListMCPKeys", nil},
		{"ListMCPActivity", nil},
		{"ListMCPPresets", nil},
		{"DisconnectMCPKey", map[string]any{"id": mcpID}},
	} {
		text, err := rest.OperationText(graph.Schema(), c.op)
		if err != nil {
			t.Fatal(err)
		}
		for name, key := range keys {
			akForbidden(t, c.op+" with "+name, e.GraphQL(key, text, c.vars))
		}
	}
	for _, q := range []string{
		`{ apiKeys { id } }`, `{ apiKeysCount }`, `{ apiKeyScopeActions }`, `{ apiKeyScopeResources { resource } }`,
		`{ mcpEndpoint }`, `{ mcpKeys { id } }`, `{ mcpActivity { id } }`, `{ mcpPresets { key } }`,
		`mutation { createApiKey(input: {name: "x", role: "admin"}) { key } }`,
		fmt.Sprintf(`mutation { revokeApiKey(id: %d) { id } }`, victimID),
		fmt.Sprintf(`mutation { disconnectMcpKey(id: %d) { id } }`, mcpID),
	} {
		akForbidden(t, q, e.GraphQL(admin, q, nil))
	}

	// Nothing was created or revoked, in either store; the victim key works.
	if after := akKeyRows(t, e, s.ID); len(after) != len(keysBefore) || !reflect.DeepEqual(akRevoked(after), akRevoked(keysBefore)) {
		t.Fatalf("the store's keys changed: %d keys before, %d after", len(keysBefore), len(after))
	}
	if after := akKeyRows(t, e, other.ID); len(after) != len(otherBefore) || !reflect.DeepEqual(akRevoked(after), akRevoked(otherBefore)) {
		t.Fatalf("the other store's keys changed")
	}
	for _, m := range append(akMCPRows(t, e, s.ID), akMCPRows(t, e, other.ID)...) {
		if m.RevokedAt != nil {
			t.Fatalf("MCP key %d was disconnected", m.ID)
		}
	}
	if len(akMCPRows(t, e, s.ID)) != len(mcpBefore) || len(akMCPRows(t, e, other.ID)) != len(otherMCPBefore) {
		t.Fatalf("MCP keys changed")
	}
	e.Do(http.MethodGet, "/store", victim, nil).Expect(t, 200)
	e.Do(http.MethodGet, "/store", otherKey, nil).Expect(t, 200)

	// Without a valid key, every call is 401 first.
	for _, c := range calls {
		expectUnauthorized(t, e, s.ID, c.Method, c.Path, c.Body)
	}
}

// akRevoked maps key ids to whether they are revoked.
func akRevoked(keys []models.APIKey) map[int64]bool {
	out := map[int64]bool{}
	for _, k := range keys {
		out[k.ID] = k.RevokedAt != nil
	}
	return out
}

// A call closed to every key answers 403 whatever the request holds: a key
// cannot make it succeed by fixing its input, so the refusal comes first.
func TestAPIKeysRefusalPrecedesBadInput(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin, "api-keys:write")
	e.ExpectEach(t, 403, map[string]string{"admin with the write scope": admin}, []apitest.Call{
		{http.MethodPost, "/store/api-keys", nil},
		{http.MethodPost, "/store/api-keys", map[string]any{}},
		{http.MethodPost, "/store/api-keys", `{"name": `},
		{http.MethodGet, "/store/api-keys?limit=abc", nil},
		{http.MethodGet, "/store/mcp-keys/activity?offset=x", nil},
		{http.MethodDelete, "/store/api-keys/abc", nil},
		{http.MethodDelete, "/store/mcp-keys/abc", nil},
	})
}

func TestAPIKeysAuthentication(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	future := time.Now().Add(time.Hour)
	k, err := auth.NewAPIKey(s.ID, "expires later", auth.RoleStaff, nil, &future, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := models.CreateAPIKey(context.Background(), e.DB, k); err != nil {
		t.Fatal(err)
	}
	e.Do(http.MethodGet, "/store", *k.Key, nil).Expect(t, 200)

	expectUnauthorized(t, e, s.ID, http.MethodGet, "/store", nil)
	expectUnauthorized(t, e, s.ID, http.MethodPut, "/store/settings", settingBody("a", "b", 1))
	for name, header := range map[string]string{
		"empty bearer":       "Bearer ",
		"basic scheme":       "Basic " + key,
		"bare secret":        key,
		"secret with a tail": "Bearer " + key + "x",
		"a cut secret":       "Bearer " + key[:len(key)-1],
	} {
		r := e.DoHeaders(http.MethodGet, "/store", "", nil, map[string]string{"Authorization": header})
		if r.Status != 401 {
			t.Fatalf("%s: status %d, want 401: %s", name, r.Status, r.Raw)
		}
		r.Expect(t, 401)
		if r.Header.Get("WWW-Authenticate") == "" {
			t.Fatalf("%s: 401 without WWW-Authenticate", name)
		}
	}
	// The scheme is case-insensitive (RFC 9110).
	e.DoHeaders(http.MethodGet, "/store", "", nil, map[string]string{"Authorization": "bearer " + key}).Expect(t, 200)

	// A key stops working the moment it is revoked or expires, on both surfaces.
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, 200)
	if _, err := models.RevokeAPIKey(context.Background(), e.DB, s.ID, keyID(t, e, s.ID, key)); err != nil {
		t.Fatal(err)
	}
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, 401)
	if g := e.GraphQL(key, `{ store { id } }`, nil); g.Status != 401 || g.ErrorCode() != "UNAUTHENTICATED" {
		t.Fatalf("revoked key over GraphQL: %d %s", g.Status, g.Raw)
	}
	if _, err := e.DB.NewUpdate().Model((*models.APIKey)(nil)).Set("expires_at = ?", time.Now().Add(-time.Second)).
		Where("id = ?", k.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.Do(http.MethodGet, "/store", *k.Key, nil).Expect(t, 401)
	if g := e.GraphQL(*k.Key, `{ store { id } }`, nil); g.Status != 401 || g.ErrorCode() != "UNAUTHENTICATED" {
		t.Fatalf("expired key over GraphQL: %d %s", g.Status, g.Raw)
	}
	if g := e.GraphQL("sa_api_unknown", `{ store { id } }`, nil); g.Status != 401 || g.ErrorCode() != "UNAUTHENTICATED" {
		t.Fatalf("unknown key over GraphQL: %d %s", g.Status, g.Raw)
	}
}

func TestAPIKeysScopesAndRoles(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	calls := []apitest.Call{
		{http.MethodGet, "/store", nil},
		{http.MethodPut, "/store", map[string]any{"name": "Acme"}},
		{http.MethodGet, "/store/settings", nil},
		{http.MethodPut, "/store/settings", settingBody("theme", "color", "red")},
		{http.MethodGet, "/store/members", nil},
	}
	for _, c := range []struct {
		name string
		key  string
		want []int // one per call
	}{
		// A key with no scopes holds every scope its role allows.
		{"admin, no scopes", e.Key(s.ID, auth.RoleAdmin), []int{200, 200, 200, 200, 200}},
		{"staff, no scopes", e.Key(s.ID, auth.RoleStaff), []int{200, 403, 200, 403, 200}},
		// A write scope holds its read scope, and nothing else.
		{"admin, store:write", e.Key(s.ID, auth.RoleAdmin, "store:write"), []int{200, 200, 403, 403, 403}},
		{"staff, store:write", e.Key(s.ID, auth.RoleStaff, "store:write"), []int{200, 403, 403, 403, 403}},
		{"admin, store:read", e.Key(s.ID, auth.RoleAdmin, "store:read"), []int{200, 403, 403, 403, 403}},
		// A read scope does not allow the write.
		{"admin, settings:read", e.Key(s.ID, auth.RoleAdmin, "settings:read"), []int{403, 403, 200, 403, 403}},
		{"admin, settings:write and store:read", e.Key(s.ID, auth.RoleAdmin, "settings:write", "store:read"), []int{200, 403, 200, 200, 403}},
		// Another resource's scopes allow nothing here.
		{"admin, orders:write", e.Key(s.ID, auth.RoleAdmin, "orders:write"), []int{403, 403, 403, 403, 403}},
		{"admin, staff:read", e.Key(s.ID, auth.RoleAdmin, "staff:read"), []int{403, 403, 403, 403, 200}},
	} {
		for i, call := range calls {
			r := e.Do(call.Method, call.Path, c.key, call.Body)
			if r.Status != c.want[i] {
				t.Fatalf("%s %s with %s: status %d, want %d: %s", call.Method, call.Path, c.name, r.Status, c.want[i], r.Raw)
			}
			r.Expect(t, c.want[i])
		}
	}

	// The same gates on GraphQL.
	w := e.Key(s.ID, auth.RoleAdmin, "store:write")
	r := e.Do(http.MethodGet, "/store", w, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, w, "GetStore", nil)
	akForbidden(t, "store with settings:read", e.GraphQL(e.Key(s.ID, auth.RoleAdmin, "settings:read"), `{ store { id } }`, nil))
	akForbidden(t, "store with orders:write", e.GraphQL(e.Key(s.ID, auth.RoleAdmin, "orders:write"), `{ currentStoreId }`, nil))
	akForbidden(t, "updateStore as staff", e.GraphQL(e.Key(s.ID, auth.RoleStaff), `mutation { updateStore(input: {name: "x"}) { id } }`, nil))
}

func TestAPIKeysLastUsedAt(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	if k := keyRow(t, e, s.ID, key); k.LastUsedAt != nil {
		t.Fatalf("a new key has last_used_at %v", k.LastUsedAt)
	}

	before := time.Now()
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, 200)
	after := time.Now()
	first := keyRow(t, e, s.ID, key).LastUsedAt
	if first == nil || first.Before(before.Add(-time.Second)) || first.After(after.Add(time.Second)) {
		t.Fatalf("last_used_at after the first use: %v, want within [%v, %v]", first, before, after)
	}

	// Further requests within the minute do not rewrite it, on either surface.
	e.Do(http.MethodGet, "/store/settings", key, nil).Expect(t, 200)
	e.Do(http.MethodPut, "/store/settings", key, settingBody("a", "b", 1)).Expect(t, 200)
	if g := e.GraphQL(key, `{ currentStoreId }`, nil); g.Body["errors"] != nil {
		t.Fatalf("GraphQL: %s", g.Raw)
	}
	if again := keyRow(t, e, s.ID, key).LastUsedAt; again == nil || !again.Equal(*first) {
		t.Fatalf("last_used_at rewritten within the minute: %v then %v", first, again)
	}

	// A key last used long ago is stamped again on its next use.
	old := e.Key(s.ID, auth.RoleStaff)
	long := time.Now().Add(-2 * time.Hour).UTC().Truncate(time.Second)
	if _, err := e.DB.NewUpdate().Model((*models.APIKey)(nil)).Set("last_used_at = ?", long).
		Where("id = ?", keyID(t, e, s.ID, old)).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.Do(http.MethodGet, "/store", old, nil).Expect(t, 200)
	if got := keyRow(t, e, s.ID, old).LastUsedAt; got == nil || got.Before(before) {
		t.Fatalf("last_used_at of a key used two hours ago was not renewed: %v", got)
	}

	// Refused credentials are not uses.
	revoked := revokedKey(t, e, s.ID)
	expired := expiredKey(t, e, s.ID, auth.RoleAdmin)
	e.Do(http.MethodGet, "/store", revoked, nil).Expect(t, 401)
	e.Do(http.MethodGet, "/store", expired, nil).Expect(t, 401)
	for _, k := range []string{revoked, expired} {
		if got := keyRow(t, e, s.ID, k).LastUsedAt; got != nil {
			t.Fatalf("a refused key got last_used_at %v", got)
		}
	}
}

// akSession is the context of a dashboard session of user in the store, as
// the dashboard would build it: the only principal that may manage keys.
func akSession(e *apitest.Env, storeID, userID int64, role auth.Role) context.Context {
	ctx := auth.WithPrincipal(context.Background(), &auth.Principal{Kind: auth.KindSession, StoreID: storeID, ActorID: userID, Role: role})
	return loaders.With(ctx, loaders.New(e.DB, storeID))
}

func akCode(t *testing.T, what string, err error, want apperr.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %s", what, want)
	}
	if got := apperr.CodeOf(err); got != want {
		t.Fatalf("%s: %s (%v), want %s", what, got, err, want)
	}
}

func TestAPIKeysResolversForSessions(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	adminUser := addMember(t, e, s.ID, "ada@acme.test", "Ada", "admin", models.MemberActive)
	staffUser := addMember(t, e, s.ID, "sam@acme.test", "Sam", "staff", models.MemberActive)
	ownerUser := addMember(t, e, s.ID, "olga@acme.test", "Olga", "owner", models.MemberActive)
	r := &resolvers.Resolver{DB: e.DB, Now: time.Now}
	mut, qry := r.Mutation(), r.Query()
	adminCtx := akSession(e, s.ID, adminUser, auth.RoleAdmin)
	staffCtx := akSession(e, s.ID, staffUser, auth.RoleStaff)
	ownerCtx := akSession(e, s.ID, ownerUser, auth.RoleOwner)

	// Create: the secret comes back once; only its hash is stored.
	exp := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	k, err := mut.CreateAPIKey(adminCtx, graph.APIKeyInput{
		Name: "  ERP sync ", Role: "staff", Scopes: []string{"store:write", "settings:read", " settings:read "}, ExpiresAt: &exp,
	})
	if err != nil {
		t.Fatalf("createApiKey: %v", err)
	}
	if k.Key == nil || !strings.HasPrefix(*k.Key, "sa_api_") || len(*k.Key) < 40 {
		t.Fatalf("the secret must be returned at creation: %+v", k)
	}
	secret := *k.Key
	if want := secret[len(secret)-4:]; !strings.HasSuffix(k.Hint, want) || strings.Contains(k.Hint, secret[7:len(secret)-4]) {
		t.Fatalf("hint %q must end with the secret's last four characters %q and hide the rest", k.Hint, want)
	}
	if k.Name != "ERP sync" || k.Role != "staff" || !reflect.DeepEqual(k.Scopes, []string{"settings:read", "store:write"}) ||
		k.CreatedBy != adminUser || k.ExpiresAt == nil || !k.ExpiresAt.Equal(exp) || k.RevokedAt != nil || k.LastUsedAt != nil || k.CreatedAt.IsZero() {
		t.Fatalf("created key: %+v", k)
	}
	if st, _ := r.APIKey().Status(adminCtx, k); st != models.KeyActive {
		t.Fatalf("status of a new key: %q", st)
	}
	row := new(models.APIKey)
	if err := e.DB.NewSelect().Model(row).Where("id = ?", k.ID).Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(secret))
	if string(row.SecretHash) != string(sum[:]) || string(row.SecretHash) != string(auth.HashSecret(secret)) || row.Hint != k.Hint || row.StoreID != s.ID {
		t.Fatalf("stored row: hash %x, want %x; hint %q", row.SecretHash, sum, row.Hint)
	}
	var holding int
	if err := e.DB.NewRaw("SELECT count(*) FROM api_keys AS k WHERE strpos(row_to_json(k)::text, ?) > 0", secret[7:30]).
		Scan(context.Background(), &holding); err != nil {
		t.Fatal(err)
	}
	if holding != 0 {
		t.Fatalf("the secret is stored in clear in %d row(s)", holding)
	}
	listed, err := qry.APIKeys(adminCtx, nil, nil)
	if err != nil || len(listed) != 1 || listed[0].ID != k.ID || listed[0].Key != nil {
		t.Fatalf("apiKeys after create must list the key without its secret: %+v, %v", listed, err)
	}

	// The key works over HTTP with exactly its role and scopes.
	e.Do(http.MethodGet, "/store", secret, nil).Expect(t, 200)
	e.Do(http.MethodGet, "/store/settings", secret, nil).Expect(t, 200)
	e.Do(http.MethodPut, "/store", secret, map[string]any{"name": "x"}).Expect(t, 403)       // staff role
	e.Do(http.MethodPut, "/store/settings", secret, settingBody("a", "b", 1)).Expect(t, 403) // read scope, staff role
	e.Do(http.MethodGet, "/store/members", secret, nil).Expect(t, 403)                       // no staff scope
	if got := e.Do(http.MethodGet, "/store", secret, nil).Expect(t, 200).Body["role"]; got != "staff" {
		t.Fatalf("role of the created key: %v", got)
	}

	// No scopes: every scope the role allows.
	all, err := mut.CreateAPIKey(ownerCtx, graph.APIKeyInput{Name: "everything", Role: "admin"})
	if err != nil {
		t.Fatalf("owner creates an admin key: %v", err)
	}
	if len(all.Scopes) != 0 || all.ExpiresAt != nil || all.CreatedBy != ownerUser {
		t.Fatalf("key without scopes: %+v", all)
	}
	e.Do(http.MethodPut, "/store/settings", *all.Key, settingBody("a", "b", 1)).Expect(t, 200)
	e.Do(http.MethodGet, "/store/members", *all.Key, nil).Expect(t, 200)
	// It is still a key: key management stays refused to it.
	e.Do(http.MethodGet, "/store/api-keys", *all.Key, nil).Expect(t, 403)
	if _, err := mut.CreateAPIKey(adminCtx, graph.APIKeyInput{Name: "admin by admin", Role: "admin"}); err != nil {
		t.Fatalf("an admin creates an admin key: %v", err)
	}
	if _, err := mut.CreateAPIKey(staffCtx, graph.APIKeyInput{Name: "staff by staff", Role: "staff"}); err != nil {
		t.Fatalf("a staff session creates a staff key: %v", err)
	}

	// Refusals, none of which stores anything.
	count := func() int64 {
		n, err := qry.APIKeysCount(adminCtx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	n := count()
	_, err = mut.CreateAPIKey(staffCtx, graph.APIKeyInput{Name: "escalate", Role: "admin"})
	akCode(t, "a staff session creates an admin key", err, apperr.Forbidden)
	past := time.Now().Add(-time.Minute)
	for name, in := range map[string]graph.APIKeyInput{
		"unknown resource":       {Name: "x", Role: "staff", Scopes: []string{"nope:read"}},
		"unknown action":         {Name: "x", Role: "staff", Scopes: []string{"store:delete"}},
		"scope without action":   {Name: "x", Role: "staff", Scopes: []string{"store"}},
		"scope with upper case":  {Name: "x", Role: "staff", Scopes: []string{"Store:read"}},
		"expires in the past":    {Name: "x", Role: "staff", ExpiresAt: &past},
		"owner role":             {Name: "x", Role: "owner"},
		"empty role":             {Name: "x", Role: ""},
		"role in capitals":       {Name: "x", Role: "ADMIN"},
		"empty name":             {Name: "   ", Role: "staff"},
		"name over 100 runes":    {Name: strings.Repeat("é", 101), Role: "staff"},
		"one bad scope of three": {Name: "x", Role: "staff", Scopes: []string{"store:read", "orders:write", "orders:admin"}},
	} {
		_, err := mut.CreateAPIKey(adminCtx, in)
		akCode(t, name, err, apperr.Invalid)
	}
	if got := count(); got != n {
		t.Fatalf("refused creations stored keys: %d, want %d", got, n)
	}

	// Paging of apiKeys: newest first, total ignores paging.
	for i := 0; i < 3; i++ {
		if _, err := mut.CreateAPIKey(adminCtx, graph.APIKeyInput{Name: fmt.Sprintf("filler %d", i), Role: "staff"}); err != nil {
			t.Fatal(err)
		}
	}
	n = count()
	two, three := int64(2), int64(3)
	page, err := qry.APIKeys(adminCtx, &two, &three)
	if err != nil || len(page) != 2 {
		t.Fatalf("apiKeys(limit 2, offset 3): %d rows, %v", len(page), err)
	}
	full, _ := qry.APIKeys(adminCtx, nil, nil)
	if int64(len(full)) != n || page[0].ID != full[3].ID || page[1].ID != full[4].ID || full[0].ID < full[1].ID {
		t.Fatalf("apiKeys paging/order: page %v of %v", akIDs(page), akIDs(full))
	}

	// Revoke: revoked_at is set once, and the key answers 401 at once.
	rk, err := mut.RevokeAPIKey(adminCtx, k.ID)
	if err != nil || rk.ID != k.ID || rk.RevokedAt == nil || rk.Key != nil {
		t.Fatalf("revokeApiKey: %+v, %v", rk, err)
	}
	if st, _ := r.APIKey().Status(adminCtx, rk); st != models.KeyRevoked {
		t.Fatalf("status after revoking: %q", st)
	}
	e.Do(http.MethodGet, "/store", secret, nil).Expect(t, 401)
	if g := e.GraphQL(secret, `{ store { id } }`, nil); g.Status != 401 || g.ErrorCode() != "UNAUTHENTICATED" {
		t.Fatalf("revoked key over GraphQL: %d %s", g.Status, g.Raw)
	}
	again, err := mut.RevokeAPIKey(adminCtx, k.ID)
	if err != nil || again.RevokedAt == nil || !again.RevokedAt.Equal(*rk.RevokedAt) {
		t.Fatalf("revoking twice must keep the first revoked_at: %v then %+v, %v", rk.RevokedAt, again, err)
	}

	// Another store's key, or none: not found; the other key keeps working.
	otherKey := e.Key(other.ID, auth.RoleAdmin)
	_, err = mut.RevokeAPIKey(adminCtx, keyID(t, e, other.ID, otherKey))
	akCode(t, "revoking another store's key", err, apperr.NotFound)
	_, err = mut.RevokeAPIKey(adminCtx, 987654)
	akCode(t, "revoking a missing key", err, apperr.NotFound)
	e.Do(http.MethodGet, "/store", otherKey, nil).Expect(t, 200)
	if ks, _ := qry.APIKeys(akSession(e, other.ID, adminUser, auth.RoleAdmin), nil, nil); len(ks) != 1 {
		t.Fatalf("the other store lists %d keys, want its own 1", len(ks))
	}

	// An expired key's status.
	if _, err := e.DB.NewUpdate().Model((*models.APIKey)(nil)).Set("expires_at = ?", time.Now().Add(-time.Second)).
		Where("id = ?", all.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	full, _ = qry.APIKeys(adminCtx, nil, nil)
	for i := range full {
		if full[i].ID == all.ID {
			if st, _ := r.APIKey().Status(adminCtx, &full[i]); st != models.KeyExpired {
				t.Fatalf("status of an expired key: %q", st)
			}
		}
	}
	e.Do(http.MethodGet, "/store", *all.Key, nil).Expect(t, 401)

	// The scope catalogue.
	acts, _ := qry.APIKeyScopeActions(adminCtx)
	res, _ := qry.APIKeyScopeResources(adminCtx)
	if !reflect.DeepEqual(acts, []string{"read", "write"}) || len(res) == 0 || res[0].Resource == "" || res[0].Label == "" {
		t.Fatalf("scope catalogue: %v %v", acts, res)
	}

	// AI-connector keys: listed per store, disconnected by revoking.
	mcpID, otherMCP := akMCPKey(t, e, s.ID, "Claude"), akMCPKey(t, e, other.ID, "Bolt's Claude")
	mk, err := qry.McpKeys(adminCtx, nil, nil)
	if err != nil || len(mk) != 1 || mk[0].ID != mcpID {
		t.Fatalf("mcpKeys: %+v, %v", mk, err)
	}
	d, err := mut.DisconnectMcpKey(adminCtx, mcpID)
	if err != nil || d.RevokedAt == nil {
		t.Fatalf("disconnectMcpKey: %+v, %v", d, err)
	}
	if st, _ := r.MCPKey().Status(adminCtx, d); st != models.KeyRevoked {
		t.Fatalf("status of a disconnected MCP key: %q", st)
	}
	_, err = mut.DisconnectMcpKey(adminCtx, otherMCP)
	akCode(t, "disconnecting another store's MCP key", err, apperr.NotFound)

	// Without a principal, nothing is reachable.
	_, err = mut.CreateAPIKey(context.Background(), graph.APIKeyInput{Name: "x", Role: "staff"})
	akCode(t, "createApiKey without a principal", err, apperr.Unauthenticated)
}

func akIDs(keys []models.APIKey) []int64 {
	out := make([]int64, len(keys))
	for i, k := range keys {
		out[i] = k.ID
	}
	return out
}

// A key's creator is read through the key's store: a user who is a member
// only of another store is not loaded, so their email does not show.
func TestMCPKeyCreatorIsReadThroughItsStore(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	ada := addMember(t, e, s.ID, "ada@acme.test", "Ada", "admin", models.MemberActive)
	bob := addMember(t, e, other.ID, "bob@bolt.test", "Bob", "owner", models.MemberActive)
	byAda, byBob := akMCPKey(t, e, s.ID, "Ada's Claude"), akMCPKey(t, e, s.ID, "Claude of a stranger")
	for id, user := range map[int64]int64{byAda: ada, byBob: bob} {
		if _, err := e.DB.NewUpdate().Model((*models.MCPKey)(nil)).Set("created_by = ?", user).Where("id = ?", id).
			Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	ctx := akSession(e, s.ID, ada, auth.RoleAdmin)
	r := &resolvers.Resolver{DB: e.DB, Now: time.Now}
	for _, k := range akMCPRows(t, e, s.ID) {
		email, err := r.MCPKey().CreatedByEmail(ctx, &k)
		if err != nil {
			t.Fatalf("created_by_email of %q: %v", k.Name, err)
		}
		switch {
		case k.ID == byAda && (email == nil || *email != "ada@acme.test"):
			t.Fatalf("the creator who is a member: %v", email)
		case k.ID == byBob && email != nil:
			t.Fatalf("another store's user was loaded: %q", *email)
		}
	}
}
