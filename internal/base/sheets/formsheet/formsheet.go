// Package formsheet writes form submissions (what shoppers sent through the
// storefront's contact, newsletter, wholesale and other forms) as a sheet:
// one row per submission, newest first as given, for a mailing tool, a
// CRM or a person to read. Newsletter sign-ups exported this way import
// into mailing tools, which look for an "Email" column.
//
// Times are written as "2006-01-02 15:04:05 -0700" in the location given
// (the store's time zone), booleans as TRUE/FALSE. The package only lays
// out cells (and says with Types what they hold): the protection against
// formula injection is applied by sheets.WriteCSV, and sheets.WriteXLSX
// stores text as text.
package formsheet

import (
	"strconv"
	"time"

	"storeadmin/internal/base/sheets"
)

// Submission is one row of the sheet.
type Submission struct {
	ID        int64
	CreatedAt time.Time
	Type      string
	Name      string
	Email     string
	Message   string
	SourceURL string
	// ReadAt is zero while the submission is unread.
	ReadAt time.Time
}

var header = []string{"Id", "Submitted at", "Type", "Name", "Email", "Message", "Page", "Read", "Read at"}

const (
	colID = iota
	colCreatedAt
	colType
	colName
	colEmail
	colMessage
	colSourceURL
	colRead
	colReadAt
	numCols
)

// Header is the sheet's first row.
func Header() []string { return append([]string(nil), header...) }

// Types says what each column of Header holds, for a workbook to store
// ids, dates and flags as such.
func Types() []sheets.Type {
	types := make([]sheets.Type, numCols)
	types[colID] = sheets.Number
	types[colCreatedAt] = sheets.Time
	types[colRead] = sheets.Bool
	types[colReadAt] = sheets.Time
	return types
}

// Rows writes submissions in Header's layout, times in loc.
func Rows(subs []Submission, loc *time.Location) [][]string {
	rows := make([][]string, len(subs))
	for i, s := range subs {
		row := make([]string, numCols)
		row[colID] = strconv.FormatInt(s.ID, 10)
		row[colCreatedAt] = formatTime(s.CreatedAt, loc)
		row[colType] = s.Type
		row[colName] = s.Name
		row[colEmail] = s.Email
		row[colMessage] = s.Message
		row[colSourceURL] = s.SourceURL
		row[colRead] = "FALSE"
		if !s.ReadAt.IsZero() {
			row[colRead] = "TRUE"
		}
		row[colReadAt] = formatTime(s.ReadAt, loc)
		rows[i] = row
	}
	return rows
}

func formatTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format("2006-01-02 15:04:05 -0700")
}
