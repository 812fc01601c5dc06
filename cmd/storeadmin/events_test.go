package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/base/geoip"
	"storeadmin/internal/base/geoip/geoiptest"
	"storeadmin/internal/testkit/testdb"
)

// events import stores a file's good lines, skips its bad ones naming
// their line numbers, stores a duplicate once, and a second run stores
// nothing new.
func TestEventsImport(t *testing.T) {
	db, url := testdb.New(t)
	dbFlag := "--database-url=" + url
	ctx := context.Background()
	if _, err := runCmd(t, "migrate", dbFlag); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if _, err := runCmd(t, "stores", "create", dbFlag, "--handle", "importer", "--name", "Importer"); err != nil {
		t.Fatal(err)
	}
	geo := geoiptest.Write(t, map[string]geoip.Place{"203.0.113.0/24": {Country: "NL", Region: "North Holland", City: "Amsterdam",
		Located: true, Lat: 52.3676, Lon: 4.9041}})
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(min int) string { return t0.Add(time.Duration(min) * time.Minute).Format(time.RFC3339) }
	ua := "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
	lines := []string{
		fmt.Sprintf(`{"id":"i1","name":"page_view","visitor_id":"v1","time":%q,"path":"/","ip":"203.0.113.50","user_agent":%q}`, at(0), ua),
		fmt.Sprintf(`{"id":"i2","name":"product_view","visitor_id":"v1","time":%q,"product_id":3,"ip":"203.0.113.50","user_agent":%q}`, at(5), ua),
		`{"id":"i3","name":"page_view",`, // line 3: not JSON
		fmt.Sprintf(`{"id":"i2","name":"product_view","visitor_id":"v1","time":%q,"product_id":3}`, at(5)), // a copy of line 2
		``,
		fmt.Sprintf(`{"id":"i5","name":"page_view","visitor_id":"v1","time":%q,"path":"nope"}`, at(6)), // line 6: bad path
		fmt.Sprintf(`{"id":"i6","name":"page_view","visitor_id":"v1","time":%q,"path":"/back"}`, at(120)),
		fmt.Sprintf(`{"id":"i7","name":"page_view","visitor_id":"v2","time":%q,"path":"/","colour":"red"}`, at(1)), // line 8: unknown field
		fmt.Sprintf(`{"id":"i8","name":"search","visitor_id":"v2","time":%q,"query":"tee","result_count":2}`, at(2)),
	}
	file := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, "events", "import", dbFlag, "--store", "importer", "--geoip-db", geo, file)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	for _, want := range []string{"line 3 skipped", "line 6 skipped: path must start with /", "line 8 skipped: colour is not a field", "8 lines, 4 events stored, 1 duplicates, 3 bad lines skipped, 3 new sessions"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	var s struct {
		Country, City, Device, IP string
		Events                    int
		Lat, Lon                  *float64
	}
	err = db.NewRaw(`SELECT s.country, s.city, s.device, host(s.ip) AS ip, s.events, s.latitude, s.longitude FROM storefront_sessions s
		JOIN visitors v ON v.id = s.visitor_id WHERE v.anon_id = 'v1' ORDER BY s.first_seen_at LIMIT 1`).Scan(ctx,
		&s.Country, &s.City, &s.Device, &s.IP, &s.Events, &s.Lat, &s.Lon)
	if err != nil {
		t.Fatal(err)
	}
	if s.Country != "NL" || s.City != "Amsterdam" || s.Device != "mobile" || s.IP != "203.0.113.0" || s.Events != 2 ||
		s.Lat == nil || *s.Lat != 52.3676 || s.Lon == nil || *s.Lon != 4.9041 {
		t.Fatalf("first session of v1: %+v", s)
	}

	out, err = runCmd(t, "events", "import", dbFlag, "--store", "importer", file)
	if err != nil || !strings.Contains(out, "0 events stored, 5 duplicates") {
		t.Fatalf("again: %v\n%s", err, out)
	}
	if _, err := runCmd(t, "events", "import", dbFlag, "--store", "importer"); err == nil {
		t.Fatal("an import without a file ran")
	}
	if _, err := runCmd(t, "events", "import", dbFlag, "--store", "importer", "--storefront-ip", "some", file); err == nil {
		t.Fatal("an unknown IP policy was taken")
	}
}
