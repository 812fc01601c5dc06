package models

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"
)

// ExposureSeen is an experiment_view event of a batch, already stored,
// with the test it saw and the arm the server's assignment gives its
// visitor.
type ExposureSeen struct {
	ClientEventID string `json:"client_event_id"`
	ExperimentID  int64  `json:"experiment_id"`
	VariantID     int64  `json:"variant_id"`
}

// RecordExposures records the first exposure of each visitor to each test
// of seen, at its earliest event, with that event's session; an exposure
// already recorded stays (the first wins). Never recorded: the store's
// staff (a visitor identified with the email of one of the store's
// members), sessions flagged as bots, a test not running any more, and
// events from before the test started. One statement.
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
FROM jsonb_to_recordset(?1::jsonb) AS x (client_event_id text, experiment_id bigint, variant_id bigint)
JOIN storefront_events e ON e.store_id = ?0 AND e.client_event_id = x.client_event_id
JOIN storefront_sessions s ON s.id = e.session_id AND NOT s.is_bot
JOIN visitors v ON v.id = e.visitor_id
JOIN experiments ex ON ex.id = x.experiment_id AND ex.store_id = ?0 AND ex.status = 'running' AND e.occurred_at >= ex.started_at
WHERE NOT (v.email <> '' AND EXISTS (
    SELECT 1 FROM store_members m JOIN users u ON u.id = m.user_id
    WHERE m.store_id = ?0 AND lower(u.email) = lower(v.email)))
ORDER BY x.experiment_id, e.visitor_id, e.occurred_at, e.id
ON CONFLICT (experiment_id, visitor_id) DO NOTHING`, storeID, string(batch)).Exec(ctx)
	return err
}

// ConsentReport is an event of a batch, already stored, that reported the
// shopper's answer to the store's consent banner.
type ConsentReport struct {
	ClientEventID string `json:"client_event_id"`
	Ord           int    `json:"ord"`
	Consent       bool   `json:"consent"`
}

// RecordConsent sets the analytics consent of the sessions of reports to
// the last each reported (the latest event, the later in the batch of
// two at once): a shopper who changes their mind is taken at their last
// word. One statement.
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
    FROM jsonb_to_recordset(?1::jsonb) AS x (client_event_id text, ord int, consent boolean)
    JOIN storefront_events e ON e.store_id = ?0 AND e.client_event_id = x.client_event_id
    ORDER BY e.session_id, e.occurred_at DESC, x.ord DESC
) r
WHERE s.id = r.session_id AND s.store_id = ?0`, storeID, string(batch)).Exec(ctx)
	return err
}
