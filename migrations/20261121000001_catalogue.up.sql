-- The catalogue: products with options, variants and images; manual and
-- smart collections; volume bundles; product reviews; uploaded media; and
-- the service's own signing key for upload and download URLs.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE service_secrets (
    name       text PRIMARY KEY,
    secret     bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE media (
    id           bigserial PRIMARY KEY,
    store_id     bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    key          text NOT NULL,
    src          text NOT NULL,
    filename     text NOT NULL,
    content_type text NOT NULL,
    width        integer NOT NULL,
    height       integer NOT NULL,
    thumbhash    text NOT NULL,
    bytes        bigint NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, src)
);

CREATE TABLE products (
    id                     bigserial PRIMARY KEY,
    store_id               bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    handle                 text NOT NULL,
    title                  text NOT NULL,
    body_html              text NOT NULL DEFAULT '',
    vendor                 text NOT NULL DEFAULT '',
    product_type           text NOT NULL DEFAULT '',
    status                 text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'archived')),
    tags                   text[] NOT NULL DEFAULT '{}',
    seo                    jsonb NOT NULL DEFAULT '{}',
    options                jsonb NOT NULL DEFAULT '[]',
    adplatform_category_id bigint NOT NULL DEFAULT 0,
    rating_avg             integer NOT NULL DEFAULT 0,
    rating_count           integer NOT NULL DEFAULT 0,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, handle)
);
CREATE INDEX products_store_updated_idx ON products (store_id, updated_at DESC, id DESC);
CREATE INDEX products_tags_idx ON products USING gin (tags);
CREATE INDEX products_title_trgm_idx ON products USING gin (lower(title) gin_trgm_ops);

CREATE TABLE product_images (
    id         bigserial PRIMARY KEY,
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    product_id bigint NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    position   integer NOT NULL,
    src        text NOT NULL,
    alt        text NOT NULL DEFAULT '',
    width      integer NOT NULL DEFAULT 0,
    height     integer NOT NULL DEFAULT 0,
    thumbhash  text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX product_images_product_idx ON product_images (product_id, position);

CREATE TABLE product_variants (
    id                     bigserial PRIMARY KEY,
    store_id               bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    product_id             bigint NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    position               integer NOT NULL,
    title                  text NOT NULL,
    option1                text NOT NULL DEFAULT '',
    option2                text NOT NULL DEFAULT '',
    option3                text NOT NULL DEFAULT '',
    sku                    text NOT NULL DEFAULT '',
    barcode                text NOT NULL DEFAULT '',
    price_cents            bigint NOT NULL CHECK (price_cents >= 0),
    compare_at_price_cents bigint CHECK (compare_at_price_cents >= 0),
    cost_cents             bigint CHECK (cost_cents >= 0),
    weight_grams           bigint NOT NULL DEFAULT 0 CHECK (weight_grams >= 0),
    inventory_quantity     bigint NOT NULL DEFAULT 0,
    inventory_policy       text NOT NULL DEFAULT 'deny' CHECK (inventory_policy IN ('deny', 'continue')),
    track_inventory        boolean NOT NULL DEFAULT true,
    taxable                boolean NOT NULL DEFAULT true,
    requires_shipping      boolean NOT NULL DEFAULT true,
    image_id               bigint REFERENCES product_images (id) ON DELETE SET NULL,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX product_variants_product_idx ON product_variants (product_id, position);
-- A SKU names one variant in a store: imports rename duplicates, the API
-- refuses them.
CREATE UNIQUE INDEX product_variants_sku_key ON product_variants (store_id, lower(sku)) WHERE sku <> '';

CREATE TABLE collections (
    id              bigserial PRIMARY KEY,
    store_id        bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    handle          text NOT NULL,
    title           text NOT NULL,
    description     text NOT NULL DEFAULT '',
    collection_type text NOT NULL CHECK (collection_type IN ('manual', 'smart')),
    disjunctive     boolean NOT NULL DEFAULT false,
    rules           jsonb NOT NULL DEFAULT '[]',
    sort_order      text NOT NULL DEFAULT 'manual',
    published       boolean NOT NULL DEFAULT true,
    image_src       text NOT NULL DEFAULT '',
    seo             jsonb NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, handle)
);

-- Members of manual collections are chosen; members of smart collections
-- are recomputed from the rules whenever a product or the rules change.
CREATE TABLE collection_products (
    collection_id bigint NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
    product_id    bigint NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    store_id      bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    position      integer NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (collection_id, product_id)
);
CREATE INDEX collection_products_product_idx ON collection_products (product_id);

CREATE TABLE bundles (
    id                       bigserial PRIMARY KEY,
    store_id                 bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    title                    text NOT NULL,
    enabled                  boolean NOT NULL DEFAULT true,
    applies_to               text NOT NULL CHECK (applies_to IN ('all', 'products', 'collections')),
    include_plain_items      boolean NOT NULL DEFAULT false,
    variant_selectors        boolean NOT NULL DEFAULT true,
    variant_selectors_single boolean NOT NULL DEFAULT false,
    created_at               timestamptz NOT NULL DEFAULT now(),
    updated_at               timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE bundle_tiers (
    id            bigserial PRIMARY KEY,
    store_id      bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    bundle_id     bigint NOT NULL REFERENCES bundles (id) ON DELETE CASCADE,
    position      integer NOT NULL,
    quantity      integer NOT NULL CHECK (quantity >= 1),
    discount_bps  integer NOT NULL CHECK (discount_bps BETWEEN 0 AND 10000),
    free_shipping boolean NOT NULL DEFAULT false,
    label         text NOT NULL DEFAULT '',
    title         text NOT NULL DEFAULT '',
    caption       text NOT NULL DEFAULT '',
    benefit_label text NOT NULL DEFAULT '',
    preselected   boolean NOT NULL DEFAULT false,
    UNIQUE (bundle_id, quantity)
);

CREATE TABLE bundle_products (
    bundle_id  bigint NOT NULL REFERENCES bundles (id) ON DELETE CASCADE,
    product_id bigint NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    PRIMARY KEY (bundle_id, product_id)
);
CREATE INDEX bundle_products_product_idx ON bundle_products (product_id);

CREATE TABLE bundle_collections (
    bundle_id     bigint NOT NULL REFERENCES bundles (id) ON DELETE CASCADE,
    collection_id bigint NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
    store_id      bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    PRIMARY KEY (bundle_id, collection_id)
);
CREATE INDEX bundle_collections_collection_idx ON bundle_collections (collection_id);

CREATE TABLE reviews (
    id         bigserial PRIMARY KEY,
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    product_id bigint NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    order_id   bigint,
    rating     integer NOT NULL CHECK (rating BETWEEN 1 AND 5),
    title      text NOT NULL DEFAULT '',
    body       text NOT NULL DEFAULT '',
    author     text NOT NULL,
    email      text NOT NULL DEFAULT '',
    status     text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'published', 'rejected')),
    featured   boolean NOT NULL DEFAULT false,
    verified   boolean NOT NULL DEFAULT false,
    source     text NOT NULL DEFAULT 'storefront',
    reply      text NOT NULL DEFAULT '',
    replied_at timestamptz,
    photos     jsonb NOT NULL DEFAULT '[]',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reviews_store_created_idx ON reviews (store_id, created_at DESC, id DESC);
CREATE INDEX reviews_product_idx ON reviews (product_id, status);
