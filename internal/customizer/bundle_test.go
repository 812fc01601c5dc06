package customizer

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"storeadmin/internal/base/apperr"
)

// v1Files are the files testdata/bundle-v1.json refers to.
var v1Files = []string{"files/logo.png", "files/mug-front.png", "files/red.png", "files/star.png"}

// readV1 is testdata/bundle-v1.json, a version 1 bundle as the README
// documents it.
func readV1(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/bundle-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// zipOf zips entries (name, content, …).
func zipOf(t *testing.T, entries ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(entries); i += 2 {
		w, err := zw.Create(entries[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(entries[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// v1Zip is the version 1 bundle with manifest as its bundle.json.
func v1Zip(t *testing.T, manifest []byte) []byte {
	entries := []string{BundleManifest, string(manifest)}
	for _, f := range v1Files {
		entries = append(entries, f, "png bytes")
	}
	return zipOf(t, entries...)
}

// TestBundleV1Reads: a version 1 bundle written as the README documents it
// keeps reading, whole, as this version's types: a change of the format
// that would break bundles already exported fails here (and needs version
// 2, read beside 1).
func TestBundleV1Reads(t *testing.T) {
	b, files, err := ReadBundle(v1Zip(t, readV1(t)))
	if err != nil {
		t.Fatal(err)
	}
	if b.Template.Name != "Personalised mug" || b.Template.PPI != 300 || len(b.QuantityTiers) != 2 || b.QuantityTiers[1].MinQty != 20 {
		t.Fatalf("template %+v tiers %+v", b.Template, b.QuantityTiers)
	}
	if len(b.Design.Elements) != 3 || b.Design.Elements[1].Settings["src"] != "bundle:files/logo.png" {
		t.Fatalf("design %+v", b.Design)
	}
	m := b.ProductBase.Mockups[0]
	if m.ImageSrc != "bundle:files/mug-front.png" || m.ImageWidth != 64 || m.PrintAreas[0].H != 30.25 {
		t.Fatalf("mockup %+v", m)
	}
	o := b.OptionSets[0].Options[2]
	if o.Conditions[0].Option != "option-2" || *o.Conditions[0].Value != "red" || len(o.Conditions[1].Values) != 2 {
		t.Fatalf("conditions %+v", o.Conditions)
	}
	v := b.OptionSets[0].Options[1].Values[0]
	if *v.Functions[0].ElementKey != "name" || *v.Functions[1].GroupKey != "art" || v.ThumbnailURL != "bundle:files/red.png" {
		t.Fatalf("value %+v", v)
	}
	if l := b.Libraries[1]; l.ScopeValue != "Red" || l.Kind != "finish" || len(l.Items) != 1 {
		t.Fatalf("library %+v", l)
	}
	data, err := files.Read("files/star.png")
	if err != nil || string(data) != "png bytes" {
		t.Fatalf("a file: %q %v", data, err)
	}
	if got := ArtworkGroups(nil, nil); got != nil {
		t.Fatalf("no groups: %v", got)
	}
}

// TestBundleRefs: a string of a record goes through a bundle unchanged,
// whatever it looks like; a reference names a file under files/.
func TestBundleRefs(t *testing.T) {
	for _, s := range []string{"", "Ana", "bundle:", "bundle:files/x.png", "bundle:bundle:x", "https://example.com/a.png"} {
		text, _, isFile, err := ParseRef(EscapeText(s))
		if err != nil || isFile || text != s {
			t.Errorf("%q: escaped %q reads back %q %v %v", s, EscapeText(s), text, isFile, err)
		}
	}
	if _, entry, isFile, err := ParseRef(FileRef("mug.png")); err != nil || !isFile || entry != "files/mug.png" {
		t.Fatalf("FileRef: %q %v %v", entry, isFile, err)
	}
	for _, bad := range []string{"bundle:mug.png", "bundle:files/../x.png", "bundle:files/", "bundle:files/a/b.png", "bundle:files/.hidden"} {
		if _, _, _, err := ParseRef(bad); err == nil {
			t.Errorf("%q read as a reference", bad)
		}
	}
	taken := map[string]bool{}
	for _, c := range []struct{ in, want string }{{"photo.png", "photo.png"}, {"photo.png", "2-photo.png"}, {"été à Paris.jpg", "t----Paris.jpg"}, {"", "image"}, {"../..", "2-image"}} {
		if got := EntryName(c.in, taken); got != c.want {
			t.Errorf("EntryName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestBundleRefused: each way a bundle can be wrong is a 400 that names
// what is wrong (the path in bundle.json, or the file).
func TestBundleRefused(t *testing.T) {
	edit := func(change func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(readV1(t), &m); err != nil {
			t.Fatal(err)
		}
		change(m)
		out, _ := json.Marshal(m)
		return v1Zip(t, out)
	}
	obj := func(m map[string]any, path ...any) map[string]any {
		var v any = m
		for _, p := range path {
			if k, ok := p.(string); ok {
				v = v.(map[string]any)[k]
			} else {
				v = v.([]any)[p.(int)]
			}
		}
		return v.(map[string]any)
	}
	big := zipOf(t, BundleManifest, `{"format":"`+BundleFormat+`","version":1`+strings.Repeat(" ", MaxBundleManifest)+`}`)
	cases := []struct {
		name   string
		bundle []byte
		field  string
		says   string
	}{
		{"not a zip", []byte("plain text"), "file", "not a zip file"},
		{"too large", make([]byte, MaxBundleBytes+1), "file", "larger than 32 MiB"},
		{"no manifest", zipOf(t, "files/a.png", "x"), "file", "holds no bundle.json"},
		{"twice", zipOf(t, BundleManifest, "{}", BundleManifest, "{}"), "file", "holds bundle.json twice"},
		{"inflates too far", big, "file", "larger than 8 MiB inflated"},
		{"no format", edit(func(m map[string]any) { delete(m, "format") }), "format", "this is not a template bundle"},
		{"version 2", edit(func(m map[string]any) { m["version"] = 2 }), "version", "reads version 1"},
		{"unknown field", edit(func(m map[string]any) { obj(m, "design")["depth"] = 3 }), "file", `unknown field "depth"`},
		{"wrong type", edit(func(m map[string]any) { obj(m, "design")["width_px"] = 1.5 }), "design.width_px", "must be a whole number, not number 1.5"},
		{"two values", v1Zip(t, append(readV1(t), []byte("{}")...)), "file", "not a JSON object"},
		{"empty name", edit(func(m map[string]any) { obj(m, "template")["name"] = " " }), "template.name", "must not be empty"},
		{"export format", edit(func(m map[string]any) { obj(m, "template")["export_format"] = "gif" }), "template.export_format", "must be one of png, jpeg"},
		{"negative price", edit(func(m map[string]any) { obj(m, "template")["price_per_extra_color_cents"] = -1 }), "template.price_per_extra_color_cents", "between 0 and 100000000"},
		{"tier of 0", edit(func(m map[string]any) { obj(m, "quantity_tiers", 0)["min_qty"] = 0 }), "quantity_tiers[0].min_qty", "between 1"},
		{"canvas too wide", edit(func(m map[string]any) { obj(m, "design")["width_px"] = 20001 }), "design.width_px", "between 1 and 20000"},
		{"element key", edit(func(m map[string]any) { obj(m, "design", "elements", 0)["element_key"] = "Name" }), "design.elements[0].element_key", "lower-case"},
		{"rotation", edit(func(m map[string]any) { obj(m, "design", "elements", 0)["rotation_deg"] = 360 }), "design.elements[0].rotation_deg", "between -360 and 360"},
		{"unknown reference", edit(func(m map[string]any) { obj(m, "design", "elements", 1, "settings")["src"] = "bundle:photo.png" }), "design.elements[1].settings", "no file of the bundle"},
		{"missing file", edit(func(m map[string]any) { obj(m, "libraries", 0, "items", 0, "value")["src"] = "bundle:files/gone.png" }), "libraries[0].items[0].value", "names files/gone.png, which the bundle does not hold"},
		{"text as photo", edit(func(m map[string]any) { obj(m, "product_base", "mockups", 0)["image_src"] = "mug.png" }), "product_base.mockups[0].image_src", "must be an image of the bundle"},
		{"print area off the photo", edit(func(m map[string]any) { obj(m, "product_base", "mockups", 0, "print_areas", 0)["x"] = -1 }), "product_base.mockups[0].print_areas[0].x", "must be 0 or more"},
		{"option type", edit(func(m map[string]any) { obj(m, "option_sets", 0, "options", 0)["type"] = "date" }), "option_sets[0].options[0].type", "must be one of text, textarea"},
		{"option key twice", edit(func(m map[string]any) { obj(m, "option_sets", 0, "options", 1)["key"] = "option-1" }), "option_sets[0].options[1].key", `"option-1" again`},
		{"pattern", edit(func(m map[string]any) { obj(m, "option_sets", 0, "options", 0, "validation")["pattern"] = "([a-z" }), "option_sets[0].options[0].validation.pattern", "not a regular expression"},
		{"condition on itself", edit(func(m map[string]any) { obj(m, "option_sets", 0, "options", 1, "conditions", 0)["option"] = "option-2" }), "option_sets[0].options[1].conditions[0].option", "no earlier option"},
		{"condition op", edit(func(m map[string]any) { obj(m, "option_sets", 0, "options", 1, "conditions", 0)["op"] = "like" }), "option_sets[0].options[1].conditions[0].op", "must be one of equals"},
		{"equals without value", edit(func(m map[string]any) { delete(obj(m, "option_sets", 0, "options", 2, "conditions", 0), "value") }), "option_sets[0].options[2].conditions[0]", "equals takes value"},
		{"in on no value", edit(func(m map[string]any) {
			obj(m, "option_sets", 0, "options", 2, "conditions", 1)["values"] = []any{"red", "green"}
		}), "option_sets[0].options[2].conditions[1].values[1]", `"green", which is no value of option "option-2"`},
		{"value slug twice", edit(func(m map[string]any) { obj(m, "option_sets", 0, "options", 1, "values", 1)["value"] = "red" }), "option_sets[0].options[1].values[1].value", `"red" again`},
		{"function on both", edit(func(m map[string]any) {
			obj(m, "option_sets", 0, "options", 1, "values", 0, "functions", 0)["group_key"] = "art"
		}), "option_sets[0].options[1].values[0].functions[0]", "exactly one of element_key and group_key"},
		{"function on no group", edit(func(m map[string]any) {
			obj(m, "option_sets", 0, "options", 1, "values", 1, "functions", 0)["group_key"] = "ghosts"
		}), "option_sets[0].options[1].values[1].functions[0].group_key", "no group of the bundle's design"},
		{"function property", edit(func(m map[string]any) {
			obj(m, "option_sets", 0, "options", 1, "values", 1, "functions", 0)["property"] = "size"
		}), "option_sets[0].options[1].values[1].functions[0].property", "must be one of text"},
		{"function image by URL", edit(func(m map[string]any) {
			obj(m, "option_sets", 0, "options", 1, "values", 0, "functions", 1)["value"] = "https://example.com/a.png"
		}), "option_sets[0].options[1].values[0].functions[1].value", "must be an image of the bundle"},
		{"library group", edit(func(m map[string]any) { obj(m, "libraries", 0)["group_key"] = "" }), "libraries[0].group_key", "lower-case"},
		{"item not an object", edit(func(m map[string]any) { obj(m, "libraries", 0)["items"] = []any{"star"} }), "libraries.items", "must be an object, not string"},
		{"item without value", edit(func(m map[string]any) { obj(m, "libraries", 0)["items"] = []any{map[string]any{}} }), "libraries[0].items[0].value", "must be a JSON object"},
	}
	for _, c := range cases {
		_, _, err := ReadBundle(c.bundle)
		if apperr.CodeOf(err) != apperr.Invalid || apperr.FieldOf(err) != c.field || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v (field %q), want a 400 at %q saying %q", c.name, err, apperr.FieldOf(err), c.field, c.says)
		}
	}
}

// TestBundleInflatedBudget: the entries read together stay within
// MaxBundleInflated, whatever each declares.
func TestBundleInflatedBudget(t *testing.T) {
	big := strings.Repeat("x", MaxBundleFileBytes)
	entries := []string{BundleManifest, string(readV1(t))}
	var names []string
	for i := range MaxBundleInflated/MaxBundleFileBytes + 1 {
		name := "files/f" + string(rune('a'+i)) + ".png"
		names = append(names, name)
		entries = append(entries, name, big)
	}
	for _, f := range v1Files {
		entries = append(entries, f, "png bytes")
	}
	_, files, err := ReadBundle(zipOf(t, entries...))
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		_, err := files.Read(name)
		if i < len(names)-1 && err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		if i == len(names)-1 && (err == nil || !strings.Contains(err.Error(), "256 MiB in all")) {
			t.Fatalf("past the budget: %v", err)
		}
	}
}
