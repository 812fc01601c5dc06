package apitest_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/sheets"
	"storeadmin/internal/base/sheets/formsheet"
	"storeadmin/models"
)

// The fields of the spec's FormSubmissionView, exactly.
var fmViewKeys = []string{"created_at", "email", "id", "message", "name", "read", "read_at", "source_url", "type"}

// fmBase is when the fixture's first submission was sent.
var fmBase = time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)

func fmPath(id int64, rest ...string) string {
	return "/store/form-submissions/" + strconv.FormatInt(id, 10) + strings.Join(rest, "")
}

// fmFixture is two stores with form submissions: six in store A (sent a
// day apart from fmBase, oldest first), one in B.
type fmFixture struct {
	e            *apitest.Env
	a, b         *models.Store
	aKey, bKey   string
	subs, theirs []models.FormSubmission
}

func fmSubmissionsFixture(t *testing.T) fmFixture {
	t.Helper()
	e := apitest.New(t)
	f := fmFixture{e: e, a: e.Store("Acme"), b: e.Store("Bolt")}
	f.aKey, f.bKey = e.Key(f.a.ID, auth.RoleAdmin), e.Key(f.b.ID, auth.RoleAdmin)
	read := func(d int) *time.Time { at := fmBase.AddDate(0, 0, d).Add(time.Hour); return &at }
	for i, s := range []models.FormSubmission{
		{Type: "contact", Name: "Ana Alvarez", Email: "ana@example.com", Message: "Where is my order?", SourceURL: "https://acme.example/pages/contact", ReadAt: read(0)},
		{Type: "newsletter", Email: "ben@example.com", SourceURL: "https://acme.example/"},
		{Type: "contact", Name: "Cy Chen", Email: "cy@example.org", Message: "Do you ship to Canada?", SourceURL: "https://acme.example/pages/contact"},
		{Type: "wholesale", Name: "Di Diaz", Email: "di@shop.example", Message: "A wholesale price list, please.", ReadAt: read(3)},
		{Type: "contact", Name: "Ed Evans", Email: "ed@example.com", Message: `=HYPERLINK("http://evil.example","click")`},
		{Type: "newsletter", Email: "fay@example.net", ReadAt: read(5)},
	} {
		s.StoreID, s.CreatedAt = f.a.ID, fmBase.AddDate(0, 0, i)
		f.subs = append(f.subs, fmCreate(t, e, s))
	}
	f.theirs = append(f.theirs, fmCreate(t, e, models.FormSubmission{StoreID: f.b.ID, Type: "contact", Name: "Zed", Email: "zed@example.com", Message: "Canada too?", CreatedAt: fmBase}))
	return f
}

