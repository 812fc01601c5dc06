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
	fmt.Printf("generate: %d plain fields marshalled directly, %d lists marshalled in order, %d deferred groups made only when asked\n", n[0], n[1], n[2])
	return os.WriteFile(generated, out, 0o644)
}
