package rest_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"storeadmin/graph"
	"storeadmin/resolvers"
	"storeadmin/rest"
)

// TestRoutesAndOperations parses and validates every persisted operation
// against the schema and checks the route table against them, as start-up
// does.
func TestRoutesAndOperations(t *testing.T) {
	exec := graph.NewExecutor(&resolvers.Resolver{}, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	if _, err := rest.New(exec, graph.Schema(), rest.Routes, nil); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, rt := range rest.Routes {
		key := rt.Method + " " + rt.Path
		if seen[key] {
			t.Errorf("route %s is listed twice", key)
		}
		seen[key] = true
		if !strings.HasPrefix(rt.Path, "/store") {
			t.Errorf("route %s: every path begins with /store", key)
		}
		if rt.Method == http.MethodGet && rt.Status != 0 {
			t.Errorf("route %s: a read answers 200", key)
		}
	}
}

// TestBrokenRouteTableFails shows that start-up refuses a route whose
// operation is missing or whose path parameter has no variable.
func TestBrokenRouteTableFails(t *testing.T) {
	exec := graph.NewExecutor(&resolvers.Resolver{}, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	broken := append([]rest.Route{}, rest.Routes...)
	broken = append(broken, rest.Route{Method: http.MethodGet, Path: "/store/nothing", Op: "NoSuchOperation"})
	if _, err := rest.New(exec, graph.Schema(), broken, nil); err == nil {
		t.Fatal("a route naming a missing operation was accepted")
	}
	broken = append([]rest.Route{}, rest.Routes...)
	broken = append(broken, rest.Route{Method: http.MethodGet, Path: "/store/{storeId}", Op: "GetStore"})
	if _, err := rest.New(exec, graph.Schema(), broken, nil); err == nil {
		t.Fatal("a path parameter without a variable was accepted")
	}
}
