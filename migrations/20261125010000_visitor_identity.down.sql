-- Visitors keep the identities the up migration and the triggers wrote.
DROP TRIGGER carts_identify_visitor_insert ON carts;
DROP TRIGGER carts_identify_visitor_update ON carts;
DROP TRIGGER checkouts_identify_visitor_insert ON checkouts;
DROP TRIGGER checkouts_identify_visitor_update ON checkouts;
DROP FUNCTION identify_visitors_of_rows();
DROP FUNCTION identify_visitors(visitor_identity[]);
DROP TYPE visitor_identity;
