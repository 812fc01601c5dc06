package resolvers

import (
	"storeadmin/internal/loaders"
	"storeadmin/models"
)

// The relations the resolvers load, one declaration each: the models'
// query that reads the related records of many keys in one statement, the
// parent's key and the related record's key (see internal/loaders). Each
// loads for every parent of a list, or of a load, at once.

// Products.
var (
	productVariants = loaders.Many(models.VariantsByProduct, productID, func(v *models.ProductVariant) int64 { return v.ProductID })
	productImages   = loaders.Many(models.ImagesByProduct, productID, func(i *models.ProductImage) int64 { return i.ProductID })
	productSummary  = loaders.One(models.ProductSummaries, func(p *models.Product) *int64 { return &p.ID },
		func(s *models.ProductSummary) int64 { return s.ProductID })
	productMemberships = loaders.Many(models.MembershipsByProduct, productID, func(m *models.Membership) int64 { return m.ProductID })
	productCollections = loaders.ManyThrough(models.CollectionsByProduct, productID,
		func(pc *models.ProductCollection) (int64, models.Collection) { return pc.ProductID, pc.Collection })
	productBundles = loaders.ManyThrough(models.BundlesByProduct, productID,
		func(pb *models.ProductBundle) (int64, models.BundleOffer) { return pb.ProductID, pb.BundleOffer })
	productReviews  = loaders.ManyUpTo(models.ReviewsByProduct, productID, func(r *models.Review) int64 { return r.ProductID })
	variantProduct  = loaders.One(models.ProductsByID, func(v *models.ProductVariant) *int64 { return &v.ProductID }, productID)
	reviewedProduct = loaders.One(models.ProductsByID, func(r *models.Review) *int64 { return &r.ProductID }, productID)
)

// Collections and bundles.
var (
	collectionCount   = loaders.One(models.MemberCountsByCollection, func(c *models.Collection) *int64 { return &c.ID }, func(c *models.CollectionCount) int64 { return c.CollectionID })
	collectionMembers = loaders.ManyUpTo(models.MembersByCollection, collectionID,
		func(m *models.CollectionMember) int64 { return m.CollectionID })
	memberProduct = loaders.One(models.ProductsByID, func(m *models.CollectionMember) *int64 { return &m.ID }, productID)

	bundleTiers           = loaders.Many(models.TiersByBundle, bundleID, func(t *models.BundleOfferTier) int64 { return t.BundleID })
	bundleProductLinks    = loaders.Many(models.BundleProductLinks, bundleID, func(l *models.BundleLink) int64 { return l.BundleID })
	bundleCollectionLinks = loaders.Many(models.BundleCollectionLinks, bundleID, func(l *models.BundleLink) int64 { return l.BundleID })
	bundleProducts        = loaders.ManyThrough(models.ProductsByBundle, bundleID,
		func(bp *models.BundleProduct) (int64, models.Product) { return bp.BundleID, bp.Product })
	bundleCollections = loaders.ManyThrough(models.CollectionsByBundle, bundleID,
		func(bc *models.BundleCollection) (int64, models.Collection) { return bc.BundleID, bc.Collection })
)

// Orders and customers.
var (
	orderCustomer     = loaders.One(models.CustomersByID, func(o *models.Order) *int64 { return o.CustomerID }, customerID)
	orderLines        = loaders.Many(models.LineItemsByOrder, orderID, func(l *models.OrderLineItem) int64 { return l.OrderID })
	orderTransactions = loaders.Many(models.TransactionsByOrder, orderID, func(t *models.OrderTransaction) int64 { return t.OrderID })
	orderShipments    = loaders.Many(models.FulfillmentsByOrder, orderID, func(f *models.Fulfillment) int64 { return f.OrderID })
	orderRefunds      = loaders.Many(models.RefundsByOrder, orderID, func(r *models.Refund) int64 { return r.OrderID })
	fulfillmentItems  = loaders.Many(models.ItemsByFulfillment, func(f *models.Fulfillment) int64 { return f.ID },
		func(i *models.FulfillmentItem) int64 { return i.FulfillmentID })
	lineVariant        = loaders.One(models.VariantsByID, func(l *models.OrderLineItem) *int64 { return l.VariantID }, variantID)
	lineProduct        = loaders.One(models.ProductsByID, func(l *models.OrderLineItem) *int64 { return l.ProductID }, productID)
	refundOrder        = loaders.One(models.OrdersByID, func(r *models.Refund) *int64 { return &r.OrderID }, orderID)
	customerOrderCount = loaders.One(models.OrderCountsByCustomer, func(c *models.Customer) *int64 { return &c.ID },
		func(c *models.CustomerOrderCount) int64 { return c.CustomerID })
	customerOrders = loaders.ManyUpTo(models.OrdersByCustomer, customerID, func(o *models.Order) int64 { return *o.CustomerID })
)

