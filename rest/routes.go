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
	// File: the one root field is a Download; the answer is its bytes.
	File
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

	// Products
	{http.MethodGet, "/store/products", "ListProducts", 0, Fields},
	{http.MethodPost, "/store/products", "CreateProduct", http.StatusCreated, Fields},
	{http.MethodPost, "/store/products/bulk-adplatform-category", "BulkSetAdplatformCategory", 0, Spread},
	{http.MethodPost, "/store/products/bulk-delete", "BulkDeleteProducts", 0, Spread},
	{http.MethodGet, "/store/products/export", "ExportProducts", 0, File},
	{http.MethodGet, "/store/products/handle-available", "ProductHandleAvailable", 0, Fields},
	{http.MethodPost, "/store/products/import", "ImportProducts", 0, Spread},
	{http.MethodGet, "/store/products/import/template", "ProductImportTemplate", 0, File},
	{http.MethodGet, "/store/products/options", "ListProductOptions", 0, Fields},
	{http.MethodGet, "/store/products/{id}", "GetProduct", 0, Fields},
	{http.MethodPut, "/store/products/{id}", "UpdateProduct", 0, Fields},
	{http.MethodDelete, "/store/products/{id}", "DeleteProduct", 0, Bare},

	// Collections
	{http.MethodGet, "/store/collections", "ListCollections", 0, Fields},
	{http.MethodPost, "/store/collections", "CreateCollection", http.StatusCreated, Fields},
	{http.MethodPost, "/store/collections/bulk-delete", "BulkDeleteCollections", 0, Spread},
	{http.MethodGet, "/store/collections/handle-available", "CollectionHandleAvailable", 0, Fields},
	{http.MethodGet, "/store/collections/options", "ListCollectionOptions", 0, Fields},
	{http.MethodPost, "/store/collections/preview", "PreviewCollection", 0, Spread},
	{http.MethodGet, "/store/collections/{id}", "GetCollection", 0, Fields},
	{http.MethodPut, "/store/collections/{id}", "UpdateCollection", 0, Fields},
	{http.MethodDelete, "/store/collections/{id}", "DeleteCollection", 0, Bare},
	{http.MethodGet, "/store/collections/{id}/products", "ListCollectionProducts", 0, Fields},
	{http.MethodPost, "/store/collections/{id}/products", "AddCollectionProduct", 0, Bare},
	{http.MethodPut, "/store/collections/{id}/products/reorder", "ReorderCollectionProducts", 0, Bare},
	{http.MethodDelete, "/store/collections/{id}/products/{pid}", "RemoveCollectionProduct", 0, Bare},

	// Discounts
	{http.MethodGet, "/store/discounts", "ListDiscounts", 0, Fields},
	{http.MethodPost, "/store/discounts", "CreateDiscount", http.StatusCreated, Fields},
	{http.MethodGet, "/store/discounts/{id}", "GetDiscount", 0, Fields},
	{http.MethodPut, "/store/discounts/{id}", "UpdateDiscount", 0, Fields},
	{http.MethodDelete, "/store/discounts/{id}", "DeleteDiscount", 0, Bare},

	// Shipping
	{http.MethodGet, "/store/shipping/zones", "ListShippingZones", 0, Fields},
	{http.MethodPost, "/store/shipping/zones", "CreateShippingZone", http.StatusCreated, Fields},
	{http.MethodPut, "/store/shipping/zones/{id}", "UpdateShippingZone", 0, Fields},
	{http.MethodDelete, "/store/shipping/zones/{id}", "DeleteShippingZone", 0, Bare},
	{http.MethodPost, "/store/shipping/zones/{id}/rates", "CreateShippingRate", http.StatusCreated, Fields},
	{http.MethodPut, "/store/shipping/rates/{id}", "UpdateShippingRate", 0, Fields},
	{http.MethodDelete, "/store/shipping/rates/{id}", "DeleteShippingRate", 0, Bare},

	// Themes: the market
	{http.MethodGet, "/store/theme-market", "ListMarketTemplates", 0, Fields},
	{http.MethodPost, "/store/theme-market/install", "InstallMarketTemplate", http.StatusCreated, Fields},
	{http.MethodGet, "/store/theme-market/{key}", "GetMarketTemplate", 0, Fields},

	// Themes: the store's
	{http.MethodGet, "/store/themes", "ListThemes", 0, Fields},
	{http.MethodPost, "/store/themes", "CreateTheme", http.StatusCreated, Fields},
	{http.MethodGet, "/store/themes/{id}", "GetTheme", 0, Fields},
	{http.MethodPut, "/store/themes/{id}", "UpdateThemeSettings", 0, Fields},
	{http.MethodPatch, "/store/themes/{id}", "RenameTheme", 0, Fields},
	{http.MethodDelete, "/store/themes/{id}", "DeleteTheme", 0, Bare},
	{http.MethodPost, "/store/themes/{id}/duplicate", "DuplicateTheme", http.StatusCreated, Fields},
	{http.MethodPost, "/store/themes/{id}/preview-token", "CreateThemePreviewToken", 0, Spread},
	{http.MethodPost, "/store/themes/{id}/publish", "PublishTheme", 0, Spread},
	{http.MethodPost, "/store/themes/{id}/rollback", "RollbackTheme", 0, Fields},
	{http.MethodGet, "/store/themes/{id}/versions", "ListThemeVersions", 0, Fields},
	{http.MethodPost, "/store/themes/{id}/update-from-template", "UpdateThemeFromTemplate", http.StatusCreated, Spread},
	{http.MethodGet, "/store/theme", "GetLiveTheme", 0, Fields},
	{http.MethodPut, "/store/theme", "UpdateLiveThemeSettings", 0, Fields},
	{http.MethodPost, "/store/theme/publish", "PublishLiveTheme", 0, Spread},
	{http.MethodPost, "/store/theme/rollback", "RollbackLiveTheme", 0, Fields},
	{http.MethodGet, "/store/theme/versions", "ListLiveThemeVersions", 0, Fields},

	// A/B tests: the lifecycle, the money opt-in, the live theme, pools
	{http.MethodGet, "/store/experiments", "ListExperiments", 0, Fields},
	{http.MethodPost, "/store/experiments", "CreateExperiment", http.StatusCreated, Fields},
	{http.MethodPut, "/store/experiments/money-opt-in", "SetExperimentMoneyOptIn", 0, Fields},
	{http.MethodGet, "/store/experiments/pooled", "ListExperimentPools", 0, Fields},
	{http.MethodPost, "/store/experiments/pooled/{key}/join", "JoinExperimentPool", http.StatusCreated, Fields},
	{http.MethodPost, "/store/experiments/pooled/{key}/leave", "LeaveExperimentPool", 0, Bare},
	{http.MethodGet, "/store/experiments/theme", "GetExperimentTheme", 0, Fields},
	{http.MethodGet, "/store/experiments/{id}", "GetExperiment", 0, Fields},
	{http.MethodPut, "/store/experiments/{id}", "UpdateExperiment", 0, Fields},
	{http.MethodPatch, "/store/experiments/{id}", "RenameExperiment", 0, Fields},
	{http.MethodDelete, "/store/experiments/{id}", "DeleteExperiment", 0, Bare},
	{http.MethodPost, "/store/experiments/{id}/start", "StartExperiment", 0, Fields},
	{http.MethodPost, "/store/experiments/{id}/pause", "PauseExperiment", 0, Fields},
	{http.MethodPost, "/store/experiments/{id}/resume", "ResumeExperiment", 0, Fields},
	{http.MethodPost, "/store/experiments/{id}/end", "EndExperiment", 0, Fields},
	// A/B tests: preview tokens of arms
	{http.MethodPost, "/store/experiments/{id}/preview-token", "CreateExperimentPreviewToken", 0, Spread},

	// Tax
	{http.MethodGet, "/store/tax/rates", "ListTaxRates", 0, Fields},
	{http.MethodPost, "/store/tax/rates", "CreateTaxRate", http.StatusCreated, Fields},
	{http.MethodPut, "/store/tax/rates/{id}", "UpdateTaxRate", 0, Fields},
	{http.MethodDelete, "/store/tax/rates/{id}", "DeleteTaxRate", 0, Bare},

	// Payment gateways
	{http.MethodGet, "/store/payment-providers", "ListPaymentProviders", 0, Fields},
	{http.MethodPost, "/store/payment-providers", "CreatePaymentProvider", http.StatusCreated, Fields},
	{http.MethodPost, "/store/payment-providers/test", "TestPaymentCredentials", 0, Fields},
	{http.MethodPut, "/store/payment-providers/{id}", "UpdatePaymentProvider", 0, Fields},
	{http.MethodDelete, "/store/payment-providers/{id}", "DeletePaymentProvider", 0, Bare},
	{http.MethodPut, "/store/payment-providers/{id}/card-fields", "SetPaymentCardFields", 0, Fields},
	{http.MethodPut, "/store/payment-providers/{id}/enabled", "SetPaymentProviderEnabled", 0, Bare},
	{http.MethodPost, "/store/payment-providers/{id}/wallet-domains", "RegisterPaymentWalletDomains", 0, Spread},
	// Custom domains
	{http.MethodGet, "/store/domains", "ListDomains", 0, Fields},
	{http.MethodPost, "/store/domains", "AddDomain", http.StatusCreated, Fields},
	{http.MethodDelete, "/store/domains/{id}", "DeleteDomain", 0, Bare},
	{http.MethodPost, "/store/domains/{id}/primary", "SetPrimaryDomain", 0, Bare},
	{http.MethodPost, "/store/domains/{id}/verify", "VerifyDomain", 0, Fields},
	// Plan and billing
	{http.MethodGet, "/store/billing", "GetBilling", 0, Fields},
	{http.MethodPut, "/store/billing/cancel", "CancelBillingSubscription", 0, Fields},
	{http.MethodPost, "/store/billing/card", "SaveBillingCard", 0, Fields},
	{http.MethodPost, "/store/billing/card/setup", "CreateBillingCardSetup", 0, Spread},
	{http.MethodDelete, "/store/billing/card/{id}", "DeleteBillingCard", 0, Bare},
	{http.MethodGet, "/store/billing/invoices", "ListBillingInvoices", 0, Spread},
	{http.MethodGet, "/store/billing/invoices/{id}", "GetBillingInvoice", 0, Spread},
	{http.MethodPut, "/store/billing/plan", "ChangeBillingPlan", 0, Fields},
	{http.MethodGet, "/store/billing/plans", "ListBillingPlans", 0, Fields},
	// Pages and blog
	{http.MethodGet, "/store/pages", "ListPages", 0, Fields},
	{http.MethodPost, "/store/pages", "CreatePage", http.StatusCreated, Fields},
	{http.MethodGet, "/store/pages/{id}", "GetPage", 0, Fields},
	{http.MethodPut, "/store/pages/{id}", "UpdatePage", 0, Fields},
	{http.MethodDelete, "/store/pages/{id}", "DeletePage", 0, Bare},
	{http.MethodGet, "/store/articles", "ListArticles", 0, Fields},
	{http.MethodPost, "/store/articles", "CreateArticle", http.StatusCreated, Fields},
	{http.MethodGet, "/store/articles/{id}", "GetArticle", 0, Fields},
	{http.MethodPut, "/store/articles/{id}", "UpdateArticle", 0, Fields},
	{http.MethodDelete, "/store/articles/{id}", "DeleteArticle", 0, Bare},

	// Navigation menus
	{http.MethodGet, "/store/menus", "ListMenus", 0, Fields},
	{http.MethodGet, "/store/menus/{handle}", "GetMenu", 0, Fields},
	{http.MethodPut, "/store/menus/{handle}", "PutMenu", 0, Fields},
	{http.MethodDelete, "/store/menus/{handle}", "DeleteMenu", 0, Bare},
	// URL redirects
	{http.MethodGet, "/store/redirects", "ListURLRedirects", 0, Fields},
	{http.MethodPost, "/store/redirects", "CreateURLRedirect", http.StatusCreated, Fields},
	{http.MethodPost, "/store/redirects/bulk-delete", "BulkDeleteURLRedirects", 0, Spread},
	{http.MethodGet, "/store/redirects/export", "ExportURLRedirects", 0, File},
	{http.MethodPost, "/store/redirects/import", "ImportURLRedirects", 0, Spread},
	{http.MethodGet, "/store/redirects/{id}", "GetURLRedirect", 0, Fields},
	{http.MethodPut, "/store/redirects/{id}", "UpdateURLRedirect", 0, Fields},
	{http.MethodDelete, "/store/redirects/{id}", "DeleteURLRedirect", 0, Bare},

	// Media uploads
	{http.MethodPost, "/store/uploads/request", "RequestUpload", 0, Spread},
	{http.MethodPost, "/store/uploads/finalize", "FinalizeUpload", 0, Spread},

	// Product customizer: templates, quantity tiers, the store-wide bindings, the preview
	{http.MethodGet, "/store/customizer/templates", "ListCzTemplates", 0, Fields},
	{http.MethodPost, "/store/customizer/templates", "CreateCzTemplate", http.StatusCreated, Fields},
	{http.MethodGet, "/store/customizer/templates/{id}", "GetCzTemplate", 0, Fields},
	{http.MethodPut, "/store/customizer/templates/{id}", "UpdateCzTemplate", 0, Fields},
	{http.MethodDelete, "/store/customizer/templates/{id}", "DeleteCzTemplate", 0, Bare},
	{http.MethodGet, "/store/customizer/templates/{id}/quantity-tiers", "ListCzQuantityTiers", 0, Fields},
	{http.MethodPost, "/store/customizer/templates/{id}/quantity-tiers", "CreateCzQuantityTier", http.StatusCreated, Fields},
	{http.MethodPut, "/store/customizer/quantity-tiers/{id}", "UpdateCzQuantityTier", 0, Fields},
	{http.MethodDelete, "/store/customizer/quantity-tiers/{id}", "DeleteCzQuantityTier", 0, Bare},
	{http.MethodGet, "/store/customizer/product-bindings", "ListCzStoreBindings", 0, Fields},
	{http.MethodGet, "/store/customizer/templates/{id}/preview", "GetCzTemplatePreview", 0, Fields},

	// Product customizer: designs, elements, artwork libraries
	{http.MethodGet, "/store/customizer/designs", "ListCzDesigns", 0, Fields},
	{http.MethodPost, "/store/customizer/designs", "CreateCzDesign", http.StatusCreated, Fields},
	{http.MethodGet, "/store/customizer/designs/{id}", "GetCzDesign", 0, Fields},
	{http.MethodPut, "/store/customizer/designs/{id}", "UpdateCzDesign", 0, Fields},
	{http.MethodDelete, "/store/customizer/designs/{id}", "DeleteCzDesign", 0, Bare},
	{http.MethodPut, "/store/customizer/designs/{id}/element-order", "SetCzElementOrder", 0, Bare},
	{http.MethodGet, "/store/customizer/designs/{id}/elements", "ListCzElements", 0, Fields},
	{http.MethodPost, "/store/customizer/designs/{id}/elements", "CreateCzElement", http.StatusCreated, Fields},
	{http.MethodPut, "/store/customizer/elements/{id}", "UpdateCzElement", 0, Fields},
	{http.MethodDelete, "/store/customizer/elements/{id}", "DeleteCzElement", 0, Bare},
	{http.MethodGet, "/store/customizer/libraries", "ListCzLibraries", 0, Fields},
	{http.MethodPost, "/store/customizer/libraries", "CreateCzLibrary", http.StatusCreated, Fields},
	{http.MethodPut, "/store/customizer/libraries/{id}", "UpdateCzLibrary", 0, Fields},
	{http.MethodDelete, "/store/customizer/libraries/{id}", "DeleteCzLibrary", 0, Bare},
	{http.MethodGet, "/store/customizer/libraries/{id}/items", "ListCzLibraryItems", 0, Fields},
	{http.MethodPost, "/store/customizer/libraries/{id}/items", "CreateCzLibraryItem", http.StatusCreated, Fields},
	{http.MethodPut, "/store/customizer/libraries/{id}/items", "PlaceCzLibraryItem", 0, Fields},
	{http.MethodGet, "/store/customizer/library-catalogues", "ListCzLibraryCatalogues", 0, Fields},
	{http.MethodDelete, "/store/customizer/library-items/{id}", "DeleteCzLibraryItem", 0, Bare},
	// Product customizer: option sets, options and values
	{http.MethodGet, "/store/customizer/option-sets", "ListCzOptionSets", 0, Fields},
	{http.MethodPost, "/store/customizer/option-sets", "CreateCzOptionSet", http.StatusCreated, Fields},
	{http.MethodGet, "/store/customizer/option-sets/{id}", "GetCzOptionSet", 0, Fields},
	{http.MethodPut, "/store/customizer/option-sets/{id}", "UpdateCzOptionSet", 0, Fields},
	{http.MethodDelete, "/store/customizer/option-sets/{id}", "DeleteCzOptionSet", 0, Bare},
	{http.MethodPut, "/store/customizer/option-sets/{id}/option-order", "SetCzOptionOrder", 0, Bare},
	{http.MethodGet, "/store/customizer/option-sets/{id}/options", "ListCzOptions", 0, Fields},
	{http.MethodPost, "/store/customizer/option-sets/{id}/options", "CreateCzOption", http.StatusCreated, Fields},
	{http.MethodPut, "/store/customizer/options/{id}", "UpdateCzOption", 0, Fields},
	{http.MethodDelete, "/store/customizer/options/{id}", "DeleteCzOption", 0, Bare},
	{http.MethodPut, "/store/customizer/options/{id}/value-order", "SetCzOptionValueOrder", 0, Bare},
	{http.MethodGet, "/store/customizer/options/{id}/values", "ListCzOptionValues", 0, Fields},
	{http.MethodPost, "/store/customizer/options/{id}/values", "CreateCzOptionValue", http.StatusCreated, Fields},
	{http.MethodPut, "/store/customizer/options/{id}/values", "ReplaceCzOptionValues", 0, Fields},
	{http.MethodPut, "/store/customizer/option-values/{id}", "UpdateCzOptionValue", 0, Fields},
	{http.MethodDelete, "/store/customizer/option-values/{id}", "DeleteCzOptionValue", 0, Bare},
	// Product customizer: product bases, mockups, print areas, studio, usage, status, sheets
	{http.MethodGet, "/store/customizer/product-bases", "ListCzProductBases", 0, Fields},
	{http.MethodPost, "/store/customizer/product-bases", "CreateCzProductBase", http.StatusCreated, Fields},
	{http.MethodGet, "/store/customizer/product-bases/{id}", "GetCzProductBase", 0, Fields},
	{http.MethodPut, "/store/customizer/product-bases/{id}", "UpdateCzProductBase", 0, Fields},
	{http.MethodDelete, "/store/customizer/product-bases/{id}", "DeleteCzProductBase", 0, Bare},
	{http.MethodGet, "/store/customizer/product-bases/{id}/mockups", "ListCzMockups", 0, Fields},
	{http.MethodPost, "/store/customizer/product-bases/{id}/mockups", "CreateCzMockup", http.StatusCreated, Fields},
	{http.MethodPut, "/store/customizer/mockups/{id}", "UpdateCzMockup", 0, Spread},
	{http.MethodDelete, "/store/customizer/mockups/{id}", "DeleteCzMockup", 0, Bare},
	{http.MethodGet, "/store/customizer/mockups/{id}/print-areas", "ListCzPrintAreas", 0, Fields},
	{http.MethodPost, "/store/customizer/mockups/{id}/print-areas", "CreateCzPrintArea", http.StatusCreated, Fields},
	{http.MethodPut, "/store/customizer/print-areas/{id}", "UpdateCzPrintArea", 0, Fields},
	{http.MethodDelete, "/store/customizer/print-areas/{id}", "DeleteCzPrintArea", 0, Bare},
	{http.MethodGet, "/store/customizer/designs/{id}/studio", "GetCzStudio", 0, Fields},
	{http.MethodGet, "/store/customizer/usage", "GetCzUsage", 0, Fields},
	{http.MethodGet, "/store/customizer/status", "GetCzStatus", 0, Spread},
	{http.MethodPost, "/store/customizer/sheets/parse", "ParseCzSheet", 0, Fields},
	{http.MethodPost, "/store/customizer/sheets/build.xlsx", "BuildCzSheet", 0, File},
	// Product customizer: bindings
	{http.MethodGet, "/store/customizer/bindings/{productId}", "ListCzProductBindings", 0, Fields},
	{http.MethodPut, "/store/customizer/bindings/{productId}", "PutCzProductBinding", 0, Fields},
	{http.MethodDelete, "/store/customizer/bindings/{productId}", "DeleteCzProductBindings", 0, Bare},
	{http.MethodDelete, "/store/customizer/bindings/{productId}/{bindingId}", "DeleteCzProductBinding", 0, Bare},

	// Product customizer: template bundles
	{http.MethodGet, "/store/customizer/templates/{id}/export", "ExportCustomizerTemplate", 0, File},
	{http.MethodPost, "/store/customizer/templates/import", "ImportCustomizerTemplate", 0, Fields},

	// Volume bundles
	{http.MethodGet, "/store/bundles", "ListBundles", 0, Fields},
	{http.MethodPost, "/store/bundles", "CreateBundle", http.StatusCreated, Fields},
	{http.MethodGet, "/store/bundles/{id}", "GetBundle", 0, Fields},
	{http.MethodPut, "/store/bundles/{id}", "UpdateBundle", 0, Fields},
	{http.MethodDelete, "/store/bundles/{id}", "DeleteBundle", 0, Bare},

	// Orders
	{http.MethodGet, "/store/orders", "ListOrders", 0, Fields},
	{http.MethodGet, "/store/orders/awaiting-capture", "ListAwaitingCapture", 0, Fields},
	{http.MethodGet, "/store/orders/awaiting-capture/{id}", "GetAwaitingCapture", 0, Fields},
	{http.MethodGet, "/store/orders/awaiting-capture/{id}/activity", "AwaitingCaptureActivity", 0, Fields},
	{http.MethodGet, "/store/orders/export", "ExportOrders", 0, File},
	{http.MethodGet, "/store/orders/{id}", "GetOrder", 0, Fields},
	{http.MethodPut, "/store/orders/{id}", "UpdateOrder", 0, Spread},
	{http.MethodGet, "/store/orders/{id}/activity", "OrderActivity", 0, Fields},
	{http.MethodPost, "/store/orders/{id}/archive", "ArchiveOrder", 0, Spread},
	{http.MethodPost, "/store/orders/{id}/cancel", "CancelOrder", 0, Spread},
	{http.MethodGet, "/store/orders/{id}/fulfillments", "ListOrderFulfillments", 0, Fields},
	{http.MethodPost, "/store/orders/{id}/fulfillments", "CreateFulfillment", http.StatusCreated, Spread},
	{http.MethodPost, "/store/orders/{id}/refund", "RefundOrder", 0, Fields},

	// Fulfillments
	{http.MethodPost, "/store/fulfillments/{id}/cancel", "CancelFulfillment", 0, Spread},

	// Draft orders
	{http.MethodGet, "/store/draft-orders", "ListDraftOrders", 0, Fields},
	{http.MethodPost, "/store/draft-orders", "CreateDraftOrder", http.StatusCreated, Fields},
	{http.MethodGet, "/store/draft-orders/{id}", "GetDraftOrder", 0, Fields},
	{http.MethodPut, "/store/draft-orders/{id}/contact", "UpdateDraftOrderContact", 0, Fields},
	{http.MethodPut, "/store/draft-orders/{id}/discount", "SetDraftOrderDiscount", 0, Fields},
	{http.MethodPost, "/store/draft-orders/{id}/line-items", "AddDraftOrderLine", 0, Fields},
	{http.MethodDelete, "/store/draft-orders/{id}/line-items/{lineId}", "RemoveDraftOrderLine", 0, Fields},
	{http.MethodPost, "/store/draft-orders/{id}/mark-as-paid", "MarkDraftOrderPaid", 0, Spread},
	{http.MethodPut, "/store/draft-orders/{id}/shipping-rate", "SetDraftOrderShippingRate", 0, Fields},
	{http.MethodGet, "/store/draft-orders/{id}/shipping-rates", "DraftOrderShippingRates", 0, Fields},

	// Analytics
	{http.MethodGet, "/store/analytics", "AnalyticsOverview", 0, Fields},
	{http.MethodGet, "/store/analytics/traffic", "AnalyticsTraffic", 0, Fields},
	{http.MethodGet, "/store/analytics/landing-pages", "AnalyticsLandingPages", 0, Fields},
	{http.MethodGet, "/store/analytics/landing-pages/export.csv", "AnalyticsLandingPagesCSV", 0, File},
	{http.MethodGet, "/store/analytics/landing-pages/export.xlsx", "AnalyticsLandingPagesXLSX", 0, File},
	{http.MethodGet, "/store/analytics/sales-by-product", "AnalyticsSalesByProduct", 0, Fields},
	{http.MethodGet, "/store/analytics/sales-by-product/export.csv", "AnalyticsSalesByProductCSV", 0, File},
	{http.MethodGet, "/store/analytics/sales-by-product/export.xlsx", "AnalyticsSalesByProductXLSX", 0, File},
	{http.MethodGet, "/store/analytics/live", "AnalyticsLive", 0, Fields},
	{http.MethodGet, "/store/analytics/upsell", "AnalyticsUpsell", 0, Fields},
	{http.MethodGet, "/store/analytics/upsell/report", "AnalyticsUpsellReport", 0, Fields},
	{http.MethodGet, "/store/insights", "ListInsights", 0, Fields},
	// Sessions, shopper activity and the storefront funnel
	{http.MethodGet, "/store/sessions", "ListSessions", 0, Fields},
	{http.MethodGet, "/store/sessions/facets", "SessionFacets", 0, Fields},
	{http.MethodGet, "/store/sessions/{session}/activity", "SessionActivity", 0, Fields},
	{http.MethodGet, "/store/abandoned-carts/{token}/activity", "AbandonedCartActivity", 0, Fields},
	{http.MethodGet, "/store/abandoned-checkouts/{token}/activity", "AbandonedCheckoutActivity", 0, Fields},
	{http.MethodGet, "/store/storefront-funnel", "StorefrontFunnel", 0, Fields},
	// Abandoned carts and checkouts
	{http.MethodGet, "/store/abandoned-carts", "ListAbandonedCarts", 0, Fields},
	{http.MethodGet, "/store/abandoned-carts/{token}", "GetAbandonedCart", 0, Fields},
	{http.MethodGet, "/store/abandoned-checkouts", "ListAbandonedCheckouts", 0, Fields},
	{http.MethodGet, "/store/abandoned-checkouts/{token}", "GetAbandonedCheckout", 0, Fields},

	// Form submissions
	{http.MethodGet, "/store/form-submissions", "ListFormSubmissions", 0, Fields},
	{http.MethodGet, "/store/form-submissions/export", "ExportFormSubmissions", 0, File},
	{http.MethodDelete, "/store/form-submissions/{id}", "DeleteFormSubmission", 0, Bare},
	{http.MethodPut, "/store/form-submissions/{id}/read", "SetFormSubmissionRead", 0, Fields},

	// Email settings
	{http.MethodGet, "/store/email", "GetEmailSettings", 0, Fields},
	{http.MethodPut, "/store/email", "UpdateEmailSettings", 0, Fields},

	// Product reviews
	{http.MethodGet, "/store/reviews", "ListReviews", 0, Fields},
	{http.MethodPost, "/store/reviews/bulk", "BulkUpdateReviews", 0, Fields},
	{http.MethodGet, "/store/reviews/export", "ExportReviews", 0, File},
	{http.MethodPost, "/store/reviews/import", "ImportReviews", 0, Spread},
	{http.MethodGet, "/store/reviews/import/template", "ReviewImportTemplate", 0, File},
	{http.MethodDelete, "/store/reviews/{id}", "DeleteReview", 0, Bare},
	{http.MethodPut, "/store/reviews/{id}/featured", "SetReviewFeatured", 0, Fields},
	{http.MethodPut, "/store/reviews/{id}/reply", "ReplyToReview", 0, Fields},
	{http.MethodPut, "/store/reviews/{id}/status", "SetReviewStatus", 0, Fields},

	// Upsell funnels (checkout and post-purchase): the funnel with its
	// steps, its checkout page, its designs
	{http.MethodGet, "/store/upsell-funnels", "ListUpsellFunnels", 0, Fields},
	{http.MethodPost, "/store/upsell-funnels", "CreateUpsellFunnel", http.StatusCreated, Fields},
	{http.MethodGet, "/store/upsell-funnels/{id}", "GetUpsellFunnel", 0, Fields},
	{http.MethodPut, "/store/upsell-funnels/{id}", "UpdateUpsellFunnel", 0, Fields},
	{http.MethodDelete, "/store/upsell-funnels/{id}", "DeleteUpsellFunnel", 0, Bare},
	{http.MethodPost, "/store/upsell-funnels/{id}/checkout-page", "EnsureUpsellFunnelCheckoutPage", 0, Fields},
	{http.MethodPut, "/store/upsell-funnels/{id}/upsell-page", "SetUpsellFunnelPage", 0, Bare},
	{http.MethodPut, "/store/upsell-funnels/{id}/steps/{stepId}/upsell-page", "SetFunnelStepUpsellPage", 0, Bare},
	{http.MethodDelete, "/store/upsell-funnels/{id}/steps/{stepId}/upsell-page", "ClearFunnelStepUpsellPage", 0, Bare},

	// Recovery of abandoned carts and checkouts: the policy, and one
	// extra reminder now
	{http.MethodGet, "/store/recovery-settings", "GetRecoverySettings", 0, Fields},
	{http.MethodPut, "/store/recovery-settings", "UpdateRecoverySettings", 0, Fields},
	{http.MethodPost, "/store/abandoned-carts/{token}/resend", "ResendAbandonedCart", 0, Bare},
	{http.MethodPost, "/store/abandoned-checkouts/{token}/resend", "ResendAbandonedCheckout", 0, Bare},

	// Checkout pages and checkout zones
	{http.MethodGet, "/store/checkout-pages", "ListCheckoutPages", 0, Fields},
	{http.MethodPost, "/store/checkout-pages", "CreateCheckoutPage", http.StatusCreated, Fields},
	{http.MethodGet, "/store/checkout-pages/{id}", "GetCheckoutPage", 0, Fields},
	{http.MethodPut, "/store/checkout-pages/{id}", "UpdateCheckoutPage", 0, Fields},
	{http.MethodDelete, "/store/checkout-pages/{id}", "DeleteCheckoutPage", 0, Bare},
	{http.MethodPut, "/store/checkout-pages/{id}/default", "SetDefaultCheckoutPage", 0, Fields},
	{http.MethodPut, "/store/checkout-pages/{id}/sections", "SetCheckoutPageSections", 0, Fields},
	{http.MethodGet, "/store/checkout-zones", "ListCheckoutZones", 0, Fields},
	{http.MethodPost, "/store/checkout-zones", "CreateCheckoutZone", http.StatusCreated, Fields},
	{http.MethodGet, "/store/checkout-zones/{id}", "GetCheckoutZone", 0, Fields},
	{http.MethodPut, "/store/checkout-zones/{id}", "UpdateCheckoutZone", 0, Fields},
	{http.MethodDelete, "/store/checkout-zones/{id}", "DeleteCheckoutZone", 0, Bare},

	// Handling surcharge (pp15) and tipping: the store's, and a funnel's
	// overrides (a null body inherits the store's again)
	{http.MethodGet, "/store/pp15", "GetPP15", 0, Spread},
	{http.MethodPut, "/store/pp15", "UpdatePP15", 0, Bare},
	{http.MethodGet, "/store/tipping", "GetTipping", 0, Fields},
	{http.MethodPut, "/store/tipping", "UpdateTipping", 0, Fields},
	{http.MethodPut, "/store/upsell-funnels/{id}/pp15", "SetUpsellFunnelPP15", 0, Bare},
	{http.MethodPut, "/store/upsell-funnels/{id}/tipping", "SetUpsellFunnelTipping", 0, Bare},

	// A/B tests' reports: an experiment's, the store's power, a pooled test's
	{http.MethodGet, "/store/experiments/power", "GetExperimentPower", 0, Fields},
	{http.MethodGet, "/store/experiments/{id}/report", "GetExperimentReport", 0, Fields},
	{http.MethodGet, "/store/experiments/{id}/pooled", "GetExperimentPooledReport", 0, Fields},
}
