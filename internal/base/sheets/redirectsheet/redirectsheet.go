// Package redirectsheet reads and writes URL redirects as a sheet of two
// columns, path and target: the layout the redirect export writes and the
// import reads. Shopify's redirect export names its columns "Redirect from"
// and "Redirect to", which are read too, so a store moving here brings its
// redirects in the file it has.
//
// Each cell is normalised as the API normalises a redirect (storeurl), so
// a row is refused for the reason the API would give; redirects are
// independent of each other, so a row with a problem is reported and left
// out while the other rows are imported.
package redirectsheet

import (
	"storeadmin/internal/base/sheets"
	"storeadmin/internal/base/storeurl"
)

// Redirect is one row: a normalised path and target.
type Redirect struct {
	Row          int
	Path, Target string
}

// Result is what Parse found: the redirects that can be imported and the
// problems of the others.
type Result struct {
	Redirects []Redirect
	Errors    []sheets.Problem
	// TargetColumn is the target column's header text, for the problem a
	// row meets later (a loop with the store's redirects).
	TargetColumn string
}

// Header is the export's header row.
func Header() []string { return []string{"path", "target"} }

// Types says what each column holds: text.
func Types() []sheets.Type { return []sheets.Type{sheets.Text, sheets.Text} }

// Rows writes redirects as sheet rows under Header.
func Rows(rs []Redirect) [][]string {
	out := make([][]string, len(rs))
	for i, r := range rs {
		out[i] = []string{r.Path, r.Target}
	}
	return out
}

// Parse reads redirects, normalising each path and target for a store whose
// own hosts own names. It fails as a whole only when the file is not a
// redirect sheet (no path or no target column). A row repeating the path of
// an earlier row is refused: which of the two was meant cannot be told.
func Parse(t *sheets.Table, own storeurl.OwnHost) (Result, error) {
	var res Result
	pathCol := t.Col("path", "redirect_from", "from")
	targetCol := t.Col("target", "redirect_to", "to")
	var missing []string
	if pathCol < 0 {
		missing = append(missing, `the "path" column is missing; it holds the storefront path each redirect answers`)
	}
	if targetCol < 0 {
		missing = append(missing, `the "target" column is missing; it holds where each redirect sends shoppers`)
	}
	if err := sheets.NotThisSheet("redirect", missing); err != nil {
		return res, err
	}
	res.TargetColumn = t.Header[targetCol]
	firstRow := map[string]int{}
	for i := range t.Rows {
		r := t.Row(i)
		path, pathErr := storeurl.Path(r.Cell(pathCol), own)
		if pathErr != nil {
			r.Fail(pathCol, "the path %s", pathErr)
		}
		target, targetErr := storeurl.Target(r.Cell(targetCol), own)
		if targetErr != nil {
			r.Fail(targetCol, "the target %s", targetErr)
		}
		if pathErr == nil && targetErr == nil && storeurl.IsSelf(path, target) {
			r.Fail(targetCol, "the target %s", storeurl.ToItself)
		}
		if pathErr == nil {
			if first, ok := firstRow[path]; ok {
				r.Fail(pathCol, "the path %s is also on row %d; a path has one redirect", path, first)
			} else {
				firstRow[path] = r.Num
			}
		}
		if errs := r.Problems(); len(errs) > 0 {
			res.Errors = append(res.Errors, errs...)
			continue
		}
		res.Redirects = append(res.Redirects, Redirect{Row: r.Num, Path: path, Target: target})
	}
	return res, nil
}
