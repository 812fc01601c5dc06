package main

import (
	"os"
	"testing"
)

// TestResolverRootIsCurrent fails when graph/resolver_root.go was not
// written from the executor as it is: regenerate with go run ./graph/generate.
func TestResolverRootIsCurrent(t *testing.T) {
	src, err := os.ReadFile("../generated.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := resolverRootSource(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../resolver_root.go")
	if err != nil {
		t.Fatalf("%v: generate it with go run ./graph/generate", err)
	}
	if string(got) != string(want) {
		t.Fatal("graph/resolver_root.go is stale: regenerate with go run ./graph/generate")
	}
}
