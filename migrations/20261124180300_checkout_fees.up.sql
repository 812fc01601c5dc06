-- The handling surcharge and the tip on what a shopper pays (README
-- "Handling surcharge and tipping"). A placed order carries its surcharge
-- beside its tip (orders.tip_cents), both inside total_cents; a checkout
-- keeps the tip its shopper chose, so that a percentage follows the goods
-- when the checkout is repriced: {"preset": n} or {"amount_cents": n}
-- (models.TipChoice), null for none.
ALTER TABLE orders ADD COLUMN surcharge_cents bigint NOT NULL DEFAULT 0 CHECK (surcharge_cents >= 0);
ALTER TABLE checkouts ADD COLUMN tip jsonb;
