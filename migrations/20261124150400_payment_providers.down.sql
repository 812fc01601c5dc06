DROP TABLE payment_wallet_domains;
DROP TABLE payment_providers;
