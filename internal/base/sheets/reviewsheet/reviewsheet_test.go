package reviewsheet

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"storeadmin/internal/base/sheets"
)

func parseText(t *testing.T, text string) Result {
	t.Helper()
	tbl, err := sheets.Read(strings.NewReader(text), 1<<20)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return mustParse(t, tbl)
}

// mustParse parses a table that is a review sheet.
func mustParse(t *testing.T, tbl *sheets.Table) Result {
	t.Helper()
	res, err := Parse(tbl)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return res
}

// TestNotAReviewSheet: a file without the product handle and rating columns
// is refused whole, naming both.
func TestNotAReviewSheet(t *testing.T) {
	tbl, err := sheets.Read(strings.NewReader(`{"rating":5}`), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(tbl)
	if err == nil || !strings.Contains(err.Error(), "not a review sheet") || !strings.Contains(err.Error(), `"product_handle"`) || !strings.Contains(err.Error(), `"rating"`) {
		t.Fatalf("err = %v", err)
	}
}

func withoutRows(rs []Review) []Review {
	out := append([]Review(nil), rs...)
	for i := range out {
		out[i].Row = 0
	}
	return out
}

func TestTemplate(t *testing.T) {
	h, rows := Template()
	var buf bytes.Buffer
	if err := sheets.WriteCSV(&buf, h, rows); err != nil {
		t.Fatal(err)
	}
	res := parseText(t, buf.String())
	if len(res.Errors) > 0 || len(res.Cleaned) > 0 {
		t.Fatalf("errors %+v cleaned %+v", res.Errors, res.Cleaned)
	}
	if got := withoutRows(res.Reviews); !reflect.DeepEqual(got, templateReviews()) {
		t.Errorf("got %+v\nwant %+v", got, templateReviews())
	}
}

func TestRoundTrip(t *testing.T) {
	want := append(templateReviews(),
		Review{
			ProductHandle: "desk-lamp",
			Rating:        1,
			Title:         "=HYPERLINK(\"http://evil\")",
			Body:          "Broke after a week.\nSecond paragraph — ünïcödé, \"quoted\".",
			Author:        "-dash",
			Email:         "o'brien+lamp@mail.example.co.uk",
			CreatedAt:     time.Date(2023, 12, 31, 23, 59, 59, 0, time.UTC),
			PhotoURLs:     []string{"https://x.test/a.jpg", "http://x.test/b.png?w=100"},
			Status:        "rejected",
		},
		Review{ProductHandle: "gift-mug", Rating: 4, Author: Anonymous, Status: "published"},
	)
	rows := Rows(want)
	for _, format := range []string{"csv", "xlsx"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			var err error
			if format == "csv" {
				err = sheets.WriteCSV(&buf, Header(), rows)
			} else {
				err = sheets.WriteXLSX(&buf, "Reviews", Header(), rows, sheets.Layout{Types: Types()})
			}
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := sheets.Read(&buf, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if tbl.Format != format {
				t.Fatalf("read back as %s", tbl.Format)
			}
			res := mustParse(t, tbl)
			if len(res.Errors) > 0 || len(res.Cleaned) > 0 {
				t.Fatalf("errors %+v cleaned %+v", res.Errors, res.Cleaned)
			}
			if got := withoutRows(res.Reviews); !reflect.DeepEqual(got, want) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
			}
			if again := Rows(res.Reviews); !reflect.DeepEqual(again, rows) {
				t.Errorf("Rows after the round trip differ")
			}
		})
	}
}

func TestJudgeMeExport(t *testing.T) {
	csv := "title,body,rating,review_date,source,curated,reviewer_name,reviewer_email,product_id,product_handle,reply,reply_date,picture_urls,ip_address,location,metaobject_handle\n" +
		`Great,"Soft, and fits well.",5,2025-03-02 10:12:00 UTC,web,ok,Camille R,c@example.fr,7012345678,classic-tee,Thanks!,2025-03-03 08:00:00 UTC,"https://judgeme.imgix.net/a.jpg,https://judgeme.imgix.net/b.jpg",1.1.1.1,FR,` + "\n" +
		"Meh,Not great.,2,2025-01-10,email,not-yet,Marc,,7012345678,classic-tee,,,,,,\n" +
		"Spam,Buy cheap watches!!!,5,2025-01-10,web,spam,Bot,bot@example.com,1,classic-tee,,,,,,\n"
	res := parseText(t, csv)
	if len(res.Errors) > 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	want := []Review{
		{
			Row: 2, ProductHandle: "classic-tee", Rating: 5, Title: "Great", Body: "Soft, and fits well.", Author: "Camille R",
			Email: "c@example.fr", CreatedAt: time.Date(2025, 3, 2, 10, 12, 0, 0, time.UTC), Reply: "Thanks!",
			RepliedAt: time.Date(2025, 3, 3, 8, 0, 0, 0, time.UTC),
			PhotoURLs: []string{"https://judgeme.imgix.net/a.jpg", "https://judgeme.imgix.net/b.jpg"}, Status: "published",
		},
		{Row: 3, ProductHandle: "classic-tee", Rating: 2, Title: "Meh", Body: "Not great.", Author: "Marc", CreatedAt: time.Date(2025, 1, 10, 0, 0, 0, 0, time.UTC), Status: "pending"},
		{Row: 4, ProductHandle: "classic-tee", Rating: 5, Title: "Spam", Body: "Buy cheap watches!!!", Author: "Bot", Email: "bot@example.com", CreatedAt: time.Date(2025, 1, 10, 0, 0, 0, 0, time.UTC), Status: "rejected"},
	}
	if !reflect.DeepEqual(res.Reviews, want) {
		t.Errorf("got  %+v\nwant %+v", res.Reviews, want)
	}
}