// Draft orders and discounts.
var (
	draftOrderLines   = loaders.Many(models.LinesByDraftOrder, func(d *models.DraftOrder) int64 { return d.ID }, func(l *models.DraftOrderLine) int64 { return l.DraftOrderID })
	draftShippingRate = loaders.One(models.ShippingRatesByID, func(d *models.DraftOrder) *int64 { return nonZero(&d.ShippingRateID) }, rateID)
	draftDiscount     = loaders.One(models.DiscountsByID, func(d *models.DraftOrder) *int64 { return d.DiscountID }, func(d *models.Discount) int64 { return d.ID })
	draftOrder        = loaders.One(models.OrdersByID, func(d *models.DraftOrder) *int64 { return d.OrderID }, orderID)
	draftLineVariant  = loaders.One(models.VariantsByID, func(l *models.DraftOrderLine) *int64 { return l.VariantID }, variantID)
	draftLineProduct  = loaders.One(models.ProductsByID, func(l *models.DraftOrderLine) *int64 { return l.ProductID }, productID)

	discountProducts    = loaders.Listed(models.ProductsByID, func(d *models.Discount) []int64 { return d.ProductIDs }, productID)
	discountCollections = loaders.Listed(models.CollectionsByID, func(d *models.Discount) []int64 { return d.CollectionIDs }, collectionID)
)

// Storefront sessions: a visit's events, visitor and orders, and the visit
// an order came from. orderSession is the way from an order to its session;
// a cart's or a checkout's reads the same SessionsByID.
var (
	orderSession   = loaders.One(models.SessionsByID, func(o *models.Order) *int64 { return o.SessionID }, sessionRowID)
	sessionEvents  = loaders.ManyUpTo(models.EventsBySession, sessionRowID, func(e *models.StoreeventsActivity) int64 { return e.SessionID })
	sessionVisitor = loaders.One(models.VisitorsByID, func(s *models.StoreeventsSession) *int64 { return &s.VisitorID },
		func(v *models.StorefrontVisitor) int64 { return v.ID })
	sessionOrders = loaders.Many(models.OrdersBySession, sessionRowID, func(o *models.Order) int64 { return *o.SessionID })
)

func sessionRowID(s *models.StoreeventsSession) int64 { return s.ID }

// Storefront carts and checkouts: a visit's, a cart's checkouts, their
// lines and the lines' variants, their visit, and the order a checkout
// placed.
var (
	sessionCarts        = loaders.Many(models.CartsBySession, sessionRowID, func(c *models.Cart) int64 { return *c.SessionID })
	sessionCheckouts    = loaders.Many(models.CheckoutsBySession, sessionRowID, func(c *models.StorefrontCheckout) int64 { return *c.SessionID })
	cartCheckouts       = loaders.Many(models.CheckoutsByCart, cartRowID, func(c *models.StorefrontCheckout) int64 { return *c.CartID })
	cartLines           = loaders.Many(models.LinesByCart, cartRowID, func(l *models.CartLine) int64 { return l.CartID })
	checkoutLineRows    = loaders.Many(models.LinesByCheckout, checkoutRowID, func(l *models.StorefrontCheckoutLine) int64 { return l.CheckoutID })
	cartLineVariant     = loaders.One(models.VariantsByID, func(l *models.CartLine) *int64 { return l.VariantID }, variantID)
	checkoutLineVariant = loaders.One(models.VariantsByID, func(l *models.StorefrontCheckoutLine) *int64 { return l.VariantID }, variantID)
	cartSession         = loaders.One(models.SessionsByID, func(c *models.Cart) *int64 { return c.SessionID }, sessionRowID)
	checkoutSession     = loaders.One(models.SessionsByID, func(c *models.StorefrontCheckout) *int64 { return c.SessionID }, sessionRowID)
	checkoutOrder       = loaders.One(models.OrdersByID, func(c *models.StorefrontCheckout) *int64 { return c.OrderID }, orderID)
)

func cartRowID(c *models.Cart) int64                   { return c.ID }
func checkoutRowID(c *models.StorefrontCheckout) int64 { return c.ID }

// Shipping, keys and webhooks.
var (
	zoneRates = loaders.Many(models.RatesByZone, func(z *models.ShippingZone) int64 { return z.ID }, func(r *models.ShippingRate) int64 { return r.ZoneID })

	activityKey  = loaders.One(models.MCPKeysByID, func(a *models.MCPActivity) *int64 { return &a.KeyID }, func(k *models.MCPKey) int64 { return k.ID })
	keyCreatedBy = loaders.One(models.UsersByID, func(k *models.MCPKey) *int64 { return nonZero(&k.CreatedBy) }, func(u *models.User) int64 { return u.ID })

	recentDeliveries = loaders.Many(models.RecentDeliveriesBySubscription, func(s *models.WebhookSubscription) int64 { return s.ID },
		func(d *models.WebhookDelivery) int64 { return d.SubscriptionID })
)