func fmCreate(t *testing.T, e *apitest.Env, s models.FormSubmission) models.FormSubmission {
	t.Helper()
	if err := models.CreateFormSubmission(context.Background(), e.DB, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// fmView checks v against FormSubmissionView and returns it.
func fmView(t *testing.T, v any) map[string]any {
	t.Helper()
	m := checkObject(t, "form submission", v, map[string]string{
		"created_at": "ts", "email": "s", "id": "s", "message": "s", "name": "s", "read": "b", "read_at": "ts?", "source_url": "s", "type": "s",
	})
	if keys := sortedKeys(m); !reflect.DeepEqual(keys, fmViewKeys) {
		t.Fatalf("form submission fields %v, want %v", keys, fmViewKeys)
	}
	if n, err := strconv.ParseInt(m["id"].(string), 10, 64); err != nil || n <= 0 {
		t.Fatalf("id = %#v, want a string of digits", m["id"])
	}
	if m["read"] != (m["read_at"] != nil) {
		t.Fatalf("read %v with read_at %v", m["read"], m["read_at"])
	}
	return m
}

// fmWant is the view the API must answer for s.
func fmWant(s models.FormSubmission) map[string]any {
	var readAt any
	if s.ReadAt != nil {
		readAt = s.ReadAt.UTC().Format(time.RFC3339Nano)
	}
	return map[string]any{
		"id": strconv.FormatInt(s.ID, 10), "type": s.Type, "name": s.Name, "email": s.Email, "message": s.Message,
		"source_url": s.SourceURL, "read": s.ReadAt != nil, "read_at": readAt, "created_at": s.CreatedAt.UTC().Format(time.RFC3339Nano),
	}
}

// fmList sends GET /store/form-submissions?query and returns its rows, counts and total.
func fmList(t *testing.T, e *apitest.Env, key, query string) ([]map[string]any, map[string]any, int64, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/form-submissions?"+query, key, nil).Expect(t, 200)
	expectPayload(t, r, "counts", "next_cursor", "submissions", "total")
	counts := objectWithKeys(t, "counts", r.Body["counts"], []string{"all", "types", "unread"})
	var rows []map[string]any
	for _, v := range r.List("submissions") {
		rows = append(rows, fmView(t, v))
	}
	return rows, counts, wholeNumber(t, r.Body["total"]), r
}

// fmCounts is the counts the list must answer for the submissions keep
// lets through: in all and per type, by type name.
func fmCounts(subs []models.FormSubmission, keep func(models.FormSubmission) bool) map[string]any {
	var all, unread float64
	byType := map[string][2]float64{}
	for _, s := range subs {
		if !keep(s) {
			continue
		}
		c := byType[s.Type]
		all, c[0] = all+1, c[0]+1
		if s.ReadAt == nil {
			unread, c[1] = unread+1, c[1]+1
		}
		byType[s.Type] = c
	}
	types := []any{}
	for _, typ := range slices.Sorted(func(yield func(string) bool) {
		for k := range byType {
			if !yield(k) {
				return
			}
		}
	}) {
		types = append(types, map[string]any{"type": typ, "all": byType[typ][0], "unread": byType[typ][1]})
	}
	return map[string]any{"all": all, "unread": unread, "types": types}
}

// fmIDs are the ids of the list's rows; fmWantIDs those of subs that keep
// lets through, newest first.
func fmIDs(rows []map[string]any) []string {
	out := []string{}
	for _, r := range rows {
		out = append(out, r["id"].(string))
	}
	return out
}

func fmWantIDs(subs []models.FormSubmission, keep func(models.FormSubmission) bool) []string {
	out := []string{}
	for i := len(subs) - 1; i >= 0; i-- {
		if keep(subs[i]) {
			out = append(out, strconv.FormatInt(subs[i].ID, 10))
		}
	}
	return out
}

// TestFormSubmissionsList: the list answers the spec's view, newest first,
// with counts by type and unread under the date range and search, filters
// by type, read, date range and free text, pages by offset and cursor, and
// shows a store its own submissions only.
func TestFormSubmissionsList(t *testing.T) {
	f := fmSubmissionsFixture(t)
	e := f.e
	reader := e.Key(f.a.ID, auth.RoleStaff, "forms:read")
	every := func(models.FormSubmission) bool { return true }

	rows, counts, total, r := fmList(t, e, reader, "")
	if !slices.Equal(fmIDs(rows), fmWantIDs(f.subs, every)) || total != 6 {
		t.Fatalf("ids %v total %d", fmIDs(rows), total)
	}
	for i, row := range rows {
		if want := fmWant(f.subs[len(f.subs)-1-i]); !reflect.DeepEqual(row, want) {
			t.Fatalf("row %d:\n got  %v\n want %v", i, row, want)
		}
	}
	wantCounts := map[string]any{"all": 6.0, "unread": 3.0, "types": []any{
		map[string]any{"type": "contact", "all": 3.0, "unread": 2.0},
		map[string]any{"type": "newsletter", "all": 2.0, "unread": 1.0},
		map[string]any{"type": "wholesale", "all": 1.0, "unread": 0.0},
	}}
	if !reflect.DeepEqual(counts, wantCounts) || !reflect.DeepEqual(fmCounts(f.subs, every), wantCounts) {
		t.Fatalf("counts %v, want %v", counts, wantCounts)
	}
	e.SameOnGraphQL(t, r, reader, "ListFormSubmissions", nil)

	// Filters; the counts keep the date range and the search only.
	day := func(d int) string { return url.QueryEscape(fmBase.AddDate(0, 0, d).Format(time.RFC3339)) }
	since2 := func(s models.FormSubmission) bool { return !s.CreatedAt.Before(fmBase.AddDate(0, 0, 2)) }
	for _, c := range []struct {
		query        string
		keep, counts func(models.FormSubmission) bool
	}{
		{"type=contact", func(s models.FormSubmission) bool { return s.Type == "contact" }, every},
		{"type=press", func(models.FormSubmission) bool { return false }, every},
		{"read=false", func(s models.FormSubmission) bool { return s.ReadAt == nil }, every},
		{"read=true&type=contact", func(s models.FormSubmission) bool { return s.ReadAt != nil && s.Type == "contact" }, every},
		{"created_from=" + day(2), since2, since2},
		{"created_to=" + day(2), func(s models.FormSubmission) bool { return s.CreatedAt.Before(fmBase.AddDate(0, 0, 2)) },
			func(s models.FormSubmission) bool { return s.CreatedAt.Before(fmBase.AddDate(0, 0, 2)) }},
		{"created_from=" + day(1) + "&created_to=" + day(3) + "&type=contact", func(s models.FormSubmission) bool { return s.ID == f.subs[2].ID },
			func(s models.FormSubmission) bool { return s.ID == f.subs[1].ID || s.ID == f.subs[2].ID }},
		{"q=canada", func(s models.FormSubmission) bool { return s.ID == f.subs[2].ID }, func(s models.FormSubmission) bool { return s.ID == f.subs[2].ID }},
		{"q=%40EXAMPLE.COM", func(s models.FormSubmission) bool { return strings.HasSuffix(s.Email, "@example.com") },
			func(s models.FormSubmission) bool { return strings.HasSuffix(s.Email, "@example.com") }},
		{"q=Di+Diaz", func(s models.FormSubmission) bool { return s.ID == f.subs[3].ID }, func(s models.FormSubmission) bool { return s.ID == f.subs[3].ID }},
		{"q=%25", func(models.FormSubmission) bool { return false }, func(models.FormSubmission) bool { return false }},
	} {
		rows, counts, total, r := fmList(t, e, f.aKey, c.query)
		want := fmWantIDs(f.subs, c.keep)
		if !slices.Equal(fmIDs(rows), want) || total != int64(len(want)) || !reflect.DeepEqual(counts, fmCounts(f.subs, c.counts)) {
			t.Fatalf("?%s: ids %v total %d counts %v; want %v, %d, %v", c.query, fmIDs(rows), total, counts, want, len(want), fmCounts(f.subs, c.counts))
		}
		if c.query == "read=true&type=contact" {
			e.SameOnGraphQL(t, r, f.aKey, "ListFormSubmissions", map[string]any{"filter": map[string]any{"read": true, "type": "contact"}})
		}
	}

	// Paging by offset, total ignoring it; and by cursor, the same rows.
	want := fmWantIDs(f.subs, every)
	for _, c := range []struct {
		query  string
		lo, hi int
	}{{"limit=4", 0, 4}, {"limit=4&offset=4", 4, 6}, {"offset=6", 6, 6}} {
		rows, _, total, _ := fmList(t, e, f.aKey, c.query)
		if !slices.Equal(fmIDs(rows), want[c.lo:c.hi]) || total != 6 {
			t.Fatalf("?%s: ids %v total %d", c.query, fmIDs(rows), total)
		}
	}
	var walked []string
	for query := "limit=4"; ; {
		rows, _, _, r := fmList(t, e, f.aKey, query)
		walked = append(walked, fmIDs(rows)...)
		next, _ := r.Body["next_cursor"].(string)
		if next == "" {
			break
		}
		query = "limit=4&cursor=" + url.QueryEscape(next)
	}
	if !slices.Equal(walked, want) {
		t.Fatalf("by cursor %v, want %v", walked, want)
	}

	// Store B sees its own only.
	rows, counts, total, _ = fmList(t, e, f.bKey, "")
	if !slices.Equal(fmIDs(rows), fmWantIDs(f.theirs, every)) || total != 1 || !reflect.DeepEqual(counts, fmCounts(f.theirs, every)) {
		t.Fatalf("store B: %v %v %d", fmIDs(rows), counts, total)
	}

	for _, q := range []string{"type=Contact", "type=a+b", "type=", "read=maybe", "created_from=yesterday", "created_to=2026-13-01T00:00:00Z",
		"created_from=" + day(3) + "&created_to=" + day(3), "created_from=" + day(3) + "&created_to=" + day(1), "limit=0", "limit=251", "offset=-1", "unread=true",
		"q=" + strings.Repeat("x", 256), "cursor=nope"} {
		if r := e.Do(http.MethodGet, "/store/form-submissions?"+q, f.aKey, nil).Expect(t, 400); r.Message() == "" {
			t.Fatalf("?%s: 400 without a message", q)
		}
	}
	if g := e.GraphQL(f.aKey, `{ formSubmissionCounts(filter: {type: "Not A Type"}) { all } }`, nil); g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("GraphQL bad type: %s", g.Raw)
	}
}

// fmRead sends PUT /store/form-submissions/{id}/read and returns the view.
func fmRead(t *testing.T, e *apitest.Env, key string, id int64, body any) (map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodPut, fmPath(id, "/read"), key, body).Expect(t, 200)
	expectPayload(t, r, "submission")
	return fmView(t, r.Body["submission"]), r
}

