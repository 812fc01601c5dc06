package seed

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/auth"
	"storeadmin/internal/base/webhooks"
	"storeadmin/models"
)

func profile(ctx context.Context, tx bun.Tx, storeID int64, _ time.Time) error {
	s, err := models.GetStore(ctx, tx, storeID)
	if err != nil {
		return err
	}
	if s.ContactEmail != "" {
		return nil // already filled in, by a person or an earlier seed
	}
	s.ContactEmail = "hello@" + s.Handle + ".example"
	s.ContactPhone = "+1 503 555 0142"
	s.Currency, s.Locale, s.Timezone, s.WeightUnit = "USD", "en-US", "America/Los_Angeles", "lb"
	s.OrderNumberPrefix, s.OrderNumberSuffix = "#", "-US"
	s.Address = map[string]any{
		"address1": "1200 NW Naito Pkwy", "address2": "Suite 310", "city": "Portland",
		"province": "OR", "zip": "97209", "country": "US", "company": s.Name,
	}
	return models.UpdateStore(ctx, tx, s, "contact_email", "contact_phone", "currency", "locale", "timezone",
		"weight_unit", "order_number_prefix", "order_number_suffix", "address")
}

func settings(ctx context.Context, tx bun.Tx, storeID int64, _ time.Time) error {
	values := []models.StoreSetting{
		{Namespace: "checkout", Key: "require_phone", Value: false},
		{Namespace: "checkout", Key: "tipping", Value: map[string]any{"enabled": true, "presets_pct": []int{10, 15, 20}}},
		{Namespace: "checkout", Key: "order_note_label", Value: "Gift message"},
		{Namespace: "notifications", Key: "order_confirmation", Value: map[string]any{"enabled": true, "bcc": "orders@example.com"}},
		{Namespace: "notifications", Key: "low_stock_threshold", Value: 5},
		{Namespace: "storefront", Key: "announcement", Value: map[string]any{"text": "Free shipping over $75", "link": "/collections/all"}},
		{Namespace: "storefront", Key: "password_message", Value: "We are restocking. Back soon!"},
		{Namespace: "integrations.erp", Key: "sync_interval_minutes", Value: 15},
		{Namespace: "integrations.erp", Key: "warehouse_code", Value: "PDX-1"},
	}
	for i := range values {
		values[i].StoreID = storeID
	}
	return putMissingSettings(ctx, tx, storeID, values...)
}

// putMissingSettings stores the settings the store does not have yet,
// through the API's PutSetting; one a person changed is left as it is.
func putMissingSettings(ctx context.Context, tx bun.Tx, storeID int64, values ...models.StoreSetting) error {
	have, err := models.ListSettings(ctx, tx, storeID, models.SettingFilter{}, models.Paging{Limit: math.MaxInt32})
	if err != nil {
		return err
	}
	stored := make(map[models.StoreSettingRef]bool, len(have))
	for _, h := range have {
		stored[models.StoreSettingRef{Namespace: h.Namespace, Key: h.Key}] = true
	}
	for i := range values {
		if stored[models.StoreSettingRef{Namespace: values[i].Namespace, Key: values[i].Key}] {
			continue
		}
		if err := models.PutSetting(ctx, tx, &values[i]); err != nil {
			return err
		}
	}
	return nil
}

// people are the demo store's team.
var people = []struct {
	email, name, role, status string
}{
	{"maya.okafor@demo-outfitters.example", "Maya Okafor", "owner", models.MemberActive},
	{"liam.chen@demo-outfitters.example", "Liam Chen", "admin", models.MemberActive},
	{"sofia.rossi@demo-outfitters.example", "Sofia Rossi", "staff", models.MemberActive},
	{"noah.schmidt@demo-outfitters.example", "Noah Schmidt", "staff", models.MemberActive},
	{"ava.patel@demo-outfitters.example", "Ava Patel", "staff", models.MemberInvited},
}

func staff(ctx context.Context, tx bun.Tx, storeID int64, _ time.Time) error {
	members, err := models.ListMembers(ctx, tx, storeID, models.Paging{Limit: math.MaxInt32})
	if err != nil {
		return err
	}
	member := make(map[int64]bool, len(members))
	for _, m := range members {
		member[m.UserID] = true
	}
	for _, p := range people {
		u, _, err := models.EnsureUser(ctx, tx, p.email, p.name)
		if err != nil {
			return err
		}
		if member[u.ID] {
			continue // a membership is left as a person made it
		}
		m := &models.StoreMember{StoreID: storeID, UserID: u.ID, Role: p.role, Status: p.status}
		if err := models.AddMember(ctx, tx, m); err != nil {
			return err
		}
	}
	return nil
}

// ownerID is the id of the store's first owner (the lowest user id), or 0.
func ownerID(ctx context.Context, tx bun.Tx, storeID int64) (int64, error) {
	members, err := models.ListMembers(ctx, tx, storeID, models.Paging{Limit: math.MaxInt32})
	var id int64
	for _, m := range members {
		if m.Role == "owner" && (id == 0 || m.UserID < id) {
			id = m.UserID
		}
	}
	return id, err
}