// Checkout pages and zones: how many funnels use a page, the funnels a zone
// routes to, and each of those funnels.
var (
	checkoutPageFunnelCount = loaders.One(models.FunnelCountsByCheckoutPage, func(p *models.CheckoutPage) *int64 { return &p.ID },
		func(c *models.CheckoutPageFunnelCount) int64 { return c.PageID })
	checkoutZoneFunnels = loaders.Many(models.FunnelsByCheckoutZone, func(z *models.CheckoutZone) int64 { return z.ID },
		func(f *models.CheckoutZoneFunnel) int64 { return f.ZoneID })
	checkoutZoneFunnel = loaders.One(models.UpsellFunnelsByID, func(f *models.CheckoutZoneFunnel) *int64 { return &f.FunnelID }, upsellFunnelID)
)

// Upsell funnels: a funnel's steps, its checkout page and the zones that
// route to it; a step's offered product and variant.
var (
	funnelSteps        = loaders.Many(models.StepsByFunnel, upsellFunnelID, func(s *models.FunnelStep) int64 { return s.FunnelID })
	funnelZones        = loaders.Many(models.ZoneRoutesByFunnel, upsellFunnelID, func(z *models.UpsellFunnelZone) int64 { return z.FunnelID })
	funnelCheckoutPage = loaders.One(models.CheckoutPagesByID, func(f *models.UpsellFunnel) *int64 { return f.CheckoutPageID },
		func(p *models.CheckoutPage) int64 { return p.ID })
	stepProduct = loaders.One(models.ProductsByID, func(s *models.FunnelStep) *int64 { return &s.Offer.ProductID }, productID)
	stepVariant = loaders.One(models.VariantsByID, func(s *models.FunnelStep) *int64 { return s.Offer.VariantID }, variantID)
)

func upsellFunnelID(f *models.UpsellFunnel) int64 { return f.ID }

// Funnel runs: an order's run, the run's funnel, zone and offers; an
// offer's step, product, variant and the order line it added; how many
// runs a funnel has had.
var (
	orderFunnelRun = loaders.One(models.FunnelRunsByOrder, func(o *models.Order) *int64 { return &o.ID },
		func(r *models.FunnelRun) int64 { return r.OrderID })
	runFunnel = loaders.One(models.UpsellFunnelsByID, func(r *models.FunnelRun) *int64 { return r.FunnelID }, upsellFunnelID)
	runZone   = loaders.One(models.CheckoutZonesByID, func(r *models.FunnelRun) *int64 { return r.ZoneID },
		func(z *models.CheckoutZone) int64 { return z.ID })
	runOffers = loaders.Many(models.OffersByRun, func(r *models.FunnelRun) int64 { return r.ID },
		func(o *models.FunnelRunOffer) int64 { return o.RunID })
	offerStep = loaders.One(models.FunnelStepsByID, func(o *models.FunnelRunOffer) *int64 { return o.StepID },
		func(s *models.FunnelStep) int64 { return s.ID })
	offerProduct  = loaders.One(models.ProductsByID, func(o *models.FunnelRunOffer) *int64 { return o.ProductID }, productID)
	offerVariant  = loaders.One(models.VariantsByID, func(o *models.FunnelRunOffer) *int64 { return o.VariantID }, variantID)
	offerLineItem = loaders.One(models.LineItemsByID, func(o *models.FunnelRunOffer) *int64 { return o.LineItemID },
		func(l *models.OrderLineItem) int64 { return l.ID })
	funnelRunCount = loaders.One(models.RunCountsByFunnel, func(f *models.UpsellFunnel) *int64 { return &f.ID },
		func(c *models.FunnelRunCount) int64 { return c.FunnelID })
)

// Payment gateways.
var providerWalletDomains = loaders.Many(models.WalletDomainsByProvider, func(p *models.PaymentProvider) int64 { return p.ID },
	func(w *models.WalletDomain) int64 { return w.ProviderID })

// Navigation menus: the records their items refer to.
var menuTargets = loaders.Many(models.MenuTargetsByMenu, func(m *models.Menu) int64 { return m.ID },
	func(t *models.MenuTarget) int64 { return t.MenuID })

// URL redirects.
var redirectOwner = loaders.One(models.URLRedirectOwners, func(r *models.URLRedirect) *int64 { return &r.ID },
	func(o *models.URLRedirectOwner) int64 { return o.RedirectID })

