package graph

import "github.com/vektah/gqlparser/v2/ast"

// Schema is the parsed schema, for tools that validate documents against it
// (the REST adapter's persisted operations, the access test).
func Schema() *ast.Schema {
	return NewExecutableSchema(Config{}).Schema()
}
