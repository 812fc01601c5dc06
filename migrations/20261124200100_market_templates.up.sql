-- The market's first templates: five in two families. Atelier (a quiet
-- editorial storefront: Classic, Noir, Bloom) and Harbor (a busy catalogue
-- storefront: Harbor, Harbor Market). Atelier Classic and Harbor have two
-- released versions each, so stores that installed the first one have an
-- update available. Operators add more with `storeadmin market add` and
-- `storeadmin market release`; every schema here is in the subset
-- internal/themesettings reads, and every default passes it (its test
-- checks what this migration ships).

INSERT INTO market_templates (key, family, name, author, category, tagline, description, price_cents, currency, preview_images, thumbnail_url) VALUES
('atelier-classic', 'atelier', 'Atelier Classic', 'Storeadmin Studio', 'fashion',
 'Large photographs and calm type for a small collection.',
 'An editorial storefront for shops with a few dozen products: a full-width hero, featured collections, image-with-text stories and a newsletter block.',
 0, 'USD', '["https://themes.storeadmin.dev/atelier-classic/home.jpg", "https://themes.storeadmin.dev/atelier-classic/product.jpg"]',
 'https://themes.storeadmin.dev/atelier-classic/thumb.jpg'),
('atelier-noir', 'atelier', 'Atelier Noir', 'Storeadmin Studio', 'fashion',
 'Atelier on black, for evening wear and jewellery.',
 'The Atelier layout in a dark palette with gold accents and a serif display face, tuned for products photographed on dark backgrounds.',
 18000, 'USD', '["https://themes.storeadmin.dev/atelier-noir/home.jpg", "https://themes.storeadmin.dev/atelier-noir/collection.jpg"]',
 'https://themes.storeadmin.dev/atelier-noir/thumb.jpg'),
('atelier-bloom', 'atelier', 'Atelier Bloom', 'Petal & Press', 'beauty',
 'Soft colours and rounded type for beauty and florists.',
 'The Atelier layout with a pastel palette, testimonials up front and a sticky header, made for cosmetics, skincare and flower shops.',
 9000, 'USD', '["https://themes.storeadmin.dev/atelier-bloom/home.jpg"]',
 'https://themes.storeadmin.dev/atelier-bloom/thumb.jpg'),
('harbor', 'harbor', 'Harbor', 'Storeadmin Studio', 'general',
 'A dependable catalogue storefront for any size of shop.',
 'Slideshows, collection lists and a cart drawer; the page width and cart style are settings, so one theme fits a hardware store and a bookshop alike.',
 0, 'USD', '["https://themes.storeadmin.dev/harbor/home.jpg", "https://themes.storeadmin.dev/harbor/cart.jpg"]',
 'https://themes.storeadmin.dev/harbor/thumb.jpg'),
('harbor-market', 'harbor', 'Harbor Market', 'Northwind Themes', 'food',
 'Harbor for grocers: wide grids, a map and quick add to cart.',
 'The Harbor layout with a wide page, a store-locator map section and a featured product block, for grocers, delis and farm shops.',
 24000, 'EUR', '["https://themes.storeadmin.dev/harbor-market/home.jpg", "https://themes.storeadmin.dev/harbor-market/map.jpg"]',
 'https://themes.storeadmin.dev/harbor-market/thumb.jpg');

