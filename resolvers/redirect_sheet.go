package resolvers

import (
	"cmp"
	"context"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/sheets"
	"storeadmin/internal/base/sheets/redirectsheet"
	"storeadmin/models"
)

// exportURLRedirects writes the redirects matching f as a sheet of path
// and target, CSV unless format says XLSX.
func (r *Resolver) exportURLRedirects(ctx context.Context, storeID int64, f models.URLRedirectFilter, format *graph.SheetFormat) (*graph.Download, error) {
	redirects, err := models.AllURLRedirects(ctx, r.db(ctx), storeID, f)
	if err != nil {
		return nil, err
	}
	rows := make([]redirectsheet.Redirect, len(redirects))
	for i, rd := range redirects {
		rows[i] = redirectsheet.Redirect{Path: rd.Path, Target: rd.Target}
	}
	return r.sheetDownload(ctx, storeID, "redirects", format, redirectsheet.Header(), redirectsheet.Types(), redirectsheet.Rows(rows))
}

// importURLRedirects creates and updates redirects by path from a sheet,
// in one transaction, with the rules of the API's writes (source import):
// a row that breaks one (a loop with the store's redirects, those of the
// rows before it included) is reported with its row and left out. The
// existing redirects of the sheet's paths are named by id, so each row
// replaces its path's redirect in the loop check as in the table.
func (r *Resolver) importURLRedirects(ctx context.Context, storeID int64, file graphql.Upload) (*graph.URLRedirectImportReport, error) {
	t, err := readSheet(file)
	if err != nil {
		return nil, err
	}
	report := &graph.URLRedirectImportReport{}
	var problems []sheets.Problem
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		own, err := models.StoreHosts(ctx, tx, storeID)
		if err != nil {
			return err
		}
		res, err := redirectsheet.Parse(t, own)
		if err != nil {
			return apperr.Invalidf("%s", err.Error())
		}
		problems = res.Errors
		paths := make([]string, len(res.Redirects))
		for i, sr := range res.Redirects {
			paths[i] = sr.Path
		}
		existing, err := models.URLRedirectIDsByPath(ctx, tx, storeID, paths)
		if err != nil {
			return err
		}
		rows := make([]models.URLRedirect, len(res.Redirects))
		for i, sr := range res.Redirects {
			rows[i] = models.URLRedirect{ID: existing[sr.Path], Path: sr.Path, Target: sr.Target, Source: models.RedirectImport}
		}
		refused, replaced, err := models.PutURLRedirects(ctx, tx, storeID, rows)
		if err != nil {
			return err
		}
		for i, sr := range res.Redirects {
			switch {
			case refused[i] != nil: // the loop rule: the sheet checked the rest
				problems = append(problems, sheets.Problem{Row: sr.Row, Column: res.TargetColumn, Message: refused[i].Error()})
			case replaced[i]:
				report.Updated++
			default:
				report.Created++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if problems == nil {
		problems = []sheets.Problem{}
	}
	slices.SortStableFunc(problems, func(a, b sheets.Problem) int { return cmp.Compare(a.Row, b.Row) })
	report.Errors = problems
	audit.Note(ctx, "imported", map[string]int64{"created": report.Created, "updated": report.Updated, "errors": int64(len(problems))})
	return report, nil
}
