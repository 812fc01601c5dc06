-- A visitor identifies when a cart or checkout of theirs carries the
-- shopper's email: visitors.email becomes the latest email a record of the
-- visitor carries, and visitors.identified_at the first time one did (the
-- record's updated_at, the service's clock). Before, nothing wrote either:
-- the A/B tests never excluded the store's staff (an exposure's visitor
-- identified with a member's email), and an abandoned cart's
-- visitor_identified_at and StorefrontVisitor.identified_at were always
-- null.
--
-- Triggers, because every writer of carts and checkouts passes them: the
-- storefront's cart and checkout calls, the seed, tests' fixtures.
-- A write that changes neither the email nor the visitor (the abandonment
-- job, a checkout completing, a re-save) identifies no one, so re-saving an
-- old cart never brings back an email the shopper has since replaced.

CREATE TYPE visitor_identity AS (store_id bigint, visitor_id bigint, email text, at timestamptz);

-- identify_visitors identifies the visitors of seen: each takes its latest
-- email (the latest at; of two at once, the later in seen) and keeps its
-- earliest identification. A visitor already so is not written.
CREATE FUNCTION identify_visitors(seen visitor_identity[]) RETURNS void LANGUAGE sql AS $$
    UPDATE visitors v SET email = r.email, identified_at = least(v.identified_at, r.first_at)
    FROM (
        SELECT s.store_id, s.visitor_id,
               (array_agg(s.email ORDER BY s.at DESC, s.ord DESC))[1] AS email,
               min(s.at) AS first_at
        FROM unnest(seen) WITH ORDINALITY AS s (store_id, visitor_id, email, at, ord)
        GROUP BY 1, 2
    ) r
    WHERE v.id = r.visitor_id AND v.store_id = r.store_id
      AND (v.email <> r.email OR v.identified_at IS NULL OR r.first_at < v.identified_at)
$$;

-- The rows of a statement on carts or checkouts that identify their
-- visitor: inserted with an email and a visitor, or updated to a new email
-- or visitor.
CREATE FUNCTION identify_visitors_of_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM identify_visitors(ARRAY(
            SELECT ROW(n.store_id, n.visitor_id, n.email, n.updated_at)::visitor_identity FROM new_rows n
            WHERE n.visitor_id IS NOT NULL AND n.email <> '' ORDER BY n.id));
    ELSE
        PERFORM identify_visitors(ARRAY(
            SELECT ROW(n.store_id, n.visitor_id, n.email, n.updated_at)::visitor_identity
            FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE n.visitor_id IS NOT NULL AND n.email <> ''
              AND (n.visitor_id, n.email) IS DISTINCT FROM (o.visitor_id, o.email)
            ORDER BY n.id));
    END IF;
    RETURN NULL;
END
$$;

-- Named to fire before storefront_sessions_steps_* (triggers of one event
-- fire in the order of their names): a cart's or checkout's write then
-- locks its visitor before its session, in the order ingestion does, so
-- the two never wait on each other in a circle.
CREATE TRIGGER carts_identify_visitor_insert AFTER INSERT ON carts
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION identify_visitors_of_rows();
CREATE TRIGGER carts_identify_visitor_update AFTER UPDATE ON carts
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION identify_visitors_of_rows();
CREATE TRIGGER checkouts_identify_visitor_insert AFTER INSERT ON checkouts
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION identify_visitors_of_rows();
CREATE TRIGGER checkouts_identify_visitor_update AFTER UPDATE ON checkouts
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION identify_visitors_of_rows();

-- Derived data that must stay true whoever writes, in any
-- session_replication_role (a bulk fill's replica role included).
ALTER TABLE carts ENABLE ALWAYS TRIGGER carts_identify_visitor_insert;
ALTER TABLE carts ENABLE ALWAYS TRIGGER carts_identify_visitor_update;
ALTER TABLE checkouts ENABLE ALWAYS TRIGGER checkouts_identify_visitor_insert;
ALTER TABLE checkouts ENABLE ALWAYS TRIGGER checkouts_identify_visitor_update;

-- The records there are: each visitor the latest email of its carts and
-- checkouts (by updated_at), identified at the earliest of them.
SELECT identify_visitors(ARRAY(
    SELECT ROW(r.store_id, r.visitor_id, r.email, r.updated_at)::visitor_identity
    FROM (SELECT store_id, visitor_id, email, updated_at, id FROM carts WHERE visitor_id IS NOT NULL AND email <> ''
          UNION ALL
          SELECT store_id, visitor_id, email, updated_at, id FROM checkouts WHERE visitor_id IS NOT NULL AND email <> '') r
    ORDER BY r.updated_at, r.id));