// The keys most relations share.
func productID(p *models.Product) int64        { return p.ID }
func collectionID(c *models.Collection) int64  { return c.ID }
func bundleID(b *models.BundleOffer) int64     { return b.ID }
func orderID(o *models.Order) int64            { return o.ID }
func customerID(c *models.Customer) int64      { return c.ID }
func variantID(v *models.ProductVariant) int64 { return v.ID }
func rateID(r *models.ShippingRate) int64      { return r.ID }

// nonZero is k, or nil when k holds 0 (a key column without a NULL).
func nonZero(k *int64) *int64 {
	if *k == 0 {
		return nil
	}
	return k
}

// Themes: a theme's template and published versions, a template's
// releases.
var (
	themeTemplate = loaders.One(models.MarketTemplatesByID, func(t *models.Theme) *int64 { return &t.TemplateID },
		func(m *models.MarketTemplate) int64 { return m.ID })
	themeVersions    = loaders.Many(models.VersionsByTheme, func(t *models.Theme) int64 { return t.ID }, func(v *models.ThemeVersion) int64 { return v.ThemeID })
	templateReleases = loaders.Many(models.ReleasesByTemplate, func(m *models.MarketTemplate) int64 { return m.ID },
		func(v *models.MarketTemplateRelease) int64 { return v.TemplateID })
)

// A/B tests: an experiment's arms and pauses, a pool's arms.
var (
	experimentVariants = loaders.Many(models.VariantsByExperiment, experimentID,
		func(v *models.ExperimentVariant) int64 { return v.ExperimentID })
	experimentPauses = loaders.Many(models.PausesByExperiment, experimentID,
		func(p *models.ExperimentPauseInterval) int64 { return p.ExperimentID })
	poolVariants = loaders.Many(models.PoolVariantsByPool, func(p *models.ExperimentPool) int64 { return p.ID },
		func(v *models.ExperimentPoolVariant) int64 { return v.PoolID })
)

func experimentID(e *models.Experiment) int64 { return e.ID }

// A/B tests' pools: a store's view's pool, the caller's store's
// experiments of a pool.
var (
	storePoolPool = loaders.One(models.PoolsByID, func(p *models.ExperimentStorePool) *int64 { return &p.PoolID },
		func(p *models.ExperimentPool) int64 { return p.ID })
	poolExperiments = loaders.ManyThrough(models.ExperimentsByPool, func(p *models.ExperimentPool) int64 { return p.ID },
		func(r *models.PoolExperiment) (int64, models.Experiment) { return r.PoolID, r.Experiment })
)

// The product customizer.
var (
	czMockupPrintAreas = loaders.Many(models.PrintAreasByMockup,
		func(m *models.CzMockup) int64 { return m.ID },
		func(p *models.CzPrintArea) int64 { return p.MockupID })

	// A template's preview: its records, and the options of its option
	// set with their values.
	czPreviewBase = loaders.One(models.ProductBasesByID,
		func(p *models.CzTemplatePreview) *int64 { return &p.Template.ProductBaseID },
		func(b *models.CzProductBase) int64 { return b.ID })
	czPreviewDesign = loaders.One(models.DesignsByID,
		func(p *models.CzTemplatePreview) *int64 { return &p.Template.DesignID },
		func(d *models.CzDesign) int64 { return d.ID })
	czPreviewElements = loaders.Many(models.ElementsByDesign,
		func(p *models.CzTemplatePreview) int64 { return p.Template.DesignID },
		func(e *models.CzElement) int64 { return e.DesignID })
	czPreviewMockups = loaders.Many(models.MockupsByBases,
		func(p *models.CzTemplatePreview) int64 { return p.Template.ProductBaseID },
		func(m *models.CzMockup) int64 { return m.ProductBaseID })
	czPreviewTiers = loaders.Many(models.QuantityTiersByTemplate,
		func(p *models.CzTemplatePreview) int64 { return p.Template.ID },
		func(q *models.CzQuantityTier) int64 { return q.TemplateID })
	czPreviewOptionSet = loaders.One(models.OptionSetsByID,
		func(p *models.CzTemplatePreview) *int64 { return p.OptionSetID },
		func(s *models.CzOptionSet) int64 { return s.ID })
	czOptionSetOptions = loaders.Many(models.OptionsByOptionSet,
		func(s *models.CzOptionSet) int64 { return s.ID },
		func(o *models.CzOption) int64 { return o.OptionSetID })
	czOptionValues = loaders.Many(models.OptionValuesByOption,
		func(o *models.CzOption) int64 { return o.ID },
		func(v *models.CzOptionValue) int64 { return v.OptionID })

	// The studio's placements.
	czPlacementMockups = loaders.Many(models.MockupsByBases,
		func(p *models.CzStudioPlacement) int64 { return p.Base.ID },
		func(m *models.CzMockup) int64 { return m.ProductBaseID })
)