func TestAliases(t *testing.T) {
	csv := "Handle,Stars,Review Title,Content,Author,Email,Created At,Photo URLs,Verified Purchase,Status\n" +
		"Classic Tee,4.0,Nice,Good shirt,Ann,ann@example.com,2024-02-03T04:05:06+02:00,https://x.test/1.jpg https://x.test/2.jpg,yes,Pending\n"
	res := parseText(t, csv)
	if len(res.Errors) > 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	want := Review{
		Row: 2, ProductHandle: "classic-tee", Rating: 4, Title: "Nice", Body: "Good shirt", Author: "Ann", Email: "ann@example.com",
		CreatedAt: time.Date(2024, 2, 3, 2, 5, 6, 0, time.UTC), PhotoURLs: []string{"https://x.test/1.jpg", "https://x.test/2.jpg"},
		Verified: true, Status: "pending",
	}
	if !reflect.DeepEqual(res.Reviews, []Review{want}) {
		t.Errorf("got  %+v\nwant %+v", res.Reviews, []Review{want})
	}
	if want := []sheets.Cleaned{{Row: 2, Column: "Handle", Before: "Classic Tee", After: "classic-tee"}}; !reflect.DeepEqual(res.Cleaned, want) {
		t.Errorf("cleaned %+v", res.Cleaned)
	}
}

func TestRowErrors(t *testing.T) {
	const head = "product_handle,rating,reviewer_name,reviewer_email,review_date,picture_urls,verified_purchase,curated\n"
	tests := []struct {
		name, row, column, message string
	}{
		{"rating zero", "tee,0,A,,,,,", "rating", "must be a whole number from 1 to 5"},
		{"rating six", "tee,6,A,,,,,", "rating", "must be a whole number from 1 to 5"},
		{"rating half", "tee,4.5,A,,,,,", "rating", "must be a whole number from 1 to 5"},
		{"rating word", "tee,five,A,,,,,", "rating", "must be a whole number from 1 to 5"},
		{"rating empty", "tee,,A,,,,,", "rating", "the rating is empty"},
		{"handle empty", ",5,A,,,,,", "product_handle", "the product handle is empty"},
		{"email without at", "tee,5,A,ann.example.com,,,,", "reviewer_email", "not an email address"},
		{"email without dotted domain", "tee,5,A,ann@localhost,,,,", "reviewer_email", "not an email address"},
		{"email with display name", "tee,5,A,Ann <ann@example.com>,,,,", "reviewer_email", "not an email address"},
		{"email with space", "tee,5,A,ann @example.com,,,,", "reviewer_email", "not an email address"},
		{"bad date", "tee,5,A,,31.05.2024,,,", "review_date", "is not a date"},
		{"impossible date", "tee,5,A,,2024-02-30,,,", "review_date", "is not a date"},
		{"bad photo", "tee,5,A,,,ftp://x.test/a.jpg,,", "picture_urls", "not a web address"},
		{"relative photo", "tee,5,A,,,/a.jpg,,", "picture_urls", "not a web address"},
		{"bad verified", "tee,5,A,,,,maybe,", "verified_purchase", "must be TRUE or FALSE"},
		{"bad curated", "tee,5,A,,,,,later", "curated", "must be published, pending or rejected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := parseText(t, head+tt.row+"\nok,5,B,,,,,\n")
			if len(res.Reviews) != 1 || res.Reviews[0].ProductHandle != "ok" {
				t.Errorf("the good row was not imported alone: %+v", res.Reviews)
			}
			if len(res.Errors) != 1 || res.Errors[0].Row != 2 || res.Errors[0].Column != tt.column || !strings.Contains(res.Errors[0].Message, tt.message) {
				t.Errorf("errors %+v, want one in %q containing %q", res.Errors, tt.column, tt.message)
			}
			if len(res.Skipped) != 1 || res.Skipped[0].Row != 2 || res.Skipped[0].Reason != "has errors" {
				t.Errorf("skipped %+v", res.Skipped)
			}
		})
	}
}

