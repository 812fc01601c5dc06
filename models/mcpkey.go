package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// MCPKey is a key held by an AI assistant through the MCP connector.
type MCPKey struct {
	bun.BaseModel `bun:"table:mcp_keys"`

	ID         int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID    int64      `bun:"store_id" json:"-"`
	Name       string     `bun:"name" json:"name"`
	Kind       string     `bun:"kind" json:"kind"`
	Preset     string     `bun:"preset" json:"preset"`
	Role       string     `bun:"role" json:"role"`
	Scopes     []string   `bun:"scopes,array" json:"scopes"`
	SecretHash []byte     `bun:"secret_hash" json:"-"`
	Hint       string     `bun:"hint" json:"hint"`
	CreatedBy  int64      `bun:"created_by" json:"created_by"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	ExpiresAt  *time.Time `bun:"expires_at" json:"expires_at"`
	RevokedAt  *time.Time `bun:"revoked_at" json:"revoked_at"`
	LastUsedAt *time.Time `bun:"last_used_at" json:"last_used_at"`
}

// MCPPreset is a ready-made set of scopes offered when connecting an AI app.
type MCPPreset struct {
	Key         string   `json:"key"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Role        string   `json:"role"`
	Scopes      []string `json:"scopes"`
	Tools       []string `json:"tools"`
}

// MCPPresets are the presets a seller can choose from.
var MCPPresets = []MCPPreset{
	{
		Key: "read-only", Name: "Read only", Role: "staff",
		Description: "Answers questions about the store; changes nothing.",
		Scopes:      []string{"analytics:read", "collections:read", "orders:read", "products:read", "reviews:read"},
		Tools:       []string{"get_store", "list_orders", "get_order", "list_products", "get_product", "sales_report"},
	},
	{
		Key: "catalog-editor", Name: "Catalogue editor", Role: "admin",
		Description: "Writes product copy, prices, collections and SEO.",
		Scopes:      []string{"collections:write", "media:write", "products:write"},
		Tools:       []string{"list_products", "get_product", "update_product", "create_collection", "update_collection"},
	},
	{
		Key: "order-ops", Name: "Order operations", Role: "admin",
		Description: "Fulfils, refunds and annotates orders.",
		Scopes:      []string{"fulfillments:write", "orders:write"},
		Tools:       []string{"list_orders", "get_order", "fulfill_order", "refund_order", "update_order_note"},
	},
}

// ListMCPKeys lists a store's AI-connector keys, newest first.
func ListMCPKeys(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]MCPKey, error) {
	var out []MCPKey
	q := db.NewSelect().Model(&out).Where("store_id = ?", storeID).Order("id DESC")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountMCPKeys counts a store's AI-connector keys, revoked ones included.
func CountMCPKeys(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*MCPKey)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// CreateMCPKey stores a new AI-connector key (its secret already hashed)
// and reads back what the database filled in.
func CreateMCPKey(ctx context.Context, db bun.IDB, k *MCPKey) error {
	_, err := db.NewInsert().Model(k).Returning("*").Exec(ctx)
	return classify(err, "the AI-connector key")
}

// RevokeMCPKey disconnects an AI app by revoking its key.
func RevokeMCPKey(ctx context.Context, db bun.IDB, storeID, id int64) (*MCPKey, error) {
	k := new(MCPKey)
	_, err := db.NewUpdate().Model(k).Set("revoked_at = coalesce(revoked_at, now())").
		Where("store_id = ? AND id = ?", storeID, id).Returning("*").Exec(ctx)
	if err == nil && k.ID == 0 {
		return nil, classify(errNoRows, "the AI-connector key")
	}
	return k, classify(err, "the AI-connector key")
}

// MCPKeysByID loads keys for a dataloader.
func MCPKeysByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]MCPKey, error) {
	out := make([]MCPKey, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)), &out)
	return out, err
}

// MCPActivity is one call an AI assistant made with its key.
type MCPActivity struct {
	bun.BaseModel `bun:"table:mcp_activity"`

	ID         int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID    int64     `bun:"store_id" json:"-"`
	KeyID      int64     `bun:"key_id" json:"key_id"`
	Tool       string    `bun:"tool" json:"tool"`
	Subject    *string   `bun:"subject" json:"subject"`
	Requested  any       `bun:"requested,type:jsonb" json:"requested"`
	Before     any       `bun:"before,type:jsonb" json:"before"`
	After      any       `bun:"after,type:jsonb" json:"after"`
	Adjusted   []any     `bun:"adjusted,type:jsonb" json:"adjusted"`
	Result     string    `bun:"result" json:"result"`
	StatusCode int64     `bun:"status_code" json:"status_code"`
	Error      *string   `bun:"error" json:"error"`
	Country    *string   `bun:"country" json:"country"`
	At         time.Time `bun:"at,nullzero,default:now()" json:"at"`
}

// RecordMCPActivity stores calls AI assistants made, in one statement.
func RecordMCPActivity(ctx context.Context, db bun.IDB, calls ...MCPActivity) error {
	if len(calls) == 0 {
		return nil
	}
	_, err := db.NewInsert().Model(&calls).Exec(ctx)
	return err
}

// ListMCPActivity lists what AI assistants did, newest first.
func ListMCPActivity(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]MCPActivity, error) {
	var out []MCPActivity
	q := db.NewSelect().Model(&out).Where("store_id = ?", storeID).Order("at DESC", "id DESC")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}
