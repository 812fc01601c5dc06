DROP TABLE IF EXISTS reviews, bundle_collections, bundle_products, bundle_tiers, bundles,
    collection_products, collections, product_variants, product_images, products, media,
    service_secrets;
