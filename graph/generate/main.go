// Command generate regenerates the GraphQL executor: gqlgen from
// gqlgen.yml and schema/, then the rewrites of graph/generated.go that
// take gqlgen's per-field and per-element costs out of plain reads (see
// rewrite). Run it from the module root after
// editing the schema:
//
//	go run ./graph/generate
package main

import (
	"fmt"
	"os"

	"github.com/99designs/gqlgen/api"
	"github.com/99designs/gqlgen/codegen/config"
)

const generated = "graph/generated.go"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := config.LoadConfigFromDefaultLocations()
	if err != nil {
		return err
	}
	if err := api.Generate(cfg); err != nil {
		return err
	}
	src, err := os.ReadFile(generated)
	if err != nil {
		return err
	}
	out, n, err := rewrite(src)
	if err != nil {
		return err
	}
	fmt.Printf("generate: %d plain fields marshalled directly\n", n[0])
	for i, r := range replacements {
		if n[i+1] == 0 {
			// gqlgen's output changed (an upgrade): the rewrite must be
			// brought up to date, not silently dropped.
			return fmt.Errorf("%s: gqlgen's output no longer has %q", r.what, r.old)
		}
		fmt.Printf("generate: %d places: %s\n", n[i+1], r.what)
	}
	return os.WriteFile(generated, out, 0o644)
}