func TestMissingColumns(t *testing.T) {
	for text, want := range map[string]string{
		"rating,body\n5,x\n":           "product_handle",
		"product_handle,body\ntee,x\n": "rating",
	} {
		tbl, err := sheets.Read(strings.NewReader(text), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(tbl); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want one naming %s", text, err, want)
		}
	}
}

func TestAnonymousAndDefaults(t *testing.T) {
	res := parseText(t, "product_handle,rating,reviewer_name\ntee,5,\n")
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	r := res.Reviews[0]
	if r.Author != Anonymous || r.Status != "published" || !r.CreatedAt.IsZero() || r.Verified {
		t.Errorf("%+v", r)
	}
	if want := []sheets.Cleaned{{Row: 2, Column: "reviewer_name", Before: "", After: Anonymous}}; !reflect.DeepEqual(res.Cleaned, want) {
		t.Errorf("cleaned %+v", res.Cleaned)
	}
}

func TestParseDate(t *testing.T) {
	want := time.Date(2024, 5, 31, 14, 30, 0, 0, time.UTC)
	day := time.Date(2024, 5, 31, 0, 0, 0, 0, time.UTC)
	for in, exp := range map[string]time.Time{
		"2024-05-31T14:30:00Z":      want,
		"2024-05-31T16:30:00+02:00": want,
		"2024-05-31T14:30:00.000Z":  want,
		"2024-05-31 14:30:00 UTC":   want,
		"2024-05-31 14:30:00 GMT":   want,
		"2024-05-31 14:30:00":       want,
		"2024-05-31 10:30:00 -0400": want,
		"2024-05-31T14:30:00":       want,
		"2024-05-31 14:30":          want,
		"2024-05-31":                day,
		"05/31/2024":                day,
		"5/31/2024":                 day,
		"05/31/2024 14:30":          want,
		"5/31/24":                   day,
		"05-31-24":                  day,
	} {
		got, ok := parseDate(in)
		if !ok || !got.Equal(exp) || got.Location() != time.UTC {
			t.Errorf("parseDate(%q) = %v, %v; want %v", in, got, ok, exp)
		}
	}
	for _, in := range []string{"31/05/2024", "2024-13-01", "yesterday", "2024-05-31 14:30:00 CET"} {
		if got, ok := parseDate(in); ok {
			t.Errorf("parseDate(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseStatusAndRating(t *testing.T) {
	for in, want := range map[string]string{
		"ok": "published", "OK": "published", "approved": "published", "not-yet": "pending", "not yet": "pending",
		"not_yet": "pending", "Pending": "pending", "spam": "rejected", "rejected": "rejected", "hidden": "rejected",
	} {
		if got, ok := parseStatus(in); !ok || got != want {
			t.Errorf("parseStatus(%q) = %q, %v", in, got, ok)
		}
	}
	for in, want := range map[string]int{"1": 1, "5": 5, "3.0": 3, "4,0": 4} {
		if got, ok := parseRating(in); !ok || got != want {
			t.Errorf("parseRating(%q) = %d, %v", in, got, ok)
		}
	}
}

func TestHeader(t *testing.T) {
	h := Header()
	want := []string{"title", "body", "rating", "review_date", "source", "curated", "reviewer_name", "reviewer_email", "product_id", "product_handle", "reply", "reply_date", "picture_urls", "ip_address", "location", "verified_purchase"}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("Header() = %q", h)
	}
	rows := Rows([]Review{{ProductHandle: "x", Rating: 5, Author: "A", Status: "published"}})
	if len(rows[0]) != len(h) || rows[0][colCurated] != "ok" || rows[0][colReviewDate] != "" || rows[0][colVerified] != "FALSE" {
		t.Errorf("row %q", rows[0])
	}
}

func TestXLSXDateCells(t *testing.T) {
	// Dates typed into a spreadsheet are numbers shown through a date
	// format; they are read as displayed.
	f := excelize.NewFile()
	defer f.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.SetSheetRow("Sheet1", "A1", &[]any{"product_handle", "rating", "review_date", "reply_date"}))
	must(f.SetSheetRow("Sheet1", "A2", &[]any{"tee", 5, time.Date(2024, 5, 31, 14, 30, 0, 0, time.UTC), time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)}))
	style, err := f.NewStyle(&excelize.Style{NumFmt: 14}) // the built-in short date format
	must(err)
	must(f.SetCellStyle("Sheet1", "D2", "D2", style))
	var buf bytes.Buffer
	must(f.Write(&buf))
	tbl, err := sheets.Read(&buf, 1<<20)
	must(err)
	res := mustParse(t, tbl)
	if len(res.Errors) > 0 || len(res.Reviews) != 1 {
		t.Fatalf("%+v", res)
	}
	r := res.Reviews[0]
	if !r.CreatedAt.Equal(time.Date(2024, 5, 31, 14, 30, 0, 0, time.UTC)) || !r.RepliedAt.Equal(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)) || r.Rating != 5 {
		t.Errorf("%+v", r)
	}
}
