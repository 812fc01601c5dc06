-- A draft order's line keeps properties as a cart's and a checkout's line
-- do (null for none), so a customised line's selections (the property
-- _customization, README "Product customizer / Pricing and selections")
-- travel from the draft into its order.
ALTER TABLE draft_order_lines ADD COLUMN properties jsonb;
