// Package models holds storeadmin's records, their storage and the rules
// every caller shares.
//
// Records are bun models (one table, one struct) with their enums.
// Storage functions take a bun.IDB, so they work in or out of a
// transaction, and a store id, so every query is scoped to one tenant.
// The rules are what must hold whoever makes the change: placing an order
// as its payment started (PlaceOrder: a sale, an authorization, a pending
// payment or none yet), and what follows (CapturePayment, RecordPayment,
// FulfilOrder, CancelFulfillment, RefundOrder, CancelOrder, ArchiveOrder,
// UpdateOrderNoteTags), the line quantities a refund or shipment may name,
// the derived order states, repricing a draft (RepriceDraft), stock
// (AdjustInventory), discount redemption (RedeemDiscount). They run in the
// caller's transaction, on an order it has locked, told who acted and
// when (Actor, Now: the seed's history happens in the past). Where a
// caller makes many changes of one kind there is a bulk form (PlaceOrders,
// FulfilOrders, CancelFulfillments, CapturePayments, RecordPayments,
// RefundOrders, CancelOrders, ArchiveOrders: a fixed number of statements
// per batch), of which the single form is the one-element case, so each
// rule has one implementation.
//
// Every layer above calls models directly: the resolvers, the command
// line, the seed, the event outbox, the audit log and the authenticator.
// So a rule that must hold for every caller belongs here, not in a
// resolver. What models does not do: check a client's input for the
// client's sake (field lengths, required fields, enum spelling: the
// resolvers) and emit events (the resolvers, right after the change, in
// its transaction: an event carries the REST detail view).
package models
