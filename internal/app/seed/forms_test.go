package seed

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

func TestFormsAndEmail(t *testing.T) {
	ctx := context.Background()
	db, _, storeID := newSeedStore(t)
	run := func(fills ...func(context.Context, bun.Tx, int64, time.Time) error) {
		t.Helper()
		for _, fill := range fills {
			if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return fill(ctx, tx, storeID, seedNow) }); err != nil {
				t.Fatal(err)
			}
		}
	}
	run(profile, formsAndEmail)

	counts, err := models.CountFormSubmissionsByType(ctx, db, storeID, models.FormSubmissionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("counts: %+v", counts)
	byType := map[string]models.FormSubmissionTypeCount{}
	for _, c := range counts.Types {
		byType[c.Type] = c
	}
	if counts.All < 200 || counts.Unread == 0 || counts.Unread == counts.All || len(byType) < 3 ||
		byType["contact"].All == 0 || byType["newsletter"].All == 0 || byType["wholesale"].All == 0 {
		t.Errorf("counts %+v", counts)
	}
	// Over months, none in the future, none read before it was sent or
	// after now.
	count := storeCounter(t, db, storeID)
	if n := count("form_submissions", "created_at < ?", seedNow.AddDate(0, -3, 0)); n == 0 {
		t.Errorf("no submission older than three months")
	}
	if n := count("form_submissions", "created_at > ? OR read_at < created_at OR read_at > ?", seedNow, seedNow); n != 0 {
		t.Errorf("%d submissions in the future or read out of order", n)
	}
	if n := count("form_submissions", "type = 'contact' AND (name = '' OR message = '' OR source_url NOT LIKE 'https://%/pages/contact')"); n != 0 {
		t.Errorf("%d contact submissions without a name, a message or the contact page", n)
	}

	es, err := models.GetEmailSettings(ctx, db, storeID)
	if err != nil || es.FromName != "Demo Outfitters" || es.ReplyTo != "support@demo-outfitters.example" {
		t.Errorf("email settings %+v, %v", es, err)
	}

	// A second run adds nothing and leaves settings a person changed alone.
	name := "Demo Outfitters Support"
	if _, err := models.UpdateEmailSettings(ctx, db, storeID, &name, nil); err != nil {
		t.Fatal(err)
	}
	first := tableCounts(count, "form_submissions", "email_settings")
	run(formsAndEmail)
	expectSameCounts(t, first, tableCounts(count, "form_submissions", "email_settings"))
	if es, _ := models.GetEmailSettings(ctx, db, storeID); es.FromName != name {
		t.Errorf("the second run changed from_name to %q", es.FromName)
	}
}
