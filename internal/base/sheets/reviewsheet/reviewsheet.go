// Package reviewsheet reads and writes product reviews in the CSV layout of
// Judge.me, the review app whose import/export format other review apps and
// migration tools most often read and write. Merchants switching to this
// store bring their reviews in that file, and the file written here can be
// taken back to such an app.
//
// Column names of a few other apps (author, email, created_at, photo_urls,
// verified_purchase, ...) are accepted too, since people export from one app
// and rename little. Reviews are independent of each other, so a row with a
// problem is reported and left out while the other rows are imported.
package reviewsheet

import (
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"storeadmin/internal/base/handle"
	"storeadmin/internal/base/sheets"
)

// Review is one product review.
type Review struct {
	Row           int
	ProductHandle string
	Rating        int // 1..5
	Title         string
	Body          string
	// Author is the reviewer's display name. An empty name becomes
	// "Anonymous" (reported in Cleaned) rather than an error: review apps
	// accept anonymous reviews, and dropping a genuine customer review
	// over a blank name would lose real content.
	Author    string
	Email     string    // optional; must look like an email address when present
	CreatedAt time.Time // zero when the file has no date: the caller uses the time of import
	Reply     string    // the store's public reply
	RepliedAt time.Time
	PhotoURLs []string
	Verified  bool   // verified purchase
	Status    string // "published", "pending" or "rejected"
}

// Result is what Parse found: the reviews that can be imported and the
// report for the person who uploaded the file.
type Result struct {
	Reviews []Review
	Errors  []sheets.Problem
	Skipped []sheets.Skip
	Cleaned []sheets.Cleaned
}

// Anonymous is the author of a review whose name is empty.
const Anonymous = "Anonymous"

// header is Judge.me's column order, plus verified_purchase (which
// Judge.me's own files lack) so that the flag survives an export and
// re-import here.
var header = []string{
	"title", "body", "rating", "review_date", "source", "curated", "reviewer_name", "reviewer_email",
	"product_id", "product_handle", "reply", "reply_date", "picture_urls", "ip_address", "location",
	"verified_purchase",
}

const (
	colTitle = iota
	colBody
	colRating
	colReviewDate
	colSource
	colCurated
	colReviewerName
	colReviewerEmail
	colProductID
	colProductHandle
	colReply
	colReplyDate
	colPictureURLs
	colIPAddress
	colLocation
	colVerified
	numCols
)

type columns struct {
	handle, rating, title, body, author, email, created int
	reply, replied, photos, verified, curated, status   int
}

func findColumns(t *sheets.Table) columns {
	return columns{
		handle:   t.Col("product_handle", "handle", "product_url_handle"),
		rating:   t.Col("rating", "stars", "score", "review_score", "star_rating"),
		title:    t.Col("title", "review_title"),
		body:     t.Col("body", "review_body", "content", "review_content", "review", "comment", "text"),
		author:   t.Col("reviewer_name", "author", "author_name", "name", "display_name", "reviewer", "customer_name"),
		email:    t.Col("reviewer_email", "email", "author_email", "customer_email"),
		created:  t.Col("review_date", "created_at", "date", "date_created", "submitted_at"),
		reply:    t.Col("reply", "response", "store_reply"),
		replied:  t.Col("reply_date", "replied_at", "response_date"),
		photos:   t.Col("picture_urls", "photo_urls", "photo_url", "image_urls", "images", "photos", "pictures"),
		verified: t.Col("verified_purchase", "verified", "verified_buyer", "is_verified"),
		curated:  t.Col("curated"),
		status:   t.Col("status"),
	}
}

