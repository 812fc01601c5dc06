-- Form submissions (what shoppers send through the storefront's forms:
-- contact, newsletter sign-up, wholesale enquiry, ...) and each store's
-- email settings.

CREATE TABLE form_submissions (
    id         bigserial PRIMARY KEY,
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    -- The form's kind; themes may add their own, so it is a handle, not a
    -- closed list.
    type       text NOT NULL CHECK (type ~ '^[a-z0-9][a-z0-9_-]{0,39}$'),
    name       text NOT NULL DEFAULT '',
    email      text NOT NULL DEFAULT '',
    message    text NOT NULL DEFAULT '',
    -- The storefront page the form was sent from.
    source_url text NOT NULL DEFAULT '',
    -- NULL: unread.
    read_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- The list (newest first) and its cursor; a date range is its range.
CREATE INDEX form_submissions_store_created_idx ON form_submissions (store_id, created_at DESC, id DESC);
-- A type's tab and the counts by type.
CREATE INDEX form_submissions_store_type_idx ON form_submissions (store_id, type, created_at DESC, id DESC);
-- The unread ones, which an inbox reads most.
CREATE INDEX form_submissions_store_unread_idx ON form_submissions (store_id, created_at DESC, id DESC) WHERE read_at IS NULL;
-- Free-text search (q) over name, email and message: one trigram index on
-- the expression the filter matches.
CREATE INDEX form_submissions_search_idx ON form_submissions
    USING gin (lower(name || ' ' || email || ' ' || message) gin_trgm_ops);

-- A store's email settings; no row: the defaults (the store's name and
-- contact email), which follow the profile until the store sets its own.
CREATE TABLE email_settings (
    store_id   bigint PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
    from_name  text NOT NULL,
    reply_to   text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
