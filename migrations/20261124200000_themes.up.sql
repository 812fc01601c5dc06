-- Themes and the theme market (README "Themes"): the market's templates,
-- platform-wide, and their released versions; which templates a store owns;
-- a store's themes with their drafts, their published versions, and the one
-- theme that is live.

-- A template of the market, the same for every store. A family groups
-- templates that share a storefront renderer (and so the shape of their
-- settings). preview_images is a list of image URLs.
CREATE TABLE market_templates (
    key            text PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9-]{1,62}$'),
    family         text NOT NULL CHECK (family ~ '^[a-z][a-z0-9-]{1,62}$'),
    name           text NOT NULL CHECK (name <> ''),
    author         text NOT NULL,
    category       text NOT NULL,
    tagline        text NOT NULL,
    description    text NOT NULL,
    -- 0: free, installable by any store; otherwise only by a store that
    -- owns it.
    price_cents    bigint NOT NULL CHECK (price_cents >= 0),
    currency       text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    preview_images jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(preview_images) = 'array'),
    thumbnail_url  text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- A released version of a template: version counts 1, 2, … per template
-- (the latest is the highest), theme_version is the author's label
-- ("2.1.0"). settings_schema is in the subset internal/themesettings reads,
-- default_settings a theme's first draft. Released means immutable: the
-- trigger below refuses any change, so what a theme was installed from stays
-- what it was.
CREATE TABLE market_template_versions (
    template_key     text NOT NULL REFERENCES market_templates (key) ON DELETE CASCADE,
    version          integer NOT NULL CHECK (version >= 1),
    theme_version    text NOT NULL CHECK (theme_version ~ '^[0-9]+\.[0-9]+\.[0-9]+$'),
    settings_schema  jsonb NOT NULL CHECK (jsonb_typeof(settings_schema) = 'object'),
    default_settings jsonb NOT NULL CHECK (jsonb_typeof(default_settings) = 'object'),
    released_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (template_key, version),
    UNIQUE (template_key, theme_version)
);

-- Released and published versions are never rewritten: one function for
-- both tables' triggers.
CREATE FUNCTION refuse_version_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% rows are immutable: a released or published version is never rewritten', TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER market_template_versions_immutable BEFORE UPDATE ON market_template_versions
    FOR EACH ROW EXECUTE FUNCTION refuse_version_change();

-- The templates a store owns: bought (recorded; there is no payment flow) or
-- installed when free.
CREATE TABLE store_templates (
    store_id     bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    template_key text NOT NULL REFERENCES market_templates (key) ON DELETE CASCADE,
    owned_since  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (store_id, template_key)
);

-- A store's theme: its draft, edited freely, follows the settings schema of
-- one template version (base_key, template_version), which a theme keeps for
-- life (an update from the template makes a new theme). source_template_key
-- and source_theme_version say where it came from when it was installed
-- from the market (or updated from it), as they were: null for a theme made
-- otherwise.
CREATE TABLE themes (
    id                   bigserial PRIMARY KEY,
    store_id             bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    name                 text NOT NULL CHECK (name <> ''),
    base_key             text NOT NULL,
    template_version     integer NOT NULL,
    draft_settings       jsonb NOT NULL CHECK (jsonb_typeof(draft_settings) = 'object'),
    source_template_key  text,
    source_theme_version text,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (base_key, template_version) REFERENCES market_template_versions (template_key, version),
    UNIQUE (id, store_id)
);
CREATE INDEX themes_store_idx ON themes (store_id, id);

-- A published version of a theme: version counts 1, 2, … per theme, id is
-- the publication_id, settings the draft as it was. Immutable, as template
-- versions are; they go only with their theme.
CREATE TABLE theme_versions (
    id           bigserial PRIMARY KEY,
    store_id     bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    theme_id     bigint NOT NULL,
    version      integer NOT NULL CHECK (version >= 1),
    settings     jsonb NOT NULL,
    published_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (theme_id, store_id) REFERENCES themes (id, store_id) ON DELETE CASCADE,
    UNIQUE (theme_id, version),
    UNIQUE (id, theme_id)
);
CREATE INDEX theme_versions_store_idx ON theme_versions (store_id, theme_id);
CREATE TRIGGER theme_versions_immutable BEFORE UPDATE ON theme_versions
    FOR EACH ROW EXECUTE FUNCTION refuse_version_change();

-- The store's live theme: one row per store, so never two (publishes race
-- on this row, and the last one wins whole). It names a published version
-- of that very theme of that very store (the composite keys), and its theme
-- cannot be deleted while it is live (the foreign key, checked at the end of
-- the statement, so deleting the whole store still cascades).
CREATE TABLE store_live_themes (
    store_id       bigint PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
    theme_id       bigint NOT NULL,
    publication_id bigint NOT NULL,
    since          timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (theme_id, store_id) REFERENCES themes (id, store_id),
    FOREIGN KEY (publication_id, theme_id) REFERENCES theme_versions (id, theme_id)
);

-- What went live when: each publish and each rollback, so a rollback is
-- recorded without rewriting a version.
CREATE TABLE theme_live_changes (
    id             bigserial PRIMARY KEY,
    store_id       bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    theme_id       bigint NOT NULL,
    publication_id bigint NOT NULL,
    reason         text NOT NULL CHECK (reason IN ('publish', 'rollback')),
    changed_at     timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (publication_id, theme_id) REFERENCES theme_versions (id, theme_id) ON DELETE CASCADE
);
CREATE INDEX theme_live_changes_store_idx ON theme_live_changes (store_id, id);
