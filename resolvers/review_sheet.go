package resolvers

import (
	"context"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/sheets"
	"storeadmin/internal/base/sheets/reviewsheet"
	"storeadmin/models"
)

// exportReviews writes the reviews matching f in the review app's layout.
func (r *Resolver) exportReviews(ctx context.Context, storeID int64, f models.ReviewFilter, format *graph.SheetFormat) (*graph.Download, error) {
	reviews, err := models.AllReviews(ctx, r.db(ctx), storeID, f)
	if err != nil {
		return nil, err
	}
	handles, err := productHandles(ctx, r.db(ctx), storeID, reviews)
	if err != nil {
		return nil, err
	}
	out := make([]reviewsheet.Review, len(reviews))
	for i, rv := range reviews {
		sr := reviewsheet.Review{
			ProductHandle: handles[rv.ProductID], Rating: int(rv.Rating), Title: rv.Title, Body: rv.Body,
			Author: rv.Author, Email: rv.Email, CreatedAt: rv.CreatedAt, Reply: rv.Reply,
			Verified: rv.Verified, Status: rv.Status,
		}
		if rv.RepliedAt != nil {
			sr.RepliedAt = *rv.RepliedAt
		}
		for _, p := range rv.Photos {
			sr.PhotoURLs = append(sr.PhotoURLs, p.Src)
		}
		out[i] = sr
	}
	return r.sheetDownload(ctx, storeID, "reviews", format, reviewsheet.Header(), reviewsheet.Types(), reviewsheet.Rows(out))
}

// productHandles maps the products of reviews to their handles.
func productHandles(ctx context.Context, db bun.IDB, storeID int64, reviews []models.Review) (map[int64]string, error) {
	seen := map[int64]bool{}
	var ids []int64
	for _, rv := range reviews {
		if !seen[rv.ProductID] {
			seen[rv.ProductID] = true
			ids = append(ids, rv.ProductID)
		}
	}
	out := map[int64]string{}
	for start := 0; start < len(ids); start += 1000 {
		ps, err := models.ProductsByID(ctx, db, storeID, ids[start:min(start+1000, len(ids))], models.AllColumns)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			out[p.ID] = p.Handle
		}
	}
	return out, nil
}

// importReviews adds the reviews of a sheet to the products named by
// handle, in one transaction. A row for the same product, reviewer and day
// as a review already in the store replaces it, so importing a file twice
// does not double its reviews.
func (r *Resolver) importReviews(ctx context.Context, storeID int64, file graphql.Upload) (*graph.ReviewImportReport, error) {
	t, err := readSheet(file)
	if err != nil {
		return nil, err
	}
	res, err := reviewsheet.Parse(t)
	if err != nil {
		return nil, apperr.Invalidf("%s", err.Error())
	}
	problems, skipped := append([]sheets.Problem{}, res.Errors...), append([]sheets.Skip{}, res.Skipped...)
	var handles, photoSrcs []string
	for _, rv := range res.Reviews {
		handles = append(handles, strings.ToLower(rv.ProductHandle))
		photoSrcs = append(photoSrcs, rv.PhotoURLs...)
	}
	report := &graph.ReviewImportReport{}
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		products, err := models.ProductsByHandle(ctx, tx, storeID, handles)
		if err != nil {
			return err
		}
		byHandle := map[string]int64{}
		for _, p := range products {
			byHandle[p.Handle] = p.ID
		}
		media, err := models.MediaBySrc(ctx, tx, storeID, photoSrcs)
		if err != nil {
			return err
		}
		var rows []models.Review
		for _, sr := range res.Reviews {
			pid, ok := byHandle[strings.ToLower(sr.ProductHandle)]
			if !ok {
				problems = append(problems, sheets.Problem{Row: sr.Row, Column: "product_handle", Message: "no product has the handle " + sr.ProductHandle})
				skipped = append(skipped, sheets.Skip{Row: sr.Row, Handle: sr.ProductHandle, Reason: "unknown product"})
				continue
			}
			rows = append(rows, reviewFromSheet(sr, storeID, pid, media, r.Now()))
		}
		replaced, err := models.DeleteMatchingReviews(ctx, tx, storeID, rows)
		if err != nil {
			return err
		}
		if err := models.InsertReviews(ctx, tx, rows); err != nil {
			return err
		}
		reviewed := make([]int64, len(rows))
		for i, rv := range rows {
			reviewed[i] = rv.ProductID
		}
		reviewed = distinctIDs(reviewed)
		report.Created, report.Replaced, report.Products = int64(len(rows))-replaced, replaced, int64(len(reviewed))
		return models.RefreshProductRatings(ctx, tx, storeID, reviewed)
	})
	if err != nil {
		return nil, err
	}
	report.Errors, report.Skipped = problems, skipped
	audit.Note(ctx, "imported", map[string]int64{"created": report.Created, "replaced": report.Replaced, "errors": int64(len(problems))})
	return report, nil
}

// reviewFromSheet is a sheet row as a review of product pid.
func reviewFromSheet(sr reviewsheet.Review, storeID, pid int64, media map[string]models.Media, now time.Time) models.Review {
	rv := models.Review{
		StoreID: storeID, ProductID: pid, Rating: int64(sr.Rating), Title: sr.Title, Body: sr.Body,
		Author: sr.Author, Email: sr.Email, Status: sr.Status, Verified: sr.Verified, Source: "import",
		Reply: sr.Reply, CreatedAt: sr.CreatedAt, Photos: []models.ReviewPhoto{},
	}
	if rv.CreatedAt.IsZero() {
		rv.CreatedAt = now
	}
	if rv.Status == "" {
		rv.Status = models.ReviewPublished
	}
	if sr.Reply != "" {
		at := sr.RepliedAt
		if at.IsZero() {
			at = now
		}
		rv.RepliedAt = &at
	}
	for _, src := range sr.PhotoURLs {
		p := models.ReviewPhoto{Src: src}
		if m, ok := media[src]; ok {
			th := m.Thumbhash
			p.Width, p.Height, p.Thumbhash = m.Width, m.Height, &th
		}
		rv.Photos = append(rv.Photos, p)
	}
	return rv
}
