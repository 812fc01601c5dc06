package resolvers

import (
	"context"
	"time"

	"storeadmin/graph"
	"storeadmin/internal/base/sheets/formsheet"
	"storeadmin/models"
)

// readAt is when setFormSubmissionRead marks a submission read (now), or
// nil when the input asks for it unread again (read: false).
func (r *Resolver) readAt(in *graph.FormSubmissionReadInput) *time.Time {
	if in != nil && in.Read != nil && !*in.Read {
		return nil
	}
	now := r.Now().UTC().Truncate(time.Microsecond)
	return &now
}

// exportFormSubmissions writes the submissions matching f, newest first,
// as the form submissions sheet, times in the store's time zone.
func (r *Resolver) exportFormSubmissions(ctx context.Context, storeID int64, f models.FormSubmissionFilter, format *graph.SheetFormat) (*graph.Download, error) {
	loc, err := r.storeLocation(ctx, storeID)
	if err != nil {
		return nil, err
	}
	subs, err := models.ExportFormSubmissions(ctx, r.db(ctx), storeID, f)
	if err != nil {
		return nil, err
	}
	out := make([]formsheet.Submission, len(subs))
	for i, s := range subs {
		out[i] = formsheet.Submission{
			ID: s.ID, CreatedAt: s.CreatedAt, Type: s.Type, Name: s.Name, Email: s.Email,
			Message: s.Message, SourceURL: s.SourceURL, ReadAt: deref(s.ReadAt),
		}
	}
	return r.sheetDownload(ctx, storeID, "form_submissions", format, formsheet.Header(), formsheet.Types(), formsheet.Rows(out, loc))
}