func apiKeys(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	n, err := models.CountAPIKeys(ctx, tx, storeID)
	if err != nil || n > 0 {
		return err
	}
	owner, err := ownerID(ctx, tx, storeID)
	if err != nil {
		return err
	}
	day := 24 * time.Hour
	keys := []struct {
		name, role string
		scopes     []string
		created    time.Duration // ago
		expires    *time.Duration
		revoked    bool
		used       time.Duration // ago; 0 never
	}{
		{"ERP sync (NetSuite)", "admin", []string{"orders:write", "products:write", "fulfillments:write"}, 120 * day, nil, false, 3 * time.Minute},
		{"Warehouse (ShipBob)", "staff", []string{"orders:read", "fulfillments:write"}, 90 * day, nil, false, 40 * time.Minute},
		{"Finance dashboard", "staff", []string{"orders:read", "analytics:read"}, 60 * day, ptr(305 * day), false, 26 * time.Hour},
		{"Old spreadsheet script", "admin", nil, 400 * day, nil, true, 200 * day},
		{"Agency audit (expired)", "staff", []string{"products:read"}, 45 * day, ptr(-15 * day), false, 20 * day},
	}
	for _, spec := range keys {
		_, hash, hint := auth.NewSecret("api")
		k := &models.APIKey{
			StoreID: storeID, Name: spec.name, Role: spec.role, Scopes: spec.scopes,
			SecretHash: hash, Hint: hint, CreatedBy: owner, CreatedAt: now.Add(-spec.created),
		}
		if spec.expires != nil {
			t := now.Add(*spec.expires)
			k.ExpiresAt = &t
		}
		if spec.revoked {
			t := now.Add(-30 * day)
			k.RevokedAt = &t
		}
		if spec.used > 0 {
			t := now.Add(-spec.used)
			k.LastUsedAt = &t
		}
		if err := models.CreateAPIKey(ctx, tx, k); err != nil {
			return err
		}
	}
	return nil
}

func mcp(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	n, err := models.CountMCPKeys(ctx, tx, storeID)
	if err != nil || n > 0 {
		return err
	}
	owner, err := ownerID(ctx, tx, storeID)
	if err != nil {
		return err
	}
	preset := models.MCPPresets[0]
	_, hash, hint := auth.NewSecret("mcp")
	used := now.Add(-2 * time.Hour)
	k := &models.MCPKey{
		StoreID: storeID, Name: "Claude (Maya's laptop)", Kind: "mcp", Preset: preset.Key, Role: preset.Role,
		Scopes: preset.Scopes, SecretHash: hash, Hint: hint, CreatedBy: owner,
		CreatedAt: now.Add(-14 * 24 * time.Hour), LastUsedAt: &used,
	}
	if err := models.CreateMCPKey(ctx, tx, k); err != nil {
		return err
	}
	editor := models.MCPPresets[1]
	_, hash2, hint2 := auth.NewSecret("mcp")
	k2 := &models.MCPKey{
		StoreID: storeID, Name: "Catalogue copywriter", Kind: "mcp", Preset: editor.Key, Role: editor.Role,
		Scopes: editor.Scopes, SecretHash: hash2, Hint: hint2, CreatedBy: owner, CreatedAt: now.Add(-5 * 24 * time.Hour),
	}
	if err := models.CreateMCPKey(ctx, tx, k2); err != nil {
		return err
	}
	subject := "product 'Trail Runner 2'"
	activity := []models.MCPActivity{
		{StoreID: storeID, KeyID: k2.ID, Tool: "update_product", Subject: &subject,
			Requested: map[string]any{"body_html": "<p>Grippy, light, ready for mud.</p>"},
			Before:    map[string]any{"body_html": "<p>Trail shoe.</p>"},
			After:     map[string]any{"body_html": "<p>Grippy, light, ready for mud.</p>"},
			Result:    "applied", StatusCode: 200, At: now.Add(-26 * time.Hour)},
		{StoreID: storeID, KeyID: k2.ID, Tool: "update_product", Subject: &subject,
			Requested: map[string]any{"price_cents": -100},
			Result:    "rejected", StatusCode: 400, Error: ptr("price_cents must not be negative"), At: now.Add(-25 * time.Hour)},
	}
	return models.RecordMCPActivity(ctx, tx, activity...)
}

// demoWebhooks are the subscriptions a seeded store shows. They are seeded
// paused: a demo must not send the store's events anywhere, not even a DNS
// query for hosts that do not exist. Turning one on is how a visitor tries
// deliveries, after pointing it at a receiver of their own.
var demoWebhooks = []models.WebhookSubscription{
	{URL: "https://erp.demo-outfitters.example/webhooks/storeadmin", Topics: []string{"order.paid", "order.refunded", "order.cancelled"}},
	{URL: "https://wms.demo-outfitters.example/hooks/orders", Topics: []string{"order.paid", "order.fulfilled"}},
	{URL: "https://crm.demo-outfitters.example/recovery", Topics: []string{"cart.abandoned", "checkout.abandoned", "checkout.recovered"}},
}

func webhookSubscriptions(ctx context.Context, tx bun.Tx, storeID int64, _ time.Time) error {
	n, err := models.CountWebhooks(ctx, tx, storeID)
	if err != nil {
		return err
	}
	if n > 0 {
		return pauseDemoWebhooks(ctx, tx, storeID)
	}
	subs := slices.Clone(demoWebhooks)
	for i := range subs {
		subs[i].StoreID = storeID
		subs[i].SigningSecret = webhooks.NewSecret()
		if err := models.CreateWebhook(ctx, tx, &subs[i]); err != nil {
			return err
		}
	}
	return nil
}

// pauseDemoWebhooks pauses the demo subscriptions that earlier versions
// seeded active, so that a store seeded then stops sending too.
func pauseDemoWebhooks(ctx context.Context, tx bun.Tx, storeID int64) error {
	urls := make([]string, len(demoWebhooks))
	for i, w := range demoWebhooks {
		urls[i] = w.URL
	}
	_, err := tx.NewUpdate().Model((*models.WebhookSubscription)(nil)).Set("active = false").
		Where("store_id = ? AND active AND url IN (?)", storeID, bun.List(urls)).Exec(ctx)
	return err
}

func ptr[T any](v T) *T { return &v }
