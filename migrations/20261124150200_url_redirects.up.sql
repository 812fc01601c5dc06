-- URL redirects: a storefront path that sends shoppers elsewhere (a path of
-- the store or another site). Paths and targets are stored normalised
-- (internal/base/storeurl), so one path has one spelling and the unique
-- index below is the "one redirect per path" rule.

CREATE TABLE url_redirects (
    id         bigserial PRIMARY KEY,
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    path       text NOT NULL,
    target     text NOT NULL,
    -- What wrote the redirect last: the API (manual), a sheet (import), or
    -- a changed product or collection handle (automatic).
    source     text NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'import', 'automatic')),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    -- Also the index a chain of redirects is followed by (path = a target).
    UNIQUE (store_id, path)
);
-- The list, newest first, and its created_at range.
CREATE INDEX url_redirects_store_created_idx ON url_redirects (store_id, created_at DESC, id DESC);
-- Free-text search (q) over the path and the target.
CREATE INDEX url_redirects_text_trgm_idx ON url_redirects USING gin (lower(path || E'\n' || target) gin_trgm_ops);
