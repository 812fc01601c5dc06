package storefront

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/internal/base/jsonbody"
	"storeadmin/models"
)

// batchInput is the body of POST /events.
type batchInput struct {
	Events []json.RawMessage `json:"events"`
}

// events stores a batch of browsing events: all of it or, when one event
// is wrong, none of it (400 naming the field, events[3].path): a tracker's
// bug shows at once instead of thinning the data without a word. A retried
// batch is stored once; the answer counts the events stored and the
// duplicates (already stored, or twice in the batch).
func (s *service) events(w http.ResponseWriter, r *http.Request) {
	if err := s.postEvents(w, r); err != nil {
		failure.WriteREST(w, r, err)
	}
}

func (s *service) postEvents(w http.ResponseWriter, r *http.Request) error {
	// navigator.sendBeacon sends text/plain (which needs no preflight);
	// the body is JSON either way.
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" && mt != "text/plain" {
		return apperr.New(apperr.UnsupportedMediaType, "send the events as JSON, with Content-Type: application/json or text/plain")
	}
	raw, err := jsonbody.Read(r)
	if err != nil {
		return err
	}
	var in batchInput
	if err := decodeStrict(raw, &in, "", "the body"); err != nil {
		return err
	}
	switch {
	case len(in.Events) == 0:
		return apperr.InvalidField("events", "must hold at least one event")
	case len(in.Events) > MaxBatch:
		return apperr.InvalidField("events", "holds %d events; at most %d may be sent at once", len(in.Events), MaxBatch)
	}
	now := s.Now()
	win := window{from: now.Add(-MaxEventAge), to: now.Add(MaxClockSkew)}
	staged := make([]models.StagedEvent, len(in.Events))
	for i, rawEvent := range in.Events {
		at := "events[" + strconv.Itoa(i) + "]"
		var e EventInput
		if err := decodeStrict(rawEvent, &e, at, ""); err != nil {
			return err
		}
		if staged[i], err = e.stage(at, i, win); err != nil {
			return err
		}
	}
	en, client := newEnricher(s.GeoIP, s.IPPolicy), Client{UserAgent: r.UserAgent(), IP: s.clientIP(r)}
	for i := range staged {
		en.add(&staged[i], client)
	}
	var got models.Ingested
	err = s.DB.RunInTx(r.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		got, err = Ingest(ctx, tx, auth.PrincipalFrom(ctx).StoreID, staged)
		return err
	})
	if err != nil {
		return err
	}
	answer(w, r, http.StatusOK, map[string]any{
		"received":   len(staged),
		"stored":     got.Stored,
		"duplicates": len(staged) - got.Stored,
	})
	return nil
}

// Ingest stores events, checked and enriched, in the store, sessionised
// (models.IngestEvents), with what they say of A/B tests in their detail
// (experimentDetail), and records that (exposures, consent:
// recordExperiments): what POST /events does with a batch, and what the
// seed's traffic goes through.
func Ingest(ctx context.Context, tx bun.Tx, storeID int64, events []models.StagedEvent) (models.Ingested, error) {
	for i := range events {
		experimentDetail(&events[i])
	}
	got, err := models.IngestEvents(ctx, tx, storeID, events, SessionIdleMinutes*time.Minute)
	if err != nil {
		return got, err
	}
	return got, recordExperiments(ctx, tx, storeID, events)
}
