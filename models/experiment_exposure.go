package models

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"
)

// ExposureSeen is an experiment_view event of a batch, already stored,
// with the test it saw and the arm the server's assignment gives the
// visitor the batch's copy names (AnonID).
type ExposureSeen struct {
	ClientEventID string `json:"client_event_id"`
	AnonID        string `json:"anon_id"`
	ExperimentID  int64  `json:"experiment_id"`
	VariantID     int64  `json:"variant_id"`
}

// RecordExposures records the first exposure of each visitor to each test
// of seen, at its earliest event, with that event's session; an exposure
// already recorded stays (the first wins).
//
// The stored event is the evidence, never the batch's copy of it: a batch
// may hold two copies of one event id (the first is stored, the second
// dropped) or repeat an id stored before, so an arm is recorded only when
// the stored event is an experiment_view of that test's key, not a
// preview's, by the very visitor the arm was computed for. Never recorded
// either: the store's staff (a visitor identified with the email of one of
// the store's members; migration 20261125010000 identifies visitors by
// their carts and checkouts), sessions flagged as bots, a test not running
// any more, and events from before the test started or from inside any of
// its pauses (paused_at ≤ occurred_at < resumed_at, or still open): a
// browser's event time may be days old, and what it saw in a pause was the
// control. One statement.
func RecordExposures(ctx context.Context, tx bun.IDB, storeID int64, seen []ExposureSeen) error {
	if len(seen) == 0 {
		return nil
	}
	batch, err := json.Marshal(seen)
	if err != nil {
		return err
	}
	_, err = tx.NewRaw(`
INSERT INTO experiment_exposures (store_id, experiment_id, variant_id, visitor_id, session_id, exposed_at)
SELECT DISTINCT ON (x.experiment_id, e.visitor_id) ?0, x.experiment_id, x.variant_id, e.visitor_id, e.session_id, e.occurred_at
FROM jsonb_to_recordset(?1::jsonb) AS x (client_event_id text, anon_id text, experiment_id bigint, variant_id bigint)
JOIN storefront_events e ON e.store_id = ?0 AND e.client_event_id = x.client_event_id
    AND e.name = 'experiment_view' AND e.detail->'preview' IS NULL
JOIN visitors v ON v.id = e.visitor_id AND v.anon_id = x.anon_id
JOIN storefront_sessions s ON s.id = e.session_id AND NOT s.is_bot
JOIN experiments ex ON ex.id = x.experiment_id AND ex.store_id = ?0 AND ex.status = 'running'
    AND ex.key = e.detail->>'experiment' AND e.occurred_at >= ex.started_at
WHERE NOT EXISTS (
    SELECT 1 FROM experiment_pauses p
    WHERE p.experiment_id = ex.id AND p.store_id = ?0
      AND p.paused_at <= e.occurred_at AND (p.resumed_at IS NULL OR e.occurred_at < p.resumed_at))
  AND NOT (v.email <> '' AND EXISTS (
    SELECT 1 FROM store_members m JOIN users u ON u.id = m.user_id
    WHERE m.store_id = ?0 AND lower(u.email) = lower(v.email)))
ORDER BY x.experiment_id, e.visitor_id, e.occurred_at, e.id
ON CONFLICT (experiment_id, visitor_id) DO NOTHING`, storeID, string(batch)).Exec(ctx)
	return err
}

// ConsentReport is an event of a batch, already stored, that reported the
// shopper's answer to the store's consent banner, and the visitor the
// batch's copy names (AnonID).
type ConsentReport struct {
	ClientEventID string `json:"client_event_id"`
	AnonID        string `json:"anon_id"`
	Ord           int    `json:"ord"`
	Consent       bool   `json:"consent"`
}

// RecordConsent sets the analytics consent of the sessions of reports to
// the last each reported (the latest event, the later in the batch of
// two at once): a shopper who changes their mind is taken at their last
// word. A report reaches the session of the stored event of its id only
// when that event is its visitor's (AnonID): a copy of another visitor's
// event id never speaks for that visitor. One statement.
func RecordConsent(ctx context.Context, tx bun.IDB, storeID int64, reports []ConsentReport) error {
	if len(reports) == 0 {
		return nil
	}
	batch, err := json.Marshal(reports)
	if err != nil {
		return err
	}
	_, err = tx.NewRaw(`
UPDATE storefront_sessions s SET analytics_consent = r.consent
FROM (
    SELECT DISTINCT ON (e.session_id) e.session_id, x.consent
    FROM jsonb_to_recordset(?1::jsonb) AS x (client_event_id text, anon_id text, ord int, consent boolean)
    JOIN storefront_events e ON e.store_id = ?0 AND e.client_event_id = x.client_event_id
    JOIN visitors v ON v.id = e.visitor_id AND v.anon_id = x.anon_id
    ORDER BY e.session_id, e.occurred_at DESC, x.ord DESC
) r
WHERE s.id = r.session_id AND s.store_id = ?0`, storeID, string(batch)).Exec(ctx)
	return err
}
