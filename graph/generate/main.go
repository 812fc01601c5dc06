// Command generate regenerates the GraphQL executor: gqlgen from
// gqlgen.yml and schema/, then the rewrites of graph/generated.go that
// take gqlgen's per-field and per-element costs out of plain reads (see
// rewrite), graph/resolver_root.go (resolverRootSource) and
// graph/field_reads.go: what each field reads of its object (readsOf). Run
// it from the module root after
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

const (
	generated      = "graph/generated.go"
	resolversDir   = "resolvers"
	fieldReadsFile = "graph/field_reads.go"
)

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
	// The root resolver's file follows the executor's ResolverRoot, which
	// gqlgen may be about to change: it goes first, so that gqlgen's check
	// that the package builds sees no stale one.
	if err := os.Remove(resolverRootFile); err != nil && !os.IsNotExist(err) {
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
	fmt.Printf("generate: %d field contexts made without a Child function\n", n[1])
	fmt.Printf("generate: %d resolver fields resolved in place\n", n[2])
	fmt.Printf("generate: %d list elements marshalled in place\n", n[3])
	closures := n[len(n)-1]
	if closures == 0 {
		return fmt.Errorf("resolver field closures: gqlgen's output no longer has them as closuresOnlyWhenDeferred expects")
	}
	for i, r := range replacements {
		if n[i+4] == 0 {
			// gqlgen's output changed (an upgrade): the rewrite must be
			// brought up to date, not silently dropped.
			return fmt.Errorf("%s: gqlgen's output no longer has %q", r.what, r.old)
		}
		fmt.Printf("generate: %d places: %s\n", n[i+4], r.what)
	}
	fmt.Printf("generate: %d resolver fields whose closure is made only when deferred\n", closures)
	if err := os.WriteFile(generated, out, 0o644); err != nil {
		return err
	}
	root, err := resolverRootSource(out)
	if err != nil {
		return err
	}
	if err := os.WriteFile(resolverRootFile, root, 0o644); err != nil {
		return err
	}
	return writeFieldReads(out)
}

// writeFieldReads analyses the rewritten executor and the resolvers (as
// gqlgen left them) into graph/field_reads.go.
func writeFieldReads(executor []byte) error {
	srcs, err := readResolvers(resolversDir)
	if err != nil {
		return err
	}
	reads, err := readsOf(executor, srcs)
	if err != nil {
		return err
	}
	src, err := reads.source()
	if err != nil {
		return err
	}
	fields, types := known(reads.objects)
	keys, _ := known(reads.answerKeys)
	fmt.Printf("generate: reads of their object known for %d fields of %d types, answered keys for %d\n", fields, types, keys)
	return os.WriteFile(fieldReadsFile, src, 0o644)
}
