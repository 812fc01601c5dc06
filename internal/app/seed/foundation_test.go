package seed

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// TestFoundation seeds the store's settings, team and AI connector through
// models, and checks that seeding again keeps what a person changed since.
func TestFoundation(t *testing.T) {
	ctx := context.Background()
	db, _, storeID := newSeedStore(t)
	run := func() {
		t.Helper()
		for _, fill := range []func(context.Context, bun.Tx, int64, time.Time) error{settings, staff, mcp} {
			if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return fill(ctx, tx, storeID, seedNow) }); err != nil {
				t.Fatal(err)
			}
		}
	}
	count := storeCounter(t, db, storeID)
	tables := []string{"store_settings", "store_members", "mcp_keys", "mcp_activity"}

	run()
	first := tableCounts(count, tables...)
	if first["store_settings"] != 9 || first["store_members"] != int64(len(people)) || first["mcp_keys"] != 2 || first["mcp_activity"] != 2 {
		t.Errorf("counts %v", first)
	}
	if n := count("store_members", "role = 'owner' AND status = ?", models.MemberActive); n != 1 {
		t.Errorf("%d active owners", n)
	}
	if n := count("mcp_activity", "key_id IN (SELECT id FROM mcp_keys WHERE preset = 'catalog-editor')"); n != 2 {
		t.Errorf("%d calls by the catalogue editor's key", n)
	}

	// A person changes a setting and a member's role; a second seed keeps
	// both and adds nothing.
	changed := &models.StoreSetting{StoreID: storeID, Namespace: "checkout", Key: "order_note_label", Value: "Note"}
	if err := models.PutSetting(ctx, db, changed); err != nil {
		t.Fatal(err)
	}
	u, _, err := models.EnsureUser(ctx, db, people[2].email, people[2].name)
	if err != nil {
		t.Fatal(err)
	}
	if err := models.SetMemberRole(ctx, db, storeID, u.ID, "admin"); err != nil {
		t.Fatal(err)
	}
	run()
	expectSameCounts(t, first, tableCounts(count, tables...))
	if n := count("store_settings", "namespace = 'checkout' AND key = 'order_note_label' AND value = '\"Note\"'::jsonb"); n != 1 {
		t.Error("the second seed overwrote a changed setting")
	}
	if m, err := models.GetMember(ctx, db, storeID, u.ID); err != nil || m.Role != "admin" {
		t.Errorf("the second seed changed a member: %+v, %v", m, err)
	}
}

// TestWebhooksSeededPaused checks that a seeded store sends no webhook
// anywhere: its subscriptions are seeded paused, and a second seed pauses
// those an earlier version seeded active.
func TestWebhooksSeededPaused(t *testing.T) {
	ctx := context.Background()
	db, _, storeID := newSeedStore(t)
	seedHooks := func() {
		t.Helper()
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return webhookSubscriptions(ctx, tx, storeID, seedNow)
		}); err != nil {
			t.Fatal(err)
		}
	}
	count := storeCounter(t, db, storeID)
	seedHooks()
	if all, active := count("webhook_subscriptions", "true"), count("webhook_subscriptions", "active"); all != int64(len(demoWebhooks)) || active != 0 {
		t.Fatalf("seeded %d subscriptions, %d of them active; want %d, none active", all, active, len(demoWebhooks))
	}

	// As seeded before, and one a person added.
	if _, err := db.NewUpdate().Table("webhook_subscriptions").Set("active = true").Where("store_id = ?", storeID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	own := &models.WebhookSubscription{StoreID: storeID, URL: "https://hooks.example.net/mine", Topics: []string{"order.paid"}, Active: true, SigningSecret: "s"}
	if err := models.CreateWebhook(ctx, db, own); err != nil {
		t.Fatal(err)
	}
	seedHooks()
	if active := count("webhook_subscriptions", "active"); active != 1 {
		t.Errorf("%d active subscriptions after the second seed, want only the person's own", active)
	}
	if n := count("webhook_subscriptions", "active AND url = ?", own.URL); n != 1 {
		t.Error("the second seed paused a subscription a person made")
	}
}
