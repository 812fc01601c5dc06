package apitest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// rsRatings reads a product's rating_avg and rating_count.
func rsRatings(t *testing.T, e *apitest.Env, id int64) (avg, count int64) {
	t.Helper()
	row := struct {
		Avg   int64 `bun:"rating_avg"`
		Count int64 `bun:"rating_count"`
	}{}
	if err := e.DB.NewSelect().TableExpr("products").Column("rating_avg", "rating_count").Where("id = ?", id).Scan(context.Background(), &row); err != nil {
		t.Fatal(err)
	}
	return row.Avg, row.Count
}

// TestReviewSheet: the review import reports by row, refreshes ratings,
// replaces rather than doubles on a second import; export and template
// answer files that import back.
func TestReviewSheet(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("reviews-sheet")
	key := e.Key(s.ID, auth.RoleAdmin)
	mug := insertProduct(t, e, s.ID, "mug")
	other := e.Store("other")
	insertProduct(t, e, other.ID, "cap") // another store's handle is unknown here

	sheet := "title,body,rating,review_date,source,curated,reviewer_name,reviewer_email,product_id,product_handle,reply,reply_date,picture_urls\n" +
		"Great,Loved it,5,2026-03-02 10:12:00 UTC,web,ok,Ana,ana@example.com,,mug,Thanks!,2026-03-03 09:00:00 UTC,\n" +
		"Fine,Okay,4,2026-03-04 10:00:00 UTC,web,ok,Ben,ben@example.com,,mug,,,\n" +
		"Meh,Hmm,2,2026-03-05 10:00:00 UTC,web,not-yet,Cy,,,mug,,,\n" +
		"Who,Unknown product,5,2026-03-05 10:00:00 UTC,web,ok,Di,di@example.com,,cap,,,\n" +
		"Bad,Bad rating,9,2026-03-05 10:00:00 UTC,web,ok,Ed,ed@example.com,,mug,,,\n"
	headers := map[string]string{"Content-Type": "text/csv"}
	rep := e.DoHeaders(http.MethodPost, "/store/reviews/import", key, sheet, headers).Expect(t, http.StatusOK)
	if got := sortedKeys(rep.Body); strings.Join(got, ",") != "created,errors,products,replaced,skipped,status" {
		t.Fatalf("report fields %v", got)
	}
	if rep.Body["created"].(float64) != 3 || rep.Body["replaced"].(float64) != 0 || rep.Body["products"].(float64) != 1 {
		t.Fatalf("first import: %s", rep.Raw)
	}
	rows := map[float64]bool{}
	for _, p := range rep.Body["errors"].([]any) {
		rows[p.(map[string]any)["row"].(float64)] = true
	}
	if !rows[5] || !rows[6] || len(rows) != 2 {
		t.Fatalf("errors should name rows 5 and 6: %s", rep.Raw)
	}
	if avg, n := rsRatings(t, e, mug); avg != 5 || n != 2 { // 5 and 4 published, rounded half up
		t.Fatalf("ratings after import: avg %d count %d", avg, n)
	}

	rep = e.DoHeaders(http.MethodPost, "/store/reviews/import", key, sheet, headers).Expect(t, http.StatusOK)
	if rep.Body["created"].(float64) != 0 || rep.Body["replaced"].(float64) != 3 {
		t.Fatalf("second import must replace, not double: %s", rep.Raw)
	}
	if total := e.Do(http.MethodGet, "/store/reviews", key, nil).Expect(t, http.StatusOK).Body["total"].(float64); total != 3 {
		t.Fatalf("%v reviews after two imports, want 3", total)
	}

	for _, format := range []string{"csv", "xlsx"} {
		file := e.Do(http.MethodGet, "/store/reviews/export?format="+format, key, nil).Expect(t, http.StatusOK)
		if !strings.Contains(file.Header.Get("Content-Disposition"), "."+format) {
			t.Fatalf("export %s: Content-Disposition %q", format, file.Header.Get("Content-Disposition"))
		}
		rep = e.DoHeaders(http.MethodPost, "/store/reviews/import", key, file.Raw, map[string]string{"Content-Type": "application/octet-stream"}).Expect(t, http.StatusOK)
		if rep.Body["replaced"].(float64) != 3 || len(rep.Body["errors"].([]any)) != 0 {
			t.Fatalf("re-import of the %s export: %s", format, rep.Raw)
		}
		tmpl := e.Do(http.MethodGet, "/store/reviews/import/template?format="+format, key, nil).Expect(t, http.StatusOK)
		if len(tmpl.Raw) == 0 {
			t.Fatalf("empty %s template", format)
		}
		ptmpl := e.Do(http.MethodGet, "/store/products/import/template?format="+format, key, nil).Expect(t, http.StatusOK)
		rep = e.DoHeaders(http.MethodPost, "/store/products/import", key, ptmpl.Raw, map[string]string{"Content-Type": "application/octet-stream"}).Expect(t, http.StatusOK)
		if len(rep.Body["errors"].([]any)) != 0 || rep.Body["created"].(float64)+rep.Body["updated"].(float64) == 0 {
			t.Fatalf("the %s product template does not import: %s", format, rep.Raw)
		}
	}

	// GraphQL answers a signed link for the same file.
	g := e.GraphQL(key, `{ reviewsExport(format: CSV) { filename content_type url expires_at } }`, nil)
	d := g.Data()["reviewsExport"].(map[string]any)
	resp, err := http.Get(d["url"].(string))
	if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(d["content_type"].(string), "text/csv") {
		t.Fatalf("download %v: %v %v", d, err, resp)
	}
	resp.Body.Close()

	// Access: files and imports need the admin role; no key is a 401;
	// the import needs reviews:write.
	staff := e.Key(s.ID, auth.RoleStaff)
	e.ExpectEach(t, http.StatusForbidden, map[string]string{"staff": staff, "read only": e.Key(s.ID, auth.RoleAdmin, "reviews:read")}, []apitest.Call{
		{Method: http.MethodPost, Path: "/store/reviews/import", Body: sheet},
	})
	e.ExpectEach(t, http.StatusForbidden, map[string]string{"staff": staff}, []apitest.Call{
		{Method: http.MethodGet, Path: "/store/reviews/export"},
		{Method: http.MethodGet, Path: "/store/reviews/import/template"},
	})
	e.Do(http.MethodGet, "/store/reviews/export", "", nil).Expect(t, http.StatusUnauthorized)
	e.DoHeaders(http.MethodPost, "/store/reviews/import", key, "", headers).Expect(t, http.StatusBadRequest)
	e.DoHeaders(http.MethodPost, "/store/reviews/import", key, []byte("%PDF-1.4\n\x00\x01\x02\x03 binary"), headers).Expect(t, http.StatusBadRequest)
}
