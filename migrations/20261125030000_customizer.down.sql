DROP TABLE cz_product_bindings, cz_quantity_tiers, cz_templates, cz_option_values, cz_options,
    cz_option_sets, cz_print_areas, cz_mockups, cz_product_bases, cz_library_items, cz_libraries,
    cz_elements, cz_designs;
