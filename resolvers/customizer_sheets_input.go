package resolvers

import (
	"fmt"
	"unicode/utf8"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/sheets"
)

// The bounds of the customizer's sheet helpers (README "Product customizer
// / Sheets"), the same both ways, so that a sheet built can be parsed back.
const (
	czSheetMaxRows      = 5000
	czSheetMaxColumns   = 100
	czSheetMaxCellRunes = 1000
)

// czSheetRows are the rows of an uploaded table as text, the header row
// first, each cell cleaned of the debris copy-pasting leaves (sheets.CleanCell),
// within the bounds.
func czSheetRows(t *sheets.Table) ([][]string, error) {
	if n := len(t.Rows) + 1; n > czSheetMaxRows {
		return nil, apperr.InvalidField("file", "has %d rows (the header included); at most %d are read", n, czSheetMaxRows)
	}
	if len(t.Header) > czSheetMaxColumns {
		return nil, apperr.InvalidField("file", "has %d columns; at most %d are read", len(t.Header), czSheetMaxColumns)
	}
	out := make([][]string, 0, len(t.Rows)+1)
	for i, row := range append([][]string{t.Header}, t.Rows...) {
		cells := make([]string, len(row))
		for j, c := range row {
			cells[j] = sheets.CleanCell(c)
			if utf8.RuneCountInString(cells[j]) > czSheetMaxCellRunes {
				return nil, apperr.InvalidField("file", "has a cell of more than %d characters: %s, column %d", czSheetMaxCellRunes, czSheetRowNumber(t, i), j+1)
			}
		}
		out = append(out, cells)
	}
	return out, nil
}

// czSheetRowNumber names row i of the answer (0: the header) as a
// spreadsheet program numbers it.
func czSheetRowNumber(t *sheets.Table, i int) string {
	if i == 0 {
		return "the header row"
	}
	return fmt.Sprintf("row %d", t.RowNumbers[i-1])
}

// checkCzSheetRows checks rows to write: at least the header, and within
// the bounds; the field at fault is named as rows[i][j].
func checkCzSheetRows(rows [][]string) error {
	switch {
	case len(rows) == 0:
		return apperr.InvalidField("rows", "must hold at least one row, the header")
	case len(rows) > czSheetMaxRows:
		return apperr.InvalidField("rows", "must hold at most %d rows, not %d", czSheetMaxRows, len(rows))
	}
	for i, row := range rows {
		if len(row) > czSheetMaxColumns {
			return apperr.InvalidField(fmt.Sprintf("rows[%d]", i), "must hold at most %d cells, not %d", czSheetMaxColumns, len(row))
		}
		for j, c := range row {
			if utf8.RuneCountInString(c) > czSheetMaxCellRunes {
				return apperr.InvalidField(fmt.Sprintf("rows[%d][%d]", i, j), "must be at most %d characters", czSheetMaxCellRunes)
			}
			if !utf8.ValidString(c) {
				return apperr.InvalidField(fmt.Sprintf("rows[%d][%d]", i, j), "must be valid UTF-8 text")
			}
		}
	}
	return nil
}