-- Each family's schema is written once; the second Atelier Classic release
-- adds the product grid and narrows the base text size, the second Harbor
-- release adds the footer.
WITH schemas (name, body) AS (VALUES
('atelier-1', $${
  "type": "object",
  "required": ["colors", "typography"],
  "properties": {
    "colors": {
      "type": "object", "title": "Colours",
      "required": ["background", "text", "accent"],
      "properties": {
        "background": {"type": "string", "format": "color", "title": "Background"},
        "text": {"type": "string", "format": "color", "title": "Text"},
        "accent": {"type": "string", "format": "color", "title": "Accent (buttons and links)"},
        "sale_badge": {"type": "string", "format": "color", "title": "Sale badge"}
      }
    },
    "typography": {
      "type": "object", "title": "Typography",
      "required": ["heading_font", "body_font"],
      "properties": {
        "heading_font": {"type": "string", "format": "font", "title": "Headings"},
        "body_font": {"type": "string", "format": "font", "enum": ["Inter", "Lora", "Work Sans", "DM Sans"], "title": "Body text"},
        "base_size": {"type": "integer", "minimum": 14, "maximum": 20, "title": "Base text size (px)"}
      }
    },
    "header": {
      "type": "object", "title": "Header",
      "properties": {
        "layout": {"type": "string", "enum": ["centered", "left"]},
        "sticky": {"type": "boolean"},
        "logo": {"type": "image"},
        "logo_width": {"type": "integer", "minimum": 60, "maximum": 300, "title": "Logo width (px)"}
      }
    },
    "announcement": {
      "type": "object", "title": "Announcement bar",
      "properties": {
        "enabled": {"type": "boolean"},
        "text": {"type": "string", "maxLength": 120}
      }
    },
    "sections": {
      "type": "array", "title": "Home page sections", "maxItems": 12,
      "items": {
        "type": "object",
        "required": ["kind"],
        "properties": {
          "kind": {"type": "string", "enum": ["hero", "featured_collection", "image_with_text", "testimonials", "newsletter"]},
          "heading": {"type": "string", "maxLength": 80},
          "image": {"type": "image"},
          "collection_handle": {"type": "string", "maxLength": 255},
          "products_to_show": {"type": "integer", "minimum": 2, "maximum": 12}
        }
      }
    }
  }
}$$::jsonb),
('harbor-1', $${
  "type": "object",
  "required": ["colors", "typography", "layout"],
  "properties": {
    "colors": {
      "type": "object", "title": "Colours",
      "required": ["primary", "background", "text"],
      "properties": {
        "primary": {"type": "string", "format": "color"},
        "secondary": {"type": "string", "format": "color"},
        "background": {"type": "string", "format": "color"},
        "text": {"type": "string", "format": "color"}
      }
    },
    "typography": {
      "type": "object", "title": "Typography",
      "required": ["font"],
      "properties": {
        "font": {"type": "string", "format": "font"},
        "scale": {"type": "number", "minimum": 0.9, "maximum": 1.3, "title": "Type scale"}
      }
    },
    "layout": {
      "type": "object", "title": "Layout",
      "required": ["page_width", "cart_type"],
      "properties": {
        "page_width": {"type": "string", "enum": ["narrow", "standard", "wide"]},
        "cart_type": {"type": "string", "enum": ["drawer", "page", "notification"]},
        "products_per_row": {"type": "integer", "enum": [2, 3, 4, 5]}
      }
    },
    "sections": {
      "type": "array", "title": "Home page sections", "maxItems": 16,
      "items": {
        "type": "object",
        "required": ["kind"],
        "properties": {
          "kind": {"type": "string", "enum": ["slideshow", "collection_list", "rich_text", "featured_product", "map"]},
          "heading": {"type": "string", "maxLength": 80},
          "text": {"type": "string", "maxLength": 2000},
          "image": {"type": "image"},
          "autoplay_seconds": {"type": "integer", "minimum": 3, "maximum": 10}
        }
      }
    }
  }
}$$::jsonb)
),
atelier_2 (body) AS (
    SELECT jsonb_set(
        jsonb_set(body, '{properties,typography,properties,base_size,maximum}', '18'),
        '{properties,product_grid}',
        $${
          "type": "object", "title": "Product grid",
          "properties": {
            "columns": {"type": "integer", "enum": [2, 3, 4]},
            "image_ratio": {"type": "string", "enum": ["square", "portrait", "natural"]},
            "show_vendor": {"type": "boolean"}
          }
        }$$::jsonb)
    FROM schemas WHERE name = 'atelier-1'
),
harbor_2 (body) AS (
    SELECT jsonb_set(body, '{properties,footer}',
        $${
          "type": "object", "title": "Footer",
          "properties": {
            "show_payment_icons": {"type": "boolean"},
            "newsletter_heading": {"type": "string", "maxLength": 60}
          }
        }$$::jsonb)
    FROM schemas WHERE name = 'harbor-1'
)
INSERT INTO market_template_versions (template_key, version, theme_version, settings_schema, default_settings)
SELECT 'atelier-classic', 1, '1.0.0', body, $${
  "colors": {"background": "#ffffff", "text": "#1c1c1c", "accent": "#8a5a44", "sale_badge": "#c0392b"},
  "typography": {"heading_font": "Playfair Display", "body_font": "Lora", "base_size": 16},
  "header": {"layout": "centered", "sticky": false, "logo": null, "logo_width": 140},
  "announcement": {"enabled": true, "text": "Free shipping on orders over $100"},
  "sections": [
    {"kind": "hero", "heading": "The new season", "image": null},
    {"kind": "featured_collection", "heading": "New arrivals", "collection_handle": "new-arrivals", "products_to_show": 8},
    {"kind": "image_with_text", "heading": "Made by hand", "image": null},
    {"kind": "newsletter", "heading": "Letters from the studio"}
  ]
}$$::jsonb FROM schemas WHERE name = 'atelier-1'
UNION ALL
SELECT 'atelier-classic', 2, '1.1.0', body, $${
  "colors": {"background": "#ffffff", "text": "#1c1c1c", "accent": "#8a5a44", "sale_badge": "#c0392b"},
  "typography": {"heading_font": "Playfair Display", "body_font": "Lora", "base_size": 16},
  "header": {"layout": "centered", "sticky": true, "logo": null, "logo_width": 140},
  "announcement": {"enabled": true, "text": "Free shipping on orders over $100"},
  "product_grid": {"columns": 3, "image_ratio": "portrait", "show_vendor": false},
  "sections": [
    {"kind": "hero", "heading": "The new season", "image": null},
    {"kind": "featured_collection", "heading": "New arrivals", "collection_handle": "new-arrivals", "products_to_show": 6},
    {"kind": "image_with_text", "heading": "Made by hand", "image": null},
    {"kind": "newsletter", "heading": "Letters from the studio"}
  ]
}$$::jsonb FROM atelier_2
UNION ALL
SELECT 'atelier-noir', 1, '2.1.0', body, $${
  "colors": {"background": "#0d0d0d", "text": "#f2f2f2", "accent": "#c9a227", "sale_badge": "#c9a227"},
  "typography": {"heading_font": "Playfair Display", "body_font": "Inter", "base_size": 15},
  "header": {"layout": "centered", "sticky": true, "logo": null, "logo_width": 120},
  "announcement": {"enabled": false, "text": ""},
  "product_grid": {"columns": 2, "image_ratio": "portrait", "show_vendor": true},
  "sections": [
    {"kind": "hero", "heading": "After dark", "image": null},
    {"kind": "featured_collection", "heading": "Evening", "collection_handle": "evening", "products_to_show": 4},
    {"kind": "testimonials", "heading": "Worn by"}
  ]
}$$::jsonb FROM atelier_2
UNION ALL
SELECT 'atelier-bloom', 1, '1.0.0', body, $${
  "colors": {"background": "#fff7f5", "text": "#4a3b3b", "accent": "#e58fa1"},
  "typography": {"heading_font": "Poppins", "body_font": "DM Sans", "base_size": 16},
  "header": {"layout": "left", "sticky": true, "logo": null, "logo_width": 100},
  "announcement": {"enabled": true, "text": "Same-day delivery in town before 2 pm"},
  "product_grid": {"columns": 4, "image_ratio": "square", "show_vendor": false},
  "sections": [
    {"kind": "testimonials", "heading": "Loved by our customers"},
    {"kind": "hero", "heading": "Fresh this week", "image": null},
    {"kind": "featured_collection", "heading": "Bestsellers", "collection_handle": "bestsellers", "products_to_show": 8}
  ]
}$$::jsonb FROM atelier_2
UNION ALL
SELECT 'harbor', 1, '3.0.0', body, $${
  "colors": {"primary": "#1f4e79", "secondary": "#f2a900", "background": "#ffffff", "text": "#222222"},
  "typography": {"font": "Roboto", "scale": 1.0},
  "layout": {"page_width": "standard", "cart_type": "drawer", "products_per_row": 4},
  "sections": [
    {"kind": "slideshow", "heading": "Welcome aboard", "image": null, "autoplay_seconds": 5},
    {"kind": "collection_list", "heading": "Shop by department"},
    {"kind": "rich_text", "heading": "About us", "text": "Tell your customers who you are."}
  ]
}$$::jsonb FROM schemas WHERE name = 'harbor-1'
UNION ALL
SELECT 'harbor', 2, '3.1.0', body, $${
  "colors": {"primary": "#1f4e79", "secondary": "#f2a900", "background": "#ffffff", "text": "#222222"},
  "typography": {"font": "Roboto", "scale": 1.0},
  "layout": {"page_width": "standard", "cart_type": "drawer", "products_per_row": 4},
  "footer": {"show_payment_icons": true, "newsletter_heading": "Stay in the loop"},
  "sections": [
    {"kind": "slideshow", "heading": "Welcome aboard", "image": null, "autoplay_seconds": 5},
    {"kind": "collection_list", "heading": "Shop by department"},
    {"kind": "rich_text", "heading": "About us", "text": "Tell your customers who you are."}
  ]
}$$::jsonb FROM harbor_2
UNION ALL
SELECT 'harbor-market', 1, '1.0.0', body, $${
  "colors": {"primary": "#2e7d32", "secondary": "#ff8f00", "background": "#fbfbf7", "text": "#1b1b1b"},
  "typography": {"font": "Work Sans", "scale": 1.1},
  "layout": {"page_width": "wide", "cart_type": "notification", "products_per_row": 5},
  "footer": {"show_payment_icons": true, "newsletter_heading": "This week's harvest"},
  "sections": [
    {"kind": "featured_product", "heading": "In season"},
    {"kind": "collection_list", "heading": "Aisles"},
    {"kind": "map", "heading": "Find our shop"}
  ]
}$$::jsonb FROM harbor_2;

