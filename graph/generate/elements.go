package main

import (
	"bytes"
	"regexp"
)

// objectByValue matches gqlgen's marshaller of an object type's non-null
// value, which marshals a pointer to its copy of the value:
//
//	func (ec *executionContext) marshalNOrder2storeadminᚋmodelsᚐOrder(ctx context.Context, sel ast.SelectionSet, v models.Order) graphql.Marshaler {
//		return ec._Order(ctx, sel, &v)
//	}
var objectByValue = regexp.MustCompile(`(?m)^func \(ec \*executionContext\) (marshalN[^\s(]+)\(ctx context\.Context, sel ast\.SelectionSet, v [\w.]+\) graphql\.Marshaler \{\n\treturn ec\.(_\w+)\(ctx, sel, &v\)\n\}$`)

// elementsInPlace rewrites the element marshalling of lists of objects so
// that an element is marshalled where it is, as the pointer its field
// context already holds (fc.Result = &v[i]), instead of through the
// by-value marshaller, which copied every element of every list to the
// heap (a product variant is some 200 bytes; a page of products with
// their variants copied 200 of them). It returns how many calls changed.
func elementsInPlace(src []byte) ([]byte, int) {
	n := 0
	for _, m := range objectByValue.FindAllSubmatch(src, -1) {
		byValue := []byte("ec." + string(m[1]) + "(ctx, sel, v[i])")
		inPlace := []byte("ec." + string(m[2]) + "(ctx, sel, &v[i])")
		n += bytes.Count(src, byValue)
		src = bytes.ReplaceAll(src, byValue, inPlace)
	}
	return src, n
}
