DROP TRIGGER IF EXISTS api_keys_truncated ON api_keys;
DROP TRIGGER IF EXISTS api_keys_deleted ON api_keys;
DROP TRIGGER IF EXISTS api_keys_updated ON api_keys;
DROP FUNCTION IF EXISTS api_keys_notify_change();
