package rest

import (
	"net/http"
	"testing"

	"storeadmin/graph"
)

// TestReadOnlyViews: a write takes back the view of the GET at its path,
// a POST into a collection also that of the GET of one member, and a write
// with neither nothing; fragments are spread, at every depth.
func TestReadOnlyViews(t *testing.T) {
	ops, err := loadOperations(graph.Schema())
	if err != nil {
		t.Fatal(err)
	}
	viewAt := func(method, path string) view {
		for _, rt := range Routes {
			if rt.Method == method && rt.Path == path {
				return readOnlyView(rt, Routes, ops)
			}
		}
		t.Fatalf("no route %s %s", method, path)
		return nil
	}
	for _, w := range []struct{ method, path string }{
		{http.MethodPut, "/store/products/{id}"},
		{http.MethodPost, "/store/products"},
	} {
		v := viewAt(w.method, w.path)
		if v["id"] == nil || v["updated_at"] == nil || v["images"]["thumbhash"] == nil || v["variants"]["id"] == nil || v["variants"]["inventory_quantity"] == nil {
			t.Errorf("%s %s: the product view is not taken back: %v", w.method, w.path, v)
		}
	}
	if v := viewAt(http.MethodPost, "/store/orders/{id}/cancel"); v != nil {
		t.Errorf("a write without a GET of its resource takes back %v", v)
	}
	if v := viewAt(http.MethodGet, "/store/products/{id}"); v != nil {
		t.Errorf("a read takes back %v", v)
	}
}
