package apitest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"storeadmin/graph"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/secretbox"
	"storeadmin/internal/loaders"
	"storeadmin/internal/payments"
	"storeadmin/internal/testkit/testlog"
	"storeadmin/models"
	"storeadmin/resolvers"
	"storeadmin/rest"
)

// The spec's PaymentProviderView and the views inside it, exactly.
var (
	pgProviderSpec = map[string]string{
		"capabilities": "obj", "card_fields": "obj", "display_name": "s", "enabled": "b", "features": "obj",
		"has_credentials": "b", "has_webhook_secret": "b", "id": "i", "mode": "s", "provider": "s", "public_config": "obj",
		"public_id": "s", "wallet_domains": "list", "webhook_path": "s", "webhook_registered": "b", "webhook_url": "s",
	}
	pgCardFieldsSpec = map[string]string{"eligible": "b", "enabled": "b", "probed": "b", "probed_at": "s", "supported": "b"}
	pgFeaturesSpec   = map[string]string{
		"defer_stores_credential": "b", "holds_funds_at_checkout": "b", "manual_capture": "b", "refunds": "b",
		"settle_retryable": "b", "upsell": "b", "wallets": "s[]", "webhook_autoreg": "b",
	}
	pgWalletDomainSpec       = map[string]string{"host": "s", "registered": "b", "registered_at": "s"}
	pgWalletRegistrationSpec = map[string]string{"error": "s?", "host": "s", "registered": "b"}
)

// pgProvider checks v against PaymentProviderView and returns it.
func pgProvider(t *testing.T, v any) map[string]any {
	t.Helper()
	p := checkObject(t, "payment provider", v, pgProviderSpec)
	checkObject(t, "card_fields", p["card_fields"], pgCardFieldsSpec)
	checkObject(t, "features", p["features"], pgFeaturesSpec)
	checkObjects(t, "wallet_domains", p["wallet_domains"], pgWalletDomainSpec)
	return p
}

func pgPath(id int64, rest ...string) string {
	return "/store/payment-providers/" + strconv.FormatInt(id, 10) + strings.Join(rest, "")
}

// The credentials the fake provider accepts, and a webhook secret: each a
// planted secret that no answer, log line or audit entry may hold.
const (
	pgCardKey      = "sk_test_PLANTEDcardKey4f9c2e7a"
	pgWalletSecret = "PLANTEDwalletSecret8d1b"
	pgHookSecret   = "whsec_PLANTEDsellerHook77aa"
	pgAutoSecret   = "whsec_PLANTEDfromProvider5e"
)

// pgSecrets are every planted secret.
var pgSecrets = []string{pgCardKey, pgWalletSecret, pgHookSecret, pgAutoSecret}

// pgFakeProvider is the payment providers' API on loopback: it accepts
// pgCardKey (bearer) and wallet-id:pgWalletSecret (basic), registers
// webhooks and wallet domains (refusing refused.example, quoting the key
// it was sent as careless providers do), and says whether card fields are
// eligible. fail makes it answer 500; hang makes it never answer.
type pgFakeProvider struct {
	*httptest.Server
	mu       sync.Mutex
	eligible bool
	fail     bool
	hang     bool
	calls    []string // "METHOD path mode"
	hooks    []string // webhook URLs registered
	hosts    []string // wallet domains registered
}

func newPGFakeProvider(t *testing.T) *pgFakeProvider {
	f := &pgFakeProvider{eligible: true}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *pgFakeProvider) set(do func(f *pgFakeProvider)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	do(f)
}

