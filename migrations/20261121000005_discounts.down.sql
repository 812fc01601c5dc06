DROP TABLE IF EXISTS discount_redemptions, discounts;
