package storefront

import (
	"context"
	"encoding/json"
	"regexp"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// experimentKeyPattern is an A/B test's key (experiments.key).
var experimentKeyPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// stageExperiment checks and stages what an event says of A/B tests: the
// test an experiment_view saw (experiment, its key), the arm preview token
// of a preview browser (preview: its events are marked so and are never
// exposures, whatever the token says, since the browser shows a forced
// arm), and the shopper's analytics consent (consent, on any event: the
// session keeps the last reported). Ingest keeps the first two in the
// event's detail (experimentDetail).
func (e *EventInput) stageExperiment(c *checker, s *models.StagedEvent) {
	if e.Experiment != nil {
		if !experimentKeyPattern.MatchString(*e.Experiment) {
			c.fail("experiment", "must be an A/B test's key: lowercase letters, digits and dashes, at most 63")
		} else if e.Name != EventExperimentView {
			c.fail("experiment", "is sent on experiment_view events only")
		} else {
			s.Experiment = *e.Experiment
		}
	}
	if e.Preview != nil {
		if !previewTokenPattern.MatchString(*e.Preview) {
			c.fail("preview", "must be an arm's preview token, as POST /store/experiments/{id}/preview-token made it")
		} else {
			s.Preview = true
		}
	}
	s.Consent = e.Consent
}

// experimentDetail keeps in e's detail the test it saw (experiment) and
// whether a preview browser sent it (preview): what the stored event says
// of A/B tests, which is what models.RecordExposures reads. Ingest sets it
// for every writer (POST /events, the seed's traffic), so no event is
// stored without it.
func experimentDetail(e *models.StagedEvent) {
	detail := map[string]any{}
	if e.Experiment != "" {
		detail["experiment"] = e.Experiment
	}
	if e.Preview {
		detail["preview"] = true
	}
	if len(detail) > 0 {
		buf, _ := json.Marshal(detail)
		text := string(buf)
		e.Detail = &text
	}
}

// previewTokenPattern is the shape of a preview token (internal/previews):
// base 36 ids and expiry, then a base64url signature.
var previewTokenPattern = regexp.MustCompile(`^[0-9a-z]{1,14}(\.[0-9a-z]{1,14}){1,4}\.[A-Za-z0-9_-]{22}$`)

// recordExperiments records what the batch's events, once stored, say of
// A/B tests: the exposures of its experiment_view events, and the
// sessions' analytics consent. Of two copies of one event id only the
// first speaks, as only the first is stored (models.StagedEvent.Ord); the
// statements check the stored event besides (models.RecordExposures). Two
// statements at most per batch, plus one when it has experiment_view
// events.
func recordExperiments(ctx context.Context, tx bun.Tx, storeID int64, staged []models.StagedEvent) error {
	events := firstCopies(staged)
	var keys []string
	var consents []models.ConsentReport
	for _, e := range events {
		if e.Experiment != "" && !e.Preview && !e.IsBot && !contains(keys, e.Experiment) {
			keys = append(keys, e.Experiment)
		}
		if e.Consent != nil {
			consents = append(consents, models.ConsentReport{ClientEventID: e.ClientEventID, AnonID: e.AnonID, Ord: e.Ord, Consent: *e.Consent})
		}
	}
	if err := models.RecordConsent(ctx, tx, storeID, consents); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	tests, err := models.ExperimentsByKey(ctx, tx, storeID, keys)
	if err != nil {
		return err
	}
	running := map[string]*models.LiveExperiment{}
	for i := range tests {
		if tests[i].Status == models.ExperimentRunning {
			running[tests[i].Key] = &tests[i]
		}
	}
	var seen []models.ExposureSeen
	for _, e := range events {
		t := running[e.Experiment]
		if t == nil || e.Preview || e.IsBot {
			continue // unknown, paused or ended tests, previews, bots: the event is stored, no exposure
		}
		// The server's arm, never the browser's word.
		if arm := t.Assign(e.AnonID); arm != nil {
			seen = append(seen, models.ExposureSeen{ClientEventID: e.ClientEventID, AnonID: e.AnonID, ExperimentID: t.ID, VariantID: arm.ID})
		}
	}
	return models.RecordExposures(ctx, tx, storeID, seen)
}

// firstCopies is events without the later copies of an event id, in
// order: what the batch can have stored.
func firstCopies(events []models.StagedEvent) []models.StagedEvent {
	ids := make(map[string]bool, len(events))
	out := make([]models.StagedEvent, 0, len(events))
	for _, e := range events {
		if !ids[e.ClientEventID] {
			ids[e.ClientEventID] = true
			out = append(out, e)
		}
	}
	return out
}