func (f *pgFakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Payments-Mode"))
	fail, hang, eligible := f.fail, f.hang, f.eligible
	f.mu.Unlock()
	if hang {
		<-r.Context().Done()
		return
	}
	if fail {
		http.Error(w, "upstream exploded", http.StatusInternalServerError)
		return
	}
	user, pass, basic := r.BasicAuth()
	authorized := r.Header.Get("Authorization") == "Bearer "+pgCardKey || (basic && user == "wallet-id" && pass == pgWalletSecret)
	if !authorized {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":"invalid API key"}`)
		return
	}
	var body map[string]string
	json.NewDecoder(r.Body).Decode(&body)
	kind, what, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1/"), "/")
	w.Header().Set("Content-Type", "application/json")
	switch r.Method + " " + what {
	case "GET account":
		io.WriteString(w, `{"id":"acct_1"}`)
	case "POST webhooks":
		f.set(func(f *pgFakeProvider) { f.hooks = append(f.hooks, kind+" "+body["url"]) })
		io.WriteString(w, `{"secret":"`+pgAutoSecret+`"}`)
	case "GET card-fields":
		json.NewEncoder(w).Encode(map[string]bool{"eligible": eligible})
	case "POST wallet-domains":
		if body["host"] == "refused.example" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"domain refused for key `+pgCardKey+`: no page at /.well-known"}`)
			return
		}
		f.set(func(f *pgFakeProvider) { f.hosts = append(f.hosts, kind+" "+body["host"]) })
		io.WriteString(w, `{}`)
	default:
		http.NotFound(w, r)
	}
}

// pgGateway is a gateway to the fake provider with a fresh secrets key.
func pgGateway(t *testing.T, apiURL string) *payments.Gateway {
	t.Helper()
	box, err := secretbox.New(bytes.Repeat([]byte{0x5a}, secretbox.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return &payments.Gateway{API: payments.NewClient(apiURL), Box: box}
}

// pgSession runs the persisted REST operations of the payment routes as a
// dashboard session of an admin of the store would: through the real
// executor (directives, input check, error presenter logging into log),
// on resolvers reaching the gateway. It is how the write resolvers, which
// refuse every key, are tested.
type pgSession struct {
	e       *apitest.Env
	storeID int64
	run     func(ctx context.Context, op string, vars map[string]any) *graphql.Response
}

func newPGSession(t *testing.T, e *apitest.Env, storeID int64, gw *payments.Gateway, log *slog.Logger) *pgSession {
	res := &resolvers.Resolver{DB: e.DB, Now: time.Now, PublicURL: e.URL, Payments: gw}
	exec := graph.NewExecutor(res, log, 0)
	s := &pgSession{e: e, storeID: storeID}
	s.run = func(ctx context.Context, op string, vars map[string]any) *graphql.Response {
		t.Helper()
		text, err := rest.OperationText(graph.Schema(), op)
		if err != nil {
			t.Fatal(err)
		}
		// Variables as a JSON body decodes them.
		raw, _ := json.Marshal(vars)
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var decoded map[string]any
		if err := dec.Decode(&decoded); err != nil {
			t.Fatal(err)
		}
		ctx = graphql.StartOperationTrace(ctx)
		oc, errs := exec.CreateOperationContext(ctx, &graphql.RawParams{Query: text, OperationName: op, Variables: decoded})
		if errs != nil {
			return exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs)
		}
		h, ctx := exec.DispatchOperation(ctx, oc)
		return h(ctx)
	}
	return s
}

// ctx is a request of the store's admin, signed in to the dashboard.
func (s *pgSession) ctx() context.Context {
	ctx := auth.WithPrincipal(context.Background(), &auth.Principal{Kind: auth.KindSession, StoreID: s.storeID, ActorID: 1, Role: auth.RoleAdmin})
	return loaders.With(ctx, loaders.New(s.e.DB, s.storeID))
}

// do runs op and returns its data, failing the test on an error.
func (s *pgSession) do(t *testing.T, op string, vars map[string]any) map[string]any {
	t.Helper()
	data, code, msg := s.try(t, op, vars)
	if code != "" {
		t.Fatalf("%s %v: %s %s", op, vars, code, msg)
	}
	return data
}

// try runs op and returns its data, or the code and message of its first
// error.
func (s *pgSession) try(t *testing.T, op string, vars map[string]any) (map[string]any, string, string) {
	t.Helper()
	resp := s.run(s.ctx(), op, vars)
	if len(resp.Errors) > 0 {
		code, _ := resp.Errors[0].Extensions["code"].(string)
		return nil, code, resp.Errors[0].Message
	}
	var data map[string]any
	if err := json.Unmarshal(resp.Data, &data); err != nil {
		t.Fatal(err)
	}
	return data, "", ""
}

// expect fails unless op answers the error code; it returns the message.
func (s *pgSession) expect(t *testing.T, code apperr.Code, op string, vars map[string]any) string {
	t.Helper()
	_, got, msg := s.try(t, op, vars)
	if got != string(code) {
		t.Fatalf("%s %v: %q (%s), want %s", op, vars, got, msg, code)
	}
	return msg
}

// create adds a provider and returns its view.
func (s *pgSession) create(t *testing.T, input map[string]any) map[string]any {
	t.Helper()
	return pgProvider(t, s.do(t, "CreatePaymentProvider", map[string]any{"input": input})["provider"])
}

// pgDomain adds a domain to the store with SQL (the domains API is another
// area's), active (verified) or pending.
func pgDomain(t *testing.T, e *apitest.Env, storeID int64, host, status string) int64 {
	t.Helper()
	var id int64
	err := e.DB.NewRaw("INSERT INTO domains (store_id, hostname, status, verification_token) VALUES (?, ?, ?, 'tok') RETURNING id",
		storeID, host, status).Scan(context.Background(), &id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// pgList reads the providers over REST, checked against the views, and
// the same over GraphQL.
func pgList(t *testing.T, e *apitest.Env, key string) ([]map[string]any, bool) {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/payment-providers", key, nil).Expect(t, 200)
	expectPayload(t, r, "providers", "test_gateway")
	var out []map[string]any
	for _, v := range r.List("providers") {
		out = append(out, pgProvider(t, v))
	}
	e.SameOnGraphQL(t, r, key, "ListPaymentProviders", nil)
	return out, boolField(t, r.Body, "test_gateway")
}

func TestPaymentProvidersForSessions(t *testing.T) {
	e, s, admin := newAcme(t)
	fake := newPGFakeProvider(t)
	ses := newPGSession(t, e, s.ID, pgGateway(t, fake.URL), slog.New(slog.DiscardHandler))

	// A card processor: test mode and its kind's name by default; its
	// credentials saved register the webhook URL with the provider, whose
	// secret is kept.
	card := ses.create(t, map[string]any{"provider": "card", "credentials": map[string]any{"secret_key": " " + pgCardKey + "\n"},
		"public_id": "pk_test_123", "public_config": map[string]any{"statement_descriptor": "ACME"}})
	cardID := idOf(t, card)
	path := stringField(t, card, "webhook_path")
	if card["provider"] != "card" || card["display_name"] != "Credit and debit cards" || card["mode"] != "test" || card["enabled"] != false ||
		card["has_credentials"] != true || card["has_webhook_secret"] != true || card["webhook_registered"] != true ||
		card["public_id"] != "pk_test_123" || !reflect.DeepEqual(card["public_config"], map[string]any{"statement_descriptor": "ACME"}) {
		t.Fatalf("created card provider: %v", card)
	}
	if !strings.HasPrefix(path, models.PaymentWebhookPrefix) || len(path) < len(models.PaymentWebhookPrefix)+32 || card["webhook_url"] != e.URL+path {
		t.Fatalf("webhook path %q, url %v", path, card["webhook_url"])
	}
	if !reflect.DeepEqual(fake.hooks, []string{"card " + e.URL + path}) {
		t.Fatalf("webhooks registered with the provider: %v", fake.hooks)
	}
	want := map[string]any{"credential_fields": []any{"secret_key"}, "credentials_check": true, "card_fields": true,
		"wallet_domains": true, "webhooks": true, "payment_methods": []any{"card", "apple_pay", "google_pay"}}
	if !reflect.DeepEqual(card["capabilities"], want) {
		t.Fatalf("capabilities %v", card["capabilities"])
	}
	if cf := card["card_fields"]; !reflect.DeepEqual(cf, map[string]any{"eligible": false, "enabled": false, "probed": false, "probed_at": "", "supported": true}) {
		t.Fatalf("card fields before a probe: %v", cf)
	}

	// A second card provider is a conflict, found before the provider is
	// called.
	calls := len(fake.calls)
	ses.expect(t, apperr.Conflict, "CreatePaymentProvider", map[string]any{"input": map[string]any{"provider": "card", "credentials": map[string]any{"secret_key": pgCardKey}}})
	if len(fake.calls) != calls {
		t.Fatalf("a refused create called the provider: %v", fake.calls[calls:])
	}

	// A wallet provider: its webhook is registered by the seller, who
	// saves the secret; credentials are basic.
	wallet := ses.create(t, map[string]any{"provider": "wallet", "display_name": "Wallet", "mode": "live"})
	walletID := idOf(t, wallet)
	if wallet["has_credentials"] != false || wallet["webhook_registered"] != false || wallet["webhook_path"] == path || wallet["webhook_path"] == "" {
		t.Fatalf("created wallet provider: %v", wallet)
	}
	// Manual payments: no API, no webhook.
	manual := ses.create(t, map[string]any{"provider": "manual", "mode": "live"})
	manualID := idOf(t, manual)
	if manual["webhook_path"] != "" || manual["webhook_url"] != "" || len(manual["wallet_domains"].([]any)) != 0 ||
		!reflect.DeepEqual(manual["features"].(map[string]any)["wallets"], []any{}) {
		t.Fatalf("created manual provider: %v", manual)
	}

	// 400 for each rule, nothing written.
	for name, input := range map[string]map[string]any{
		"no provider":              {"display_name": "x"},
		"unknown provider":         {"provider": "bitcoin"},
		"empty display name":       {"provider": "card", "display_name": " "},
		"long display name":        {"provider": "card", "display_name": strings.Repeat("n", 101)},
		"bad mode":                 {"provider": "card", "mode": "sandbox"},
		"bad public id":            {"provider": "card", "public_id": "pk test"},
		"public config not object": {"provider": "card", "public_config": []any{1}},
		"public config too large":  {"provider": "card", "public_config": map[string]any{"x": strings.Repeat("a", 9000)}},
		"credentials not object":   {"provider": "card", "credentials": "sk"},
		"unknown credential":       {"provider": "card", "credentials": map[string]any{"secret_key": "a", "api_key": "b"}},
		"missing credential":       {"provider": "wallet", "credentials": map[string]any{"client_id": "a"}},
		"credential not string":    {"provider": "card", "credentials": map[string]any{"secret_key": 12}},
		"empty credential":         {"provider": "card", "credentials": map[string]any{"secret_key": " "}},
		"spaced credential":        {"provider": "card", "credentials": map[string]any{"secret_key": "sk live"}},
		"long credential":          {"provider": "card", "credentials": map[string]any{"secret_key": strings.Repeat("k", 1025)}},
		"manual credentials":       {"provider": "manual", "credentials": map[string]any{"secret_key": "k"}},
		"card webhook secret":      {"provider": "card", "webhook_secret": "whsec"},
		"manual webhook secret":    {"provider": "manual", "webhook_secret": "whsec"},
		"unknown field":            {"provider": "card", "secret_key": "k"},
	} {
		if _, code, msg := ses.try(t, "CreatePaymentProvider", map[string]any{"input": input}); code != string(apperr.Invalid) {
			t.Errorf("%s: %s %s, want BAD_USER_INPUT", name, code, msg)
		}
	}
	for name, input := range map[string]map[string]any{
		"provider changes":    {"provider": "card"},
		"empty webhook":       {"webhook_secret": ""},
		"missing credentials": {"credentials": map[string]any{"client_secret": "x"}},
	} {
		if _, code, msg := ses.try(t, "UpdatePaymentProvider", map[string]any{"id": walletID, "input": input}); code != string(apperr.Invalid) {
			t.Errorf("update, %s: %s %s, want BAD_USER_INPUT", name, code, msg)
		}
	}
	if list, _ := pgList(t, e, admin); len(list) != 3 {
		t.Fatalf("after refusals: %d providers", len(list))
	}

	// A provider with an API is turned on only with credentials.
	ses.expect(t, apperr.Conflict, "SetPaymentProviderEnabled", map[string]any{"id": walletID, "enabled": true})

	// Update: a merge; the wallet's secret and credentials are saved.
	wallet = pgProvider(t, ses.do(t, "UpdatePaymentProvider", map[string]any{"id": walletID, "input": map[string]any{
		"webhook_secret": pgHookSecret, "credentials": map[string]any{"client_id": "wallet-id", "client_secret": pgWalletSecret}, "public_config": nil,
	}})["provider"])
	if wallet["display_name"] != "Wallet" || wallet["mode"] != "live" || wallet["has_credentials"] != true || wallet["has_webhook_secret"] != true ||
		wallet["webhook_registered"] != true || !reflect.DeepEqual(wallet["public_config"], map[string]any{}) {
		t.Fatalf("updated wallet: %v", wallet)
	}

	// test_gateway: an enabled provider in test mode.
	ses.do(t, "SetPaymentProviderEnabled", map[string]any{"id": walletID, "enabled": true})
	ses.do(t, "SetPaymentProviderEnabled", map[string]any{"id": manualID, "enabled": true})
	if _, tg := pgList(t, e, admin); tg {
		t.Fatal("test_gateway with only live providers on")
	}
	ses.do(t, "SetPaymentProviderEnabled", map[string]any{"id": cardID, "enabled": true})
	list, tg := pgList(t, e, admin)
	if !tg || len(list) != 3 || list[0]["enabled"] != true {
		t.Fatalf("test_gateway %v with a test-mode provider on: %v", tg, list)
	}
	ses.do(t, "SetPaymentProviderEnabled", map[string]any{"id": cardID, "enabled": false})
	if _, tg := pgList(t, e, admin); tg {
		t.Fatal("test_gateway after the test-mode provider was turned off")
	}

	// Checking credentials: for real, with the provider; nothing saved.
	for _, c := range []struct {
		input map[string]any
		valid bool
	}{
		{map[string]any{"provider": "card", "credentials": map[string]any{"secret_key": pgCardKey}}, true},
		{map[string]any{"provider": "card", "mode": "live", "credentials": map[string]any{"secret_key": "sk_live_wrong"}}, false},
		{map[string]any{"provider": "wallet", "credentials": map[string]any{"client_id": "wallet-id", "client_secret": pgWalletSecret}}, true},
		{map[string]any{"provider": "wallet", "credentials": map[string]any{"client_id": "wallet-id", "client_secret": "nope"}}, false},
	} {
		if got := ses.do(t, "TestPaymentCredentials", map[string]any{"input": c.input})["valid"]; got != c.valid {
			t.Errorf("test credentials %v: valid %v, want %v", c.input, got, c.valid)
		}
	}
	if last := fake.calls[len(fake.calls)-3]; last != "GET /v1/card/account live" {
		t.Errorf("the live check called %q", last)
	}
	for name, input := range map[string]map[string]any{
		"manual":         {"provider": "manual", "credentials": map[string]any{}},
		"no credentials": {"provider": "card"},
		"unknown kind":   {"provider": "cash", "credentials": map[string]any{}},
		"missing field":  {"provider": "wallet", "credentials": map[string]any{"client_id": "x"}},
		"bad mode":       {"provider": "card", "mode": "prod", "credentials": map[string]any{"secret_key": "k"}},
		"not an object":  {"provider": "card", "credentials": []any{"k"}},
		"unknown field":  {"provider": "card", "credentials": map[string]any{"secret_key": "k"}, "id": 1},
	} {
		if _, code, msg := ses.try(t, "TestPaymentCredentials", map[string]any{"input": input}); code != string(apperr.Invalid) && code != "GRAPHQL_VALIDATION_FAILED" {
			t.Errorf("test credentials, %s: %s %s, want a 400", name, code, msg)
		}
	}

	// Card fields: the account is probed, then they are on; an ineligible
	// account keeps them off (409) with the probe recorded; off needs no
	// probe; a wallet serves none.
	before := time.Now().Add(-time.Second)
	card = pgProvider(t, ses.do(t, "SetPaymentCardFields", map[string]any{"id": cardID, "enabled": true})["provider"])
	cf := card["card_fields"].(map[string]any)
	probedAt, err := time.Parse(time.RFC3339, stringField(t, cf, "probed_at"))
	if err != nil || cf["enabled"] != true || cf["eligible"] != true || cf["probed"] != true || probedAt.Before(before.Truncate(time.Second)) {
		t.Fatalf("card fields on: %v", cf)
	}
	fake.set(func(f *pgFakeProvider) { f.eligible = false })
	if msg := ses.expect(t, apperr.Conflict, "SetPaymentCardFields", map[string]any{"id": cardID, "enabled": true}); !strings.Contains(msg, "not eligible") {
		t.Fatalf("ineligible: %s", msg)
	}
	list, _ = pgList(t, e, admin)
	if cf := list[0]["card_fields"].(map[string]any); cf["enabled"] != false || cf["eligible"] != false || cf["probed"] != true {
		t.Fatalf("card fields after an ineligible probe: %v", cf)
	}
	calls = len(fake.calls)
	card = pgProvider(t, ses.do(t, "SetPaymentCardFields", map[string]any{"id": cardID, "enabled": false})["provider"])
	if card["card_fields"].(map[string]any)["enabled"] != false || len(fake.calls) != calls {
		t.Fatalf("card fields off: %v, calls %v", card["card_fields"], fake.calls[calls:])
	}
	ses.expect(t, apperr.Conflict, "SetPaymentCardFields", map[string]any{"id": walletID, "enabled": true})
	ses.expect(t, apperr.Conflict, "SetPaymentCardFields", map[string]any{"id": manualID, "enabled": true})

	// Wallet domains: each verified domain of the store is registered, a
	// refusal and an unverified domain say why; another store's domains
	// are not the store's.
	pgDomain(t, e, s.ID, "shop.acme.example", "active")
	pgDomain(t, e, s.ID, "refused.example", "active")
	pendingID := pgDomain(t, e, s.ID, "new.acme.example", "pending")
	other := e.Store("Other")
	pgDomain(t, e, other.ID, "other.example", "active")
	r := ses.do(t, "RegisterPaymentWalletDomains", map[string]any{"id": cardID})["registerPaymentWalletDomains"].(map[string]any)
	results := checkObjects(t, "results", r["results"], pgWalletRegistrationSpec)
	card = pgProvider(t, r["provider"])
	if len(results) != 3 || results[0]["host"] != "new.acme.example" || results[0]["registered"] != false ||
		!strings.Contains(results[0]["error"].(string), "/store/domains/"+strconv.FormatInt(pendingID, 10)+"/verify") ||
		results[1]["host"] != "refused.example" || results[1]["registered"] != false || !strings.Contains(results[1]["error"].(string), "no page at /.well-known") ||
		results[2]["host"] != "shop.acme.example" || results[2]["registered"] != true || results[2]["error"] != nil {
		t.Fatalf("registration results: %v", results)
	}
	if !reflect.DeepEqual(fake.hosts, []string{"card shop.acme.example"}) {
		t.Fatalf("hosts registered with the provider: %v", fake.hosts)
	}
	wd := card["wallet_domains"].([]any)
	if len(wd) != 3 || wd[2].(map[string]any)["registered"] != true || wd[2].(map[string]any)["registered_at"] == "" ||
		wd[0].(map[string]any)["registered"] != false || wd[0].(map[string]any)["registered_at"] != "" {
		t.Fatalf("wallet domains: %v", wd)
	}
	list, _ = pgList(t, e, admin)
	if !reflect.DeepEqual(list[0]["wallet_domains"], card["wallet_domains"]) || len(list[1]["wallet_domains"].([]any)) != 3 {
		t.Fatalf("listed wallet domains: %v / %v", list[0]["wallet_domains"], list[1]["wallet_domains"])
	}
	ses.expect(t, apperr.Conflict, "RegisterPaymentWalletDomains", map[string]any{"id": manualID})

	// The provider failing, or not answering, is a 502 and changes nothing.
	fake.set(func(f *pgFakeProvider) { f.fail = true })
	if msg := ses.expect(t, apperr.BadGateway, "TestPaymentCredentials", map[string]any{"input": map[string]any{"provider": "card", "credentials": map[string]any{"secret_key": pgCardKey}}}); !strings.Contains(msg, "500") {
		t.Fatalf("a failing provider: %s", msg)
	}
	ses.expect(t, apperr.BadGateway, "RegisterPaymentWalletDomains", map[string]any{"id": cardID})
	ses.expect(t, apperr.BadGateway, "SetPaymentCardFields", map[string]any{"id": cardID, "enabled": true})
	ses.expect(t, apperr.BadGateway, "UpdatePaymentProvider", map[string]any{"id": cardID, "input": map[string]any{"credentials": map[string]any{"secret_key": pgCardKey}}})
	fake.set(func(f *pgFakeProvider) { f.fail, f.hang = false, true })
	slow := pgGateway(t, fake.URL)
	slow.API.HTTP.Timeout = 50 * time.Millisecond // the fake never answers: this always times out
	hung := newPGSession(t, e, s.ID, slow, slog.New(slog.DiscardHandler))
	if msg := hung.expect(t, apperr.BadGateway, "TestPaymentCredentials", map[string]any{"input": map[string]any{"provider": "card", "credentials": map[string]any{"secret_key": pgCardKey}}}); !strings.Contains(msg, "did not answer") {
		t.Fatalf("a provider that does not answer: %s", msg)
	}
	fake.set(func(f *pgFakeProvider) { f.hang = false })
	if after, _ := pgList(t, e, admin); !reflect.DeepEqual(after, list) {
		t.Fatalf("failed calls changed the providers:\n%v\n%v", after, list)
	}

	// No API configured: the calls are refused saying so.
	noAPI := newPGSession(t, e, s.ID, pgGateway(t, ""), slog.New(slog.DiscardHandler))
	if msg := noAPI.expect(t, apperr.Conflict, "SetPaymentCardFields", map[string]any{"id": cardID, "enabled": true}); !strings.Contains(msg, "STOREADMIN_PAYMENTS_API_URL") {
		t.Fatalf("no API: %s", msg)
	}
	// No secrets key: no credentials are saved, nor used; everything
	// else works. Another key cannot open what this one sealed.
	noKey := newPGSession(t, e, s.ID, &payments.Gateway{API: payments.NewClient(fake.URL)}, slog.New(slog.DiscardHandler))
	if msg := noKey.expect(t, apperr.Conflict, "UpdatePaymentProvider", map[string]any{"id": walletID, "input": map[string]any{"credentials": map[string]any{"client_id": "a", "client_secret": "b"}}}); !strings.Contains(msg, "STOREADMIN_SECRETS_KEY") {
		t.Fatalf("no key: %s", msg)
	}
	noKey.expect(t, apperr.Conflict, "UpdatePaymentProvider", map[string]any{"id": walletID, "input": map[string]any{"webhook_secret": "whsec_x"}})
	noKey.expect(t, apperr.Conflict, "SetPaymentCardFields", map[string]any{"id": cardID, "enabled": true})
	noKey.do(t, "UpdatePaymentProvider", map[string]any{"id": walletID, "input": map[string]any{"display_name": "Pay later"}})
	otherBox, _ := secretbox.New(bytes.Repeat([]byte{1}, secretbox.KeySize))
	rekeyed := newPGSession(t, e, s.ID, &payments.Gateway{API: payments.NewClient(fake.URL), Box: otherBox}, slog.New(slog.DiscardHandler))
	if msg := rekeyed.expect(t, apperr.Conflict, "RegisterPaymentWalletDomains", map[string]any{"id": cardID}); !strings.Contains(msg, "save them again") {
		t.Fatalf("another key: %s", msg)
	}

	// 404: an unknown id, and another store's provider, on every write.
	otherSes := newPGSession(t, e, other.ID, pgGateway(t, fake.URL), slog.New(slog.DiscardHandler))
	otherCard := idOf(t, otherSes.create(t, map[string]any{"provider": "card"}))
	for _, id := range []int64{otherCard, 999999} {
		for op, vars := range map[string]map[string]any{
			"UpdatePaymentProvider":        {"id": id, "input": map[string]any{"display_name": "x"}},
			"DeletePaymentProvider":        {"id": id},
			"SetPaymentCardFields":         {"id": id, "enabled": false},
			"SetPaymentProviderEnabled":    {"id": id, "enabled": false},
			"RegisterPaymentWalletDomains": {"id": id},
		} {
			ses.expect(t, apperr.NotFound, op, vars)
		}
	}
	if list, _ := pgList(t, e, e.Key(other.ID, auth.RoleAdmin)); len(list) != 1 || list[0]["display_name"] != "Credit and debit cards" {
		t.Fatalf("the other store's providers: %v", list)
	}

	// Delete: gone with its registrations; a second delete is a 404.
	ses.do(t, "DeletePaymentProvider", map[string]any{"id": cardID})
	ses.expect(t, apperr.NotFound, "DeletePaymentProvider", map[string]any{"id": cardID})
	if list, _ := pgList(t, e, admin); len(list) != 2 || idOf(t, list[0]) != walletID {
		t.Fatalf("after delete: %v", list)
	}
	var left int
	if err := e.DB.NewRaw("SELECT count(*) FROM payment_wallet_domains WHERE provider_id = ?", cardID).Scan(context.Background(), &left); err != nil || left != 0 {
		t.Fatalf("registrations of a deleted provider: %d, %v", left, err)
	}
}

// pgWrites are the payment routes that write, each with a body naming a
// planted secret where it takes one.
func pgWrites(id int64) []apitest.Call {
	return []apitest.Call{
		{Method: http.MethodPost, Path: "/store/payment-providers", Body: map[string]any{"provider": "card", "credentials": map[string]any{"secret_key": pgCardKey}}},
		{Method: http.MethodPost, Path: "/store/payment-providers/test", Body: map[string]any{"provider": "card", "credentials": map[string]any{"secret_key": pgCardKey}}},
		{Method: http.MethodPut, Path: pgPath(id), Body: map[string]any{"webhook_secret": pgHookSecret}},
		{Method: http.MethodDelete, Path: pgPath(id)},
		{Method: http.MethodPut, Path: pgPath(id, "/card-fields"), Body: map[string]any{"enabled": true}},
		{Method: http.MethodPut, Path: pgPath(id, "/enabled"), Body: map[string]any{"enabled": true}},
		{Method: http.MethodPost, Path: pgPath(id, "/wallet-domains")},
	}
}

// TestPaymentProvidersOverHTTP: reads are open to keys with the payments
// scope, of any role; every write is refused to every key, on both
// surfaces, before anything is read or changed.
func TestPaymentProvidersOverHTTP(t *testing.T) {
	e, s, admin := newAcme(t)
	fake := newPGFakeProvider(t)
	ses := newPGSession(t, e, s.ID, pgGateway(t, fake.URL), slog.New(slog.DiscardHandler))
	cardID := idOf(t, ses.create(t, map[string]any{"provider": "card", "credentials": map[string]any{"secret_key": pgCardKey}}))
	cod := idOf(t, ses.create(t, map[string]any{"provider": "manual", "display_name": "Cash on delivery"}))
	ses.do(t, "SetPaymentProviderEnabled", map[string]any{"id": cod, "enabled": true})
	pgDomain(t, e, s.ID, "shop.acme.example", "active")
	ses.do(t, "RegisterPaymentWalletDomains", map[string]any{"id": cardID})

	// Empty for a store without providers; null-free.
	empty := e.Store("Empty")
	if list, tg := pgList(t, e, e.Key(empty.ID, auth.RoleStaff, "payments:read")); len(list) != 0 || tg {
		t.Fatalf("a store without providers: %v %v", list, tg)
	}

	before, tg := pgList(t, e, admin)
	if len(before) != 2 || !tg || before[0]["wallet_domains"].([]any)[0].(map[string]any)["registered"] != true {
		t.Fatalf("providers: %v", before)
	}
	read := []apitest.Call{{Method: http.MethodGet, Path: "/store/payment-providers"}}
	expectUnauthorized(t, e, s.ID, http.MethodGet, "/store/payment-providers", nil)
	e.ExpectEach(t, 403, map[string]string{"orders": e.Key(s.ID, auth.RoleAdmin, "orders:write"), "billing": e.Key(s.ID, auth.RoleAdmin, "billing:read")}, read)
	readers := map[string]string{
		"staff read": e.Key(s.ID, auth.RoleStaff, "payments:read"), "staff": e.Key(s.ID, auth.RoleStaff),
		"admin write": e.Key(s.ID, auth.RoleAdmin, "payments:write"), "admin": admin,
	}
	e.ExpectEach(t, 200, readers, read)
	if r := e.Do(http.MethodGet, "/store/payment-providers?limit=5", admin, nil).Expect(t, 400); !strings.Contains(r.Message(), "limit") {
		t.Fatalf("an unknown parameter: %s", r.Raw)
	}

	// Every write: 401 without a key, 403 with any key, whatever its
	// scopes and role, on REST and GraphQL; nothing changes.
	for _, c := range pgWrites(cardID) {
		expectUnauthorized(t, e, s.ID, c.Method, c.Path, c.Body)
	}
	writers := map[string]string{"admin": admin, "admin write": readers["admin write"], "all scopes": keyWithAllScopes(t, e, s.ID), "staff": readers["staff"]}
	e.ExpectEach(t, 403, writers, pgWrites(cardID))
	if r := e.Do(http.MethodPut, pgPath(cardID, "/enabled"), admin, map[string]any{"enabled": true}); !strings.Contains(r.Message(), "not available to API keys") {
		t.Fatalf("refusal: %s", r.Raw)
	}
	for _, op := range []string{"CreatePaymentProvider", "TestPaymentCredentials", "UpdatePaymentProvider", "DeletePaymentProvider",
		"SetPaymentCardFields", "SetPaymentProviderEnabled", "RegisterPaymentWalletDomains"} {
		text, err := rest.OperationText(graph.Schema(), op)
		if err != nil {
			t.Fatal(err)
		}
		vars := map[string]any{"id": cardID, "enabled": true, "input": map[string]any{"provider": "card", "credentials": map[string]any{"secret_key": pgCardKey}}}
		if op == "UpdatePaymentProvider" {
			vars["input"] = map[string]any{"display_name": "x"}
		}
		for name, key := range writers {
			if g := e.GraphQL(key, text, vars); g.ErrorCode() != "FORBIDDEN" {
				t.Fatalf("GraphQL %s with %s: %s", op, name, g.Raw)
			}
		}
	}
	if after, _ := pgList(t, e, admin); !reflect.DeepEqual(after, before) {
		t.Fatalf("refused writes changed the providers:\n%v\n%v", after, before)
	}
	if len(fake.calls) != 2 {
		t.Fatalf("the provider was called for refused writes: %v", fake.calls)
	}
}

// TestPaymentSecretsNeverLeave plants credentials and webhook secrets
// through every write, and fails if any answer (REST, GraphQL, the
// session's own), the service's log, the audit log or a stored row holds
// one in clear; each is kept sealed, and opens with the key.
func TestPaymentSecretsNeverLeave(t *testing.T) {
	var logs testlog.Buffer
	h := slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})
	e := apitest.New(t, apitest.WithLog(h))
	s := e.Store("Acme")
	admin := keyWithAllScopes(t, e, s.ID)
	fake := newPGFakeProvider(t)
	gw := pgGateway(t, fake.URL)
	ses := newPGSession(t, e, s.ID, gw, slog.New(h))
	pgDomain(t, e, s.ID, "refused.example", "active")

	var answers []string
	keep := func(v any) {
		b, _ := json.Marshal(v)
		answers = append(answers, string(b))
	}
	try := func(op string, vars map[string]any) {
		data, code, msg := ses.try(t, op, vars)
		keep(data)
		answers = append(answers, code+" "+msg)
	}
	// The session's writes, successful and refused, each carrying secrets.
	cardCreds := map[string]any{"secret_key": pgCardKey}
	walletCreds := map[string]any{"client_id": "wallet-id", "client_secret": pgWalletSecret}
	card := ses.create(t, map[string]any{"provider": "card", "credentials": cardCreds})
	keep(card)
	cardID := idOf(t, card)
	wallet := ses.create(t, map[string]any{"provider": "wallet", "credentials": walletCreds, "webhook_secret": pgHookSecret})
	keep(wallet)
	walletID := idOf(t, wallet)
	try("CreatePaymentProvider", map[string]any{"input": map[string]any{"provider": "card", "credentials": cardCreds}})                                   // 409
	try("CreatePaymentProvider", map[string]any{"input": map[string]any{"provider": "manual", "credentials": cardCreds}})                                 // 400
	try("UpdatePaymentProvider", map[string]any{"id": cardID, "input": map[string]any{"credentials": map[string]any{"secret_key": pgCardKey + " x"}}})    // 400
	try("UpdatePaymentProvider", map[string]any{"id": cardID, "input": map[string]any{"credentials": map[string]any{"secret_key": pgCardKey, "x": "y"}}}) // 400
	try("UpdatePaymentProvider", map[string]any{"id": walletID, "input": map[string]any{"webhook_secret": pgHookSecret, "credentials": walletCreds}})
	try("TestPaymentCredentials", map[string]any{"input": map[string]any{"provider": "card", "credentials": cardCreds}})
	try("TestPaymentCredentials", map[string]any{"input": map[string]any{"provider": "wallet", "credentials": map[string]any{"client_id": "wallet-id", "client_secret": pgWalletSecret + "x"}}})
	try("RegisterPaymentWalletDomains", map[string]any{"id": cardID}) // the provider's refusal quotes the key
	try("SetPaymentCardFields", map[string]any{"id": cardID, "enabled": true})
	fake.set(func(f *pgFakeProvider) { f.fail = true })
	try("UpdatePaymentProvider", map[string]any{"id": cardID, "input": map[string]any{"credentials": cardCreds}}) // 502
	fake.set(func(f *pgFakeProvider) { f.fail = false })
	if !strings.Contains(strings.Join(answers, "\n"), "[redacted]") {
		t.Fatalf("the provider's refusal, which quotes the key, was not passed on redacted: %v", answers)
	}

	// Keys sending secrets: refused, and recorded in the audit log.
	for _, c := range pgWrites(cardID) {
		answers = append(answers, string(e.Do(c.Method, c.Path, admin, c.Body).Raw))
	}
	text, _ := rest.OperationText(graph.Schema(), "UpdatePaymentProvider")
	answers = append(answers, string(e.GraphQL(admin, text, map[string]any{"id": cardID, "input": map[string]any{"webhook_secret": pgHookSecret}}).Raw))
	inline := `mutation { createPaymentProvider(input: {provider: "card", credentials: {secret_key: "` + pgCardKey + `"}}) { id } }`
	answers = append(answers, string(e.GraphQL(admin, inline, nil).Raw))

	// Every read.
	list, _ := pgList(t, e, admin)
	keep(list)
	all, _ := rest.OperationText(graph.Schema(), "ListPaymentProviders")
	answers = append(answers, string(e.GraphQL(admin, all, nil).Raw))
	logsList, _, r := listAuditLogs(t, e, admin, "limit=250")
	answers = append(answers, string(r.Raw))
	if len(logsList) < len(pgWrites(0)) {
		t.Fatalf("the refused writes are not in the audit log: %d entries", len(logsList))
	}
	var rows []string
	if err := e.DB.NewRaw("SELECT row_to_json(a)::text FROM audit_logs AS a UNION ALL SELECT row_to_json(p)::text FROM payment_providers AS p").
		Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}

	if !strings.Contains(logs.String(), "/store/payment-providers") {
		t.Fatalf("the requests were not logged, so the log proves nothing:\n%s", logs.String())
	}
	for _, secret := range pgSecrets {
		for _, a := range answers {
			if strings.Contains(a, secret) {
				t.Errorf("an answer holds the secret %s: %s", secret, a)
			}
		}
		for _, row := range rows {
			if strings.Contains(row, secret) {
				t.Errorf("a stored row holds the secret %s: %s", secret, row)
			}
		}
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log holds the secret %s:\n%s", secret, logs.String())
		}
	}

	// Sealed, not lost: the key opens what was saved, for its own row only.
	p, err := models.GetPaymentProvider(context.Background(), e.DB, s.ID, cardID)
	if err != nil {
		t.Fatal(err)
	}
	kind, _ := models.ProviderKindOf(p.Provider)
	account, err := gw.Account(p, kind)
	if err != nil || account.Credentials["secret_key"] != pgCardKey {
		t.Fatalf("the sealed credentials open to %v, %v", account.Credentials, err)
	}
	w, _ := models.GetPaymentProvider(context.Background(), e.DB, s.ID, walletID)
	w.CredentialsSealed = p.CredentialsSealed // the card's sealed value on another row
	if _, err := gw.Account(w, kind); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("a sealed value moved to another row opened: %v", err)
	}
}
