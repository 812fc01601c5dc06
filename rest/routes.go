package rest

import "net/http"

// Shape says how an operation's data becomes the REST payload.
type Shape int

const (
	// Fields: each root field's alias is a payload key (the default).
	Fields Shape = iota
	// Bare: the answer is the bare envelope, {"status": true}.
	Bare
	// Spread: the one root field is an object whose fields are the payload
	// keys (for answers such as {"added": ..., "invited": ...}).
	Spread
)

// Route maps one REST call onto a persisted operation.
type Route struct {
	Method string
	// Path is a chi pattern under /api/v1; each {param} is bound to the
	// operation variable of the same name.
	Path string
	// Op names an operation in operations/*.graphql.
	Op string
	// Status is the success status; 0 means 200.
	Status int
	Shape  Shape
}

// Routes is the REST surface: one row per call of the spec.
var Routes = []Route{
	// Store profile
	{http.MethodGet, "/store", "GetStore", 0, Fields},
	{http.MethodPut, "/store", "UpdateStore", 0, Fields},
	{http.MethodPut, "/store/storefront-enabled", "SetStorefrontEnabled", 0, Fields},
	{http.MethodPost, "/store/close", "CloseStore", 0, Fields},

	// Store settings
	{http.MethodGet, "/store/settings", "ListStoreSettings", 0, Fields},
	{http.MethodPut, "/store/settings", "PutStoreSetting", 0, Fields},

	// Staff
	{http.MethodGet, "/store/members", "ListMembers", 0, Fields},
	{http.MethodPost, "/store/members/invite", "InviteMember", 0, Spread},
	{http.MethodPut, "/store/members/{userId}", "UpdateMember", 0, Bare},
	{http.MethodDelete, "/store/members/{userId}", "RemoveMember", 0, Bare},

	// API keys and AI-connector keys
	{http.MethodGet, "/store/api-keys", "ListAPIKeys", 0, Fields},
	{http.MethodPost, "/store/api-keys", "CreateAPIKey", http.StatusCreated, Fields},
	{http.MethodGet, "/store/api-keys/scopes", "APIKeyScopes", 0, Fields},
	{http.MethodDelete, "/store/api-keys/{id}", "RevokeAPIKey", 0, Fields},
	{http.MethodGet, "/store/mcp-keys", "ListMCPKeys", 0, Fields},
	{http.MethodGet, "/store/mcp-keys/activity", "ListMCPActivity", 0, Fields},
	{http.MethodGet, "/store/mcp-keys/presets", "ListMCPPresets", 0, Fields},
	{http.MethodDelete, "/store/mcp-keys/{id}", "DisconnectMCPKey", 0, Fields},

	// Audit log
	{http.MethodGet, "/store/audit-logs", "ListAuditLogs", 0, Fields},

	// Webhooks
	{http.MethodGet, "/store/webhooks", "ListWebhooks", 0, Fields},
	{http.MethodPost, "/store/webhooks", "CreateWebhook", http.StatusCreated, Fields},
	{http.MethodPut, "/store/webhooks/{id}", "UpdateWebhook", 0, Fields},
	{http.MethodDelete, "/store/webhooks/{id}", "DeleteWebhook", 0, Bare},
	{http.MethodGet, "/store/webhooks/{id}/deliveries", "ListWebhookDeliveries", 0, Fields},
}