-- Every store has a live theme from its first moment, as storefronts need
-- one to draw: a new store gets the default template (harbor, free, at its
-- latest release) installed, owned, and published as version 1, live. The
-- stores that exist already get it here, new ones from the trigger: the one
-- path of a default theme. Its draft is the release's defaults, copied in
-- the database as an install and a publish copy them.
CREATE FUNCTION install_default_theme(p_store bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_theme bigint;
    v_publication bigint;
BEGIN
    INSERT INTO store_templates (store_id, template_key) VALUES (p_store, 'harbor')
        ON CONFLICT (store_id, template_key) DO NOTHING;
    INSERT INTO themes (store_id, name, base_key, template_version, draft_settings, source_template_key, source_theme_version)
        SELECT p_store, t.name, v.template_key, v.version, v.default_settings, v.template_key, v.theme_version
        FROM market_templates AS t JOIN market_template_versions AS v ON v.template_key = t.key
        WHERE t.key = 'harbor' ORDER BY v.version DESC LIMIT 1
        RETURNING id INTO v_theme;
    INSERT INTO theme_versions (store_id, theme_id, version, settings)
        SELECT store_id, id, 1, draft_settings FROM themes WHERE id = v_theme
        RETURNING id INTO v_publication;
    INSERT INTO store_live_themes (store_id, theme_id, publication_id) VALUES (p_store, v_theme, v_publication);
    INSERT INTO theme_live_changes (store_id, theme_id, publication_id, reason) VALUES (p_store, v_theme, v_publication, 'publish');
END $$;

CREATE FUNCTION stores_default_theme() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM install_default_theme(NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER stores_default_theme AFTER INSERT ON stores
    FOR EACH ROW EXECUTE FUNCTION stores_default_theme();

SELECT install_default_theme(id) FROM stores
    WHERE NOT EXISTS (SELECT 1 FROM store_live_themes AS l WHERE l.store_id = stores.id);
