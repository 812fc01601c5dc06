DROP VIEW IF EXISTS product_summaries;