// Parse reads reviews. It fails as a whole only when the file is not a
// review sheet (its header has no product handle or no rating column); each
// row with a problem is reported, listed in Skipped and left out.
func Parse(t *sheets.Table) (Result, error) {
	var res Result
	c := findColumns(t)
	var missing []string
	if c.handle < 0 {
		missing = append(missing, `the "product_handle" column is missing; it says which product each review is for`)
	}
	if c.rating < 0 {
		missing = append(missing, `the "rating" column is missing`)
	}
	if err := sheets.NotThisSheet("review", missing); err != nil {
		return res, err
	}
	for i := range t.Rows {
		r := t.Row(i)
		rv := parseRow(r, c)
		if errs := r.Problems(); len(errs) > 0 {
			res.Errors = append(res.Errors, errs...)
			res.Skipped = append(res.Skipped, sheets.Skip{Row: r.Num, Handle: rv.ProductHandle, Reason: "has errors"})
			continue
		}
		res.Reviews = append(res.Reviews, rv)
		res.Cleaned = append(res.Cleaned, r.Cleaned()...)
	}
	return res, nil
}

func parseRow(r *sheets.Row, c columns) Review {
	rv := Review{Row: r.Num}

	raw := r.Cell(c.handle)
	rv.ProductHandle = handle.From(raw)
	switch {
	case raw == "":
		r.Fail(c.handle, "the product handle is empty")
	case rv.ProductHandle == "":
		r.Fail(c.handle, "the product handle %q has no letters or digits", raw)
		rv.ProductHandle = raw
	case rv.ProductHandle != raw:
		r.Changed(c.handle, rv.ProductHandle)
	}

	if s := r.Cell(c.rating); s == "" {
		r.Fail(c.rating, "the rating is empty")
	} else if n, ok := parseRating(s); !ok {
		r.Fail(c.rating, "rating %q must be a whole number from 1 to 5", s)
	} else {
		rv.Rating = n
	}

	rv.Title = r.Cell(c.title)
	rv.Body = r.Cell(c.body)
	rv.Author = r.Cell(c.author)
	if rv.Author == "" {
		rv.Author = Anonymous
		r.Changed(c.author, Anonymous)
	}
	if rv.Email = r.Cell(c.email); rv.Email != "" && !validEmail(rv.Email) {
		r.Fail(c.email, "%q is not an email address", rv.Email)
	}
	rv.CreatedAt = dateCell(r, c.created)
	rv.Reply = r.Cell(c.reply)
	rv.RepliedAt = dateCell(r, c.replied)

	for u := range strings.FieldsFuncSeq(r.Cell(c.photos), func(ch rune) bool { return ch == ',' || unicode.IsSpace(ch) }) {
		if !validURL(u) {
			r.Fail(c.photos, "photo %q is not a web address (http:// or https://)", u)
			continue
		}
		rv.PhotoURLs = append(rv.PhotoURLs, u)
	}

	if s := r.Cell(c.verified); s != "" {
		if v, ok := sheets.ParseBool(s); ok {
			rv.Verified = v
		} else {
			r.Fail(c.verified, "%q must be TRUE or FALSE", s)
		}
	}

	rv.Status = "published"
	col := c.curated
	s := r.Cell(col)
	if s == "" {
		col = c.status
		s = r.Cell(col)
	}
	if s != "" {
		if st, ok := parseStatus(s); ok {
			rv.Status = st
		} else {
			r.Fail(col, "%q must be published, pending or rejected (Judge.me: ok, not-yet or spam)", s)
		}
	}
	return rv
}

// parseRating accepts 1..5, also written "5.0" as spreadsheets like to.
func parseRating(s string) (int, bool) {
	s = strings.Replace(s, ",", ".", 1)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int(f)) || f < 1 || f > 5 {
		return 0, false
	}
	return int(f), true
}

// parseStatus maps Judge.me's curated values (ok, spam, not-yet) and plain
// status words to published, rejected or pending.
func parseStatus(s string) (string, bool) {
	switch strings.ToLower(strings.NewReplacer(" ", "-", "_", "-").Replace(s)) {
	case "ok", "published", "approved", "visible", "public", "true", "yes":
		return "published", true
	case "not-yet", "pending", "unpublished", "awaiting", "new", "false", "no":
		return "pending", true
	case "spam", "rejected", "hidden", "declined":
		return "rejected", true
	}
	return "", false
}

