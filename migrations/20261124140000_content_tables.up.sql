-- The tables the content areas share: custom domains (which payment wallet
-- domains are registered for), pages and blog articles (which navigation
-- menus point to and URL redirects can be shadowed by). Each area's own
-- migration adds what only it needs.

CREATE TABLE domains (
    id                 bigserial PRIMARY KEY,
    store_id           bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    -- Lower-case ASCII (IDNA) form; a hostname belongs to one store in the
    -- whole service.
    hostname           text NOT NULL UNIQUE,
    is_primary         boolean NOT NULL DEFAULT false,
    status             text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'active', 'failed')),
    verification_token text NOT NULL,
    dns_check          jsonb,
    last_error         text NOT NULL DEFAULT '',
    ssl_status         text NOT NULL DEFAULT 'pending',
    verified_at        timestamptz,
    checked_at         timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX domains_store_idx ON domains (store_id, id);
-- At most one primary domain per store.
CREATE UNIQUE INDEX domains_store_primary_idx ON domains (store_id) WHERE is_primary;

CREATE TABLE pages (
    id           bigserial PRIMARY KEY,
    store_id     bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    handle       text NOT NULL,
    title        text NOT NULL,
    body_html    text NOT NULL DEFAULT '',
    -- Published when set and not in the future; a future time schedules.
    published_at timestamptz,
    seo          jsonb NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, handle)
);

CREATE TABLE articles (
    id           bigserial PRIMARY KEY,
    store_id     bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    handle       text NOT NULL,
    title        text NOT NULL,
    body_html    text NOT NULL DEFAULT '',
    author       text NOT NULL DEFAULT '',
    tags         text[] NOT NULL DEFAULT '{}',
    excerpt      text NOT NULL DEFAULT '',
    image_src    text NOT NULL DEFAULT '',
    image_thumbhash text NOT NULL DEFAULT '',
    published_at timestamptz,
    seo          jsonb NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, handle)
);
CREATE INDEX articles_store_published_idx ON articles (store_id, published_at DESC, id DESC);
CREATE INDEX articles_tags_idx ON articles USING gin (tags);
