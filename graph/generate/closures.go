package main

import "bytes"

// A resolver field's closure, its @defer branch (which hands the closure
// to the deferred field set) and the call that resolves it in place, in an
// object's marshaller after the replacements:
//
//	innerFunc := func(ctx context.Context, fs *graphql.FieldSet) (res graphql.Marshaler) {
//		...
//	}
//
//	if field.IsDeferred() {
//		...
//		continue
//	}
//
//	out.Values[i] = innerFunc(ctx, out)
const (
	closureStart  = "\t\t\tinnerFunc := "
	closureLit    = "func(ctx context.Context, fs *graphql.FieldSet) (res graphql.Marshaler) {\n"
	closureEnd    = "\n\t\t\t}\n"
	deferredStart = "\n\t\t\tif field.IsDeferred() {\n"
	deferredEnd   = "\n\t\t\t\tcontinue\n\t\t\t}\n"
	inPlaceCall   = "\n\t\t\tout.Values[i] = innerFunc(ctx, out)\n"
)

// deferredCapture is the deferred branch's closure over the object's
// deferred field set.
const deferredCapture = "deferredFieldSet.Concurrently(fieldIndex, func(ctx context.Context) graphql.Marshaler {\n\t\t\t\t\treturn innerFunc(ctx, deferredFieldSet)"

// closuresOnlyWhenDeferred makes a resolver field's closure only in its
// @defer branch and resolves the field in place by calling the same
// function literal where it stands. The closure escaped through the
// deferred branch, so every field of every object allocated it, and the
// object's deferredFieldSet variable with it (captured by the deferred
// closure), though fields are almost never deferred: three allocations an
// object with two resolver fields, a fifth of a product page's. The
// deferred closure now captures a copy of the field set made in its
// branch. It returns how many fields changed.
func closuresOnlyWhenDeferred(src []byte) ([]byte, int) {
	var out bytes.Buffer
	n := 0
	for {
		at := bytes.Index(src, []byte(closureStart+closureLit))
		if at < 0 {
			out.Write(src)
			return out.Bytes(), n
		}
		rest := src[at+len(closureStart):]
		end := bytes.Index(rest, []byte(closureEnd))
		lit := rest[:end+len(closureEnd)-1] // through the closing brace
		after := rest[end+len(closureEnd):]
		dEnd := bytes.Index(after, []byte(deferredEnd))
		if !bytes.HasPrefix(after, []byte(deferredStart)) || dEnd < 0 || !bytes.HasPrefix(after[dEnd+len(deferredEnd):], []byte(inPlaceCall)) {
			// Another shape (a root field): left as it is.
			out.Write(src[:at+len(closureStart)])
			src = src[at+len(closureStart):]
			continue
		}
		deferred := after[len(deferredStart) : dEnd+len(deferredEnd)]
		out.Write(src[:at])
		out.WriteString("\t\t\tif field.IsDeferred() {\n\t\t\t\tinnerFunc := ")
		out.Write(lit)
		out.WriteString("\n")
		out.Write(bytes.Replace(deferred, []byte(deferredCapture), []byte("set := deferredFieldSet\n\t\t\t\t"+
			"deferredFieldSet.Concurrently(fieldIndex, func(ctx context.Context) graphql.Marshaler {\n\t\t\t\t\treturn innerFunc(ctx, set)"), 1))
		out.WriteString("\n\t\t\tout.Values[i] = ")
		out.Write(lit)
		out.WriteString("(ctx, out)\n")
		src = after[dEnd+len(deferredEnd)+len(inPlaceCall):]
		n++
	}
}