// TestFormSubmissionsReadAndDelete: PUT .../read marks a submission read
// (keeping the first read_at) or, with {read: false}, unread; DELETE
// removes it; another store's submissions are 404s and stay as they were.
func TestFormSubmissionsReadAndDelete(t *testing.T) {
	f := fmSubmissionsFixture(t)
	e := f.e
	unread, read := f.subs[2], f.subs[0]

	before := time.Now().UTC()
	v, r := fmRead(t, e, f.aKey, unread.ID, nil)
	at, err := time.Parse(time.RFC3339Nano, stringField(t, v, "read_at"))
	if err != nil || v["read"] != true || at.Before(before.Truncate(time.Microsecond)) || at.After(time.Now()) {
		t.Fatalf("marked read: %v", v)
	}
	// Reading it again keeps the first read_at; {} and {read: true} read too.
	for _, body := range []any{map[string]any{}, map[string]any{"read": true}, nil} {
		if again, _ := fmRead(t, e, f.aKey, unread.ID, body); again["read_at"] != v["read_at"] {
			t.Fatalf("read again (%v): read_at %v, was %v", body, again["read_at"], v["read_at"])
		}
	}
	e.SameOnGraphQL(t, r, f.aKey, "SetFormSubmissionRead", map[string]any{"id": strconv.FormatInt(unread.ID, 10)})
	if v, _ := fmRead(t, e, f.aKey, read.ID, map[string]any{"read": false}); v["read"] != false || v["read_at"] != nil {
		t.Fatalf("marked unread: %v", v)
	}
	expectAuditRecord(t, e, f.aKey, "action=setFormSubmissionRead&limit=1", "form_submission", read.ID)
	if _, counts, _, _ := fmList(t, e, f.aKey, ""); counts["unread"] != 3.0 { // one read, one unread
		t.Fatalf("counts after reading one and unreading one: %v", counts)
	}
	g := e.GraphQL(f.aKey, `mutation($id: ID!) { setFormSubmissionRead(id: $id, input: {read: false}) { id read read_at } }`, map[string]any{"id": unread.ID})
	if !reflect.DeepEqual(g.Data()["setFormSubmissionRead"], map[string]any{"id": strconv.FormatInt(unread.ID, 10), "read": false, "read_at": nil}) {
		t.Fatalf("GraphQL unread: %s", g.Raw)
	}

	for name, body := range map[string]any{
		"read a string":  map[string]any{"read": "yes"},
		"read a number":  map[string]any{"read": 1},
		"unknown field":  map[string]any{"read": true, "seen": true},
		"not an object":  `[true]`,
		"not JSON":       `{"read": `,
		"trailing bytes": `{"read": true} {}`,
	} {
		if r := e.Do(http.MethodPut, fmPath(unread.ID, "/read"), f.aKey, body); r.Status != 400 {
			t.Fatalf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	e.Do(http.MethodPut, "/store/form-submissions/abc/read", f.aKey, nil).Expect(t, 400)
	e.Do(http.MethodDelete, "/store/form-submissions/1.5", f.aKey, nil).Expect(t, 400)

	// Another store's and missing ids are 404s; theirs stay as they were.
	for _, id := range []int64{f.theirs[0].ID, 987654} {
		e.Do(http.MethodPut, fmPath(id, "/read"), f.aKey, nil).Expect(t, 404)
		e.Do(http.MethodDelete, fmPath(id), f.aKey, nil).Expect(t, 404)
		expectGraphQLNotFound(t, e, f.aKey, `mutation($id: ID!) { deleteFormSubmission(id: $id) }`, map[string]any{"id": id})
	}
	if rows, _, _, _ := fmList(t, e, f.bKey, ""); !reflect.DeepEqual(rows[0], fmWant(f.theirs[0])) {
		t.Fatalf("another store's submission changed: %v", rows[0])
	}

	expectBareDelete(t, e, f.aKey, fmPath(unread.ID))
	e.Do(http.MethodDelete, fmPath(unread.ID), f.aKey, nil).Expect(t, 404)
	e.Do(http.MethodPut, fmPath(unread.ID, "/read"), f.aKey, nil).Expect(t, 404)
	if g := e.GraphQL(f.aKey, `mutation($id: ID!) { deleteFormSubmission(id: $id) }`, map[string]any{"id": strconv.FormatInt(f.subs[4].ID, 10)}); g.Data()["deleteFormSubmission"] != true {
		t.Fatalf("deleteFormSubmission: %s", g.Raw)
	}
	expectAuditRecord(t, e, f.aKey, "action=deleteFormSubmission&limit=1", "form_submission", f.subs[4].ID)
	if rows, counts, total, _ := fmList(t, e, f.aKey, ""); total != 4 || len(rows) != 4 || counts["all"] != 4.0 {
		t.Fatalf("after two deletes: total %d counts %v", total, counts)
	}
}

// fmSheet reads an export and checks its header.
func fmSheet(t *testing.T, raw []byte, format string) *sheets.Table {
	t.Helper()
	tbl, err := sheets.Read(bytes.NewReader(raw), 32<<20)
	if err != nil || tbl.Format != format {
		t.Fatalf("read the %s export: %v (%+v)", format, err, tbl)
	}
	if !reflect.DeepEqual(tbl.Header, formsheet.Header()) {
		t.Fatalf("header %q", tbl.Header)
	}
	return tbl
}

// TestFormSubmissionsExport: CSV and XLSX hold the submissions the filter
// matches, newest first, one row each, times in the store's time zone; a
// cell that a spreadsheet would run as a formula is written as text.
func TestFormSubmissionsExport(t *testing.T) {
	f := fmSubmissionsFixture(t)
	e := f.e
	e.Do(http.MethodPut, "/store", f.aKey, map[string]any{"timezone": "Europe/Berlin"}).Expect(t, 200)
	reader := e.Key(f.a.ID, auth.RoleStaff, "forms:read") // the spec's "r": any role

	wantRow := func(s models.FormSubmission) []string {
		row := []string{strconv.FormatInt(s.ID, 10), s.CreatedAt.In(berlinTZ(t)).Format("2006-01-02 15:04:05 -0700"), s.Type, s.Name, s.Email, s.Message, s.SourceURL, "FALSE", ""}
		if s.ReadAt != nil {
			row[7], row[8] = "TRUE", s.ReadAt.In(berlinTZ(t)).Format("2006-01-02 15:04:05 -0700")
		}
		return row
	}
	for _, format := range []string{"csv", "xlsx"} {
		file := e.Do(http.MethodGet, "/store/form-submissions/export?format="+format, reader, nil).Expect(t, 200)
		if cd := file.Header.Get("Content-Disposition"); !strings.Contains(cd, "form_submissions_") || !strings.Contains(cd, "."+format) {
			t.Fatalf("export %s: Content-Disposition %q", format, cd)
		}
		tbl := fmSheet(t, file.Raw, format)
		if len(tbl.Rows) != 6 {
			t.Fatalf("%s: %d rows, want 6", format, len(tbl.Rows))
		}
		for i, row := range tbl.Rows {
			want := wantRow(f.subs[len(f.subs)-1-i])
			if format == "xlsx" { // a workbook holds the wall clock: its zone is gone
				for _, c := range []int{1, 8} {
					want[c] = strings.TrimSuffix(want[c], " +0200")
					want[c] = strings.TrimSuffix(want[c], " +0100")
				}
			}
			if !slices.Equal(row[:len(want)], want) {
				t.Fatalf("%s row %d:\n got  %q\n want %q", format, i, row, want)
			}
		}
		if format == "csv" && bytes.Contains(file.Raw, []byte(`,=HYPERLINK`)) {
			t.Fatalf("the CSV holds a formula: %s", file.Raw)
		}
	}

	// The filter applies; another store's are not there.
	file := e.Do(http.MethodGet, "/store/form-submissions/export?type=newsletter&read=false", f.aKey, nil).Expect(t, 200)
	if tbl := fmSheet(t, file.Raw, "csv"); len(tbl.Rows) != 1 || tbl.Rows[0][0] != strconv.FormatInt(f.subs[1].ID, 10) {
		t.Fatalf("filtered export: %q", tbl.Rows)
	}
	file = e.Do(http.MethodGet, "/store/form-submissions/export", f.bKey, nil).Expect(t, 200)
	if tbl := fmSheet(t, file.Raw, "csv"); len(tbl.Rows) != 1 || tbl.Rows[0][0] != strconv.FormatInt(f.theirs[0].ID, 10) {
		t.Fatalf("store B's export: %q", tbl.Rows)
	}
	for _, q := range []string{"format=pdf", "type=Bad Type", "read=perhaps", "sort=name"} {
		e.Do(http.MethodGet, "/store/form-submissions/export?"+strings.ReplaceAll(q, " ", "+"), f.aKey, nil).Expect(t, 400)
	}
	// GraphQL answers a signed link to the same file.
	g := e.GraphQL(f.aKey, `{ formSubmissionsExport(format: XLSX) { filename content_type url } }`, nil)
	d, _ := g.Data()["formSubmissionsExport"].(map[string]any)
	resp, err := http.Get(stringField(t, d, "url"))
	if err != nil || resp.StatusCode != http.StatusOK || !strings.HasSuffix(d["filename"].(string), ".xlsx") {
		t.Fatalf("download %v: %v %v", d, err, resp)
	}
	resp.Body.Close()
}

func berlinTZ(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestFormSubmissionsAccess: reads need forms:read (any role), writes
// forms:write and the admin role; refused writes change nothing.
func TestFormSubmissionsAccess(t *testing.T) {
	f := fmSubmissionsFixture(t)
	e := f.e
	id := f.subs[2].ID
	checkAccess(t, e, f.a.ID, "forms", map[string]string{"other scope": e.Key(f.a.ID, auth.RoleAdmin, "reviews:write", "email:write")},
		[]apitest.Call{
			{Method: http.MethodGet, Path: "/store/form-submissions"},
			{Method: http.MethodGet, Path: "/store/form-submissions?type=contact"},
			{Method: http.MethodGet, Path: "/store/form-submissions/export"},
		},
		[]apitest.Call{
			{Method: http.MethodPut, Path: fmPath(id, "/read"), Body: map[string]any{"read": true}},
			{Method: http.MethodDelete, Path: fmPath(id)},
		})
	if rows, _, _, _ := fmList(t, e, f.aKey, "read=false"); !slices.Contains(fmIDs(rows), strconv.FormatInt(id, 10)) {
		t.Fatal("a refused write changed the submission")
	}
	expectUnauthorized(t, e, f.a.ID, http.MethodPut, fmPath(id, "/read"), nil)
	if g := e.GraphQL(e.Key(f.a.ID, auth.RoleAdmin, "forms:read"), `mutation($id: ID!) { deleteFormSubmission(id: $id) }`, map[string]any{"id": id}); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("read-only deleteFormSubmission: %s", g.Raw)
	}
}

// TestCreateFormSubmissionRules: what the storefront (and the seed) may
// store: a type that is a handle, bounded one-line fields, an address when
// an email is given.
func TestCreateFormSubmissionRules(t *testing.T) {
	e, s, _ := newAcme(t)
	ctx := context.Background()
	ok := models.FormSubmission{StoreID: s.ID, Type: " contact ", Name: " Ana ", Email: "ana@example.com", Message: "Hi\nthere"}
	if err := models.CreateFormSubmission(ctx, e.DB, &ok); err != nil || ok.ID == 0 || ok.Type != "contact" || ok.Name != "Ana" || ok.CreatedAt.IsZero() {
		t.Fatalf("a good submission: %+v, %v", ok, err)
	}
	for name, bad := range map[string]models.FormSubmission{
		"no type":         {Type: ""},
		"upper-case type": {Type: "Contact"},
		"spaced type":     {Type: "contact us"},
		"long type":       {Type: strings.Repeat("a", 41)},
		"two-line name":   {Type: "contact", Name: "Ana\r\nBcc: x@example.com"},
		"not an email":    {Type: "contact", Email: "ana"},
		"a named email":   {Type: "contact", Email: "Ana <ana@example.com>"},
		"long message":    {Type: "contact", Message: strings.Repeat("m", 10_001)},
		"long name":       {Type: "contact", Name: strings.Repeat("n", 256)},
	} {
		bad.StoreID = s.ID
		if err := models.CreateFormSubmission(ctx, e.DB, &bad); err == nil {
			t.Errorf("%s: stored", name)
		}
	}
}
