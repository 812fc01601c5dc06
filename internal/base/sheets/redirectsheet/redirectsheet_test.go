package redirectsheet

import (
	"fmt"
	"strings"
	"testing"

	"storeadmin/internal/base/sheets"
)

func read(t *testing.T, csv string) *sheets.Table {
	t.Helper()
	tb, err := sheets.Read(strings.NewReader(csv), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func own(h string) bool { return h == "shop.example.com" }

// TestParse: rows are normalised as the API normalises them, and each bad
// row is reported by its spreadsheet row and column, the others kept.
func TestParse(t *testing.T) {
	res, err := Parse(read(t, "Redirect from,Redirect to\n"+
		"old/,https://shop.example.com/new/\n"+ // 2
		"/x?b=1&a=2,https://elsewhere.example/x\n"+ // 3
		"/same,/same#top\n"+ // 4
		"/old,/other\n"+ // 5: row 2's path
		",/x\n"+ // 6
		"/y,mailto:a@example.com\n"), own) // 7
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Redirects); got != "[{2 /old /new} {3 /x?a=2&b=1 https://elsewhere.example/x}]" {
		t.Errorf("redirects %s", got)
	}
	want := []string{
		"4 Redirect to: the target must not be the path itself: the redirect would send shoppers back to where they are",
		"5 Redirect from: the path /old is also on row 2; a path has one redirect",
		"6 Redirect from: the path must not be empty",
		"7 Redirect to: the target must be a path (/sale) or an http or https URL, not a mailto: address",
	}
	var got []string
	for _, p := range res.Errors {
		got = append(got, fmt.Sprintf("%d %s: %s", p.Row, p.Column, p.Message))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.TargetColumn != "Redirect to" {
		t.Errorf("target column %q", res.TargetColumn)
	}

	// What the export writes reads back as it was.
	var b strings.Builder
	if err := sheets.WriteCSV(&b, Header(), Rows(res.Redirects)); err != nil {
		t.Fatal(err)
	}
	again, err := Parse(read(t, b.String()), own)
	if err != nil || len(again.Errors) != 0 || fmt.Sprint(again.Redirects) != fmt.Sprint(res.Redirects) {
		t.Errorf("round trip: %v %v %v", again.Redirects, again.Errors, err)
	}

	if _, err := Parse(read(t, "path,where\n/a,/b\n"), own); err == nil || !strings.Contains(err.Error(), `the "target" column is missing`) {
		t.Errorf("a sheet without targets: %v", err)
	}
}
