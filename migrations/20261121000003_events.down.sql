ALTER TABLE webhook_subscriptions DROP COLUMN IF EXISTS paused_at, DROP COLUMN IF EXISTS failing_since;
DROP INDEX IF EXISTS webhook_deliveries_event_idx;
ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_event_fk;
DROP TABLE IF EXISTS events;
