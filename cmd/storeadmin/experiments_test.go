package main

import (
	"context"
	"strings"
	"testing"

	"storeadmin/internal/testkit/testdb"
)

// experiments pool create makes a running pool and its arms from a JSON
// file, the shape checked as an experiment's (a misspelt field, a kind a
// pool cannot have, splits that do not sum to 100, a bad max_share, a
// min_stores below 3, a revenue metric and a key taken are refused, naming the fault, and write nothing); pool end
// ends it, once.
func TestExperimentsPoolCreateAndEnd(t *testing.T) {
	db, url := testdb.New(t)
	dbFlag := "--database-url=" + url
	ctx := context.Background()
	if _, err := runCmd(t, "migrate", dbFlag); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	pool := func(edit string) string {
		return `{"key": "hero-colour", "name": "Hero colour", "kind": "theme", "metric": "conversion", "surface": {},
			"variants": [{"name": "Control", "payload": {}, "split_pct": 50},
				{"name": "Navy", "payload": {"settings": {"colors": {"primary": "#000080"}}}, "split_pct": 50}]` + edit + `}`
	}
	out, err := runCmd(t, "experiments", "pool", "create", dbFlag, writeFile(t, "pool.json", pool(`, "min_stores": 3`)))
	if err != nil || out != "hero-colour\trunning\t2 arms\n" {
		t.Fatalf("pool create: %q, %v", out, err)
	}
	for _, c := range []struct{ body, says string }{
		{pool(`, "min_store": 3`), `unknown field "min_store"`},
		{strings.Replace(pool(""), `"theme"`, `"price"`, 1), `kind must be one of theme, content, not "price"`},
		{strings.Replace(pool(""), `"split_pct": 50}]`, `"split_pct": 40}]`, 1), "variants split_pct must sum to 100, not 90"},
		{strings.Replace(pool(""), `"surface": {}`, `"surface": {"theme_id": 1}`, 1), "surface.theme_id is not a known key"},
		{pool(`, "max_share": 1.5`), "max_share must be above 0 and at most 1"},
		{pool(`, "min_stores": 2`), "min_stores must be 3 or more"},
		{strings.Replace(pool(""), `"conversion"`, `"revenue_per_session"`, 1), "metric must be a rate for a pool"},
		{strings.Replace(pool(""), `"hero-colour"`, `"Hero"`, 1), `key must be 2 to 63 lower-case letters`},
		{pool(""), "the pool hero-colour already exists"},
	} {
		if _, err := runCmd(t, "experiments", "pool", "create", dbFlag, writeFile(t, "bad.json", c.body)); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("pool create %s: %v, want an error saying %q", c.body, err, c.says)
		}
	}
	var rows []string
	if err := db.NewRaw(`SELECT p.key || ' ' || p.status || ' ' || p.min_stores || ' ' || count(v.*) FROM experiment_pools AS p
		JOIN experiment_pool_variants AS v ON v.pool_key = p.key GROUP BY p.key`).Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows, ", ") != "hero-colour running 3 2" {
		t.Fatalf("pools: %v", rows)
	}

	if out, err := runCmd(t, "experiments", "pool", "end", dbFlag, "hero-colour"); err != nil || out != "hero-colour\tended\t0 member experiments ended\n" {
		t.Fatalf("pool end: %q, %v", out, err)
	}
	if _, err := runCmd(t, "experiments", "pool", "end", dbFlag, "hero-colour"); err == nil || !strings.Contains(err.Error(), "the pool hero-colour is ended already") {
		t.Fatalf("ending twice: %v", err)
	}
	if _, err := runCmd(t, "experiments", "pool", "end", dbFlag, "nope"); err == nil || !strings.Contains(err.Error(), "the pool nope was not found") {
		t.Fatalf("ending an unknown pool: %v", err)
	}
}