// dateLayouts are the date forms review exports use; times without a zone
// are taken as UTC.
var dateLayouts = []string{
	time.RFC3339,
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05 -07:00",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
	"01/02/2006 15:04:05",
	"01/02/2006 15:04",
	"01/02/2006",
	"1/2/2006 15:04",
	"1/2/2006",
	"1/2/06 15:04", // spreadsheet "m/d/yy h:mm"
	"1/2/06",       // spreadsheet "m/d/yy"
	"01-02-06",     // spreadsheet built-in date format "mm-dd-yy"
}

func parseDate(s string) (time.Time, bool) {
	for _, suffix := range []string{" UTC", " GMT", " Z"} {
		s = strings.TrimSuffix(s, suffix)
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func dateCell(r *sheets.Row, col int) time.Time {
	s := r.Cell(col)
	if s == "" {
		return time.Time{}
	}
	t, ok := parseDate(s)
	if !ok {
		r.Fail(col, "%q is not a date; write it as 2024-05-31 or 2024-05-31 14:30:00 UTC", s)
	}
	return t
}

// validEmail accepts a bare address with a dotted domain; a display name
// ("Ann <ann@example.com>") or "ann@localhost" is not what a reviewer typed.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	_, domain, _ := strings.Cut(s, "@")
	return strings.Contains(strings.Trim(domain, "."), ".")
}

func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Header returns the export header: Judge.me's columns plus
// verified_purchase.
func Header() []string {
	return append([]string(nil), header...)
}

// Types says what each column of Header holds, for a workbook to store
// ratings, dates and flags as such.
func Types() []sheets.Type {
	types := make([]sheets.Type, numCols)
	types[colRating] = sheets.Number
	types[colReviewDate] = sheets.Time
	types[colReplyDate] = sheets.Time
	types[colVerified] = sheets.Bool
	return types
}

// Rows writes reviews in Header's layout. Dates are written as Judge.me
// writes them ("2006-01-02 15:04:05 UTC"), booleans as TRUE/FALSE.
func Rows(reviews []Review) [][]string {
	rows := make([][]string, 0, len(reviews))
	for _, rv := range reviews {
		row := make([]string, numCols)
		row[colTitle] = rv.Title
		row[colBody] = rv.Body
		row[colRating] = strconv.Itoa(rv.Rating)
		row[colReviewDate] = formatDate(rv.CreatedAt)
		row[colCurated] = curated(rv.Status)
		row[colReviewerName] = rv.Author
		row[colReviewerEmail] = rv.Email
		row[colProductHandle] = rv.ProductHandle
		row[colReply] = rv.Reply
		row[colReplyDate] = formatDate(rv.RepliedAt)
		row[colPictureURLs] = strings.Join(rv.PhotoURLs, ",")
		row[colVerified] = "FALSE"
		if rv.Verified {
			row[colVerified] = "TRUE"
		}
		rows = append(rows, row)
	}
	return rows
}

func formatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

func curated(status string) string {
	switch status {
	case "pending":
		return "not-yet"
	case "rejected":
		return "spam"
	}
	return "ok"
}

// Template returns a small example sheet.
func Template() (header []string, rows [][]string) {
	return Header(), Rows(templateReviews())
}

func templateReviews() []Review {
	return []Review{
		{
			ProductHandle: "classic-tee",
			Rating:        5,
			Title:         "Perfect fit",
			Body:          "Soft fabric and true to size. Bought a second one.",
			Author:        "Maria G.",
			Email:         "maria@example.com",
			CreatedAt:     time.Date(2024, 5, 31, 14, 30, 0, 0, time.UTC),
			Reply:         "Thank you, Maria!",
			RepliedAt:     time.Date(2024, 6, 1, 9, 0, 0, 0, time.UTC),
			PhotoURLs:     []string{"https://cdn.example.com/reviews/tee-1.jpg"},
			Verified:      true,
			Status:        "published",
		},
		{
			ProductHandle: "gift-mug",
			Rating:        3,
			Title:         "Nice but small",
			Body:          "Looks lovely, holds less than I expected.",
			Author:        "Sam",
			CreatedAt:     time.Date(2024, 7, 2, 0, 0, 0, 0, time.UTC),
			Status:        "pending",
		},
	}
}
