DROP TABLE IF EXISTS webhook_deliveries, webhook_subscriptions, audit_logs, store_settings,
    mcp_activity, mcp_keys, api_keys, store_members, users, stores;
