-- Every change to an API key that can alter what the key may do is announced
-- on the channel api_keys_changed, in the changing transaction, whoever makes
-- it (the API, the command line, a person in psql, a store's deletion
-- cascading to its keys). Each serve process keeps the keys it has checked in
-- memory and drops one when it hears of it: the payload is the hex of the
-- key's secret hash, the cache's own key; an empty payload drops them all.
-- Only last_used_at, which the authenticator itself writes once a minute per
-- key, changes without a notice: it says nothing about access.
CREATE FUNCTION api_keys_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('api_keys_changed', '');
        RETURN NULL;
    END IF;
    PERFORM pg_notify('api_keys_changed', encode(OLD.secret_hash, 'hex'));
    IF TG_OP = 'UPDATE' AND NEW.secret_hash <> OLD.secret_hash THEN
        PERFORM pg_notify('api_keys_changed', encode(NEW.secret_hash, 'hex'));
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_updated AFTER UPDATE ON api_keys FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
    EXECUTE FUNCTION api_keys_notify_change();
CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys FOR EACH ROW
    EXECUTE FUNCTION api_keys_notify_change();
CREATE TRIGGER api_keys_truncated AFTER TRUNCATE ON api_keys FOR EACH STATEMENT
    EXECUTE FUNCTION api_keys_notify_change();
