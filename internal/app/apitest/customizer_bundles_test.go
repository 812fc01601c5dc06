package apitest_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/customizer"
	"storeadmin/models"
)

// czbExportPath is the export route of template id.
func czbExportPath(id int64) string {
	return "/store/customizer/templates/" + strconv.FormatInt(id, 10) + "/export"
}

const czbImportPath = "/store/customizer/templates/import"

// czbImage stores a w×h PNG as an upload of the store, recorded as the
// upload flow records it, and answers its record.
func czbImage(t *testing.T, e *apitest.Env, storeID int64, name string, w, h int) models.Media {
	t.Helper()
	img, err := e.Media.PutImage(context.Background(), storeID, name, mdPNG(t, w, h))
	if err != nil {
		t.Fatal(err)
	}
	m := img.Record(storeID)
	if err := models.InsertMedia(context.Background(), e.DB, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// czbFixture inserts, with bun, a template with everything a bundle
// carries: a design with each element type (an image and a text that
// looks like a file reference among them), a base with two mockups and
// their print areas, tiers, two bound option sets with conditions,
// functions and thumbnails, and three libraries of the catalogue its
// artwork uses; plus what the bundle must leave out (an unbound option
// set, another catalogue). It answers the template's id.
func czbFixture(t *testing.T, e *apitest.Env, storeID int64) int64 {
	t.Helper()
	ctx := context.Background()
	insert := func(rows any) {
		t.Helper()
		if _, err := e.DB.NewInsert().Model(rows).Returning("id").Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	front, back := czbImage(t, e, storeID, "mug-front.png", 64, 48), czbImage(t, e, storeID, "mug-back.png", 40, 40)
	logo, thumb := czbImage(t, e, storeID, "logo.png", 16, 16), czbImage(t, e, storeID, "red.png", 4, 4)
	star, heart := czbImage(t, e, storeID, "star.png", 8, 8), czbImage(t, e, storeID, "star.png", 9, 9)

	design := &models.CzDesign{StoreID: storeID, Name: "Mug wrap", WidthPx: 2000, HeightPx: 800}
	insert(design)
	insert(&[]models.CzElement{
		{StoreID: storeID, DesignID: design.ID, ElementKey: "name", Type: "text", X: 10, Y: 20.5, W: 300, H: 80, RotationDeg: -12.5, ZIndex: 0,
			Settings: map[string]any{"text": "bundle:not-a-file", "font_family": "Georgia", "font_size": 36.0, "color": "#112233", "align": "left", "curve": 15.0}},
		{StoreID: storeID, DesignID: design.ID, ElementKey: "logo", GroupKey: "art", Type: "image", X: 400, Y: 0, W: 100, H: 100, ZIndex: 1,
			Settings: map[string]any{"src": logo.Src, "fit": "cover"}},
		{StoreID: storeID, DesignID: design.ID, ElementKey: "sticker", GroupKey: "art", Type: "artwork", X: 600, Y: 100, W: 200, H: 200, ZIndex: 2,
			Settings: map[string]any{"library_group_key": "stickers", "fit": "contain"}},
		{StoreID: storeID, DesignID: design.ID, ElementKey: "band", Type: "shape", X: 0, Y: 700, W: 2000, H: 100, ZIndex: 3,
			Settings: map[string]any{"shape": "rect", "fill": "#cccccc", "stroke": "", "stroke_width": 0.0}},
	})
	base := &models.CzProductBase{StoreID: storeID, Name: "Mug"}
	insert(base)
	mockups := []models.CzMockup{
		{StoreID: storeID, ProductBaseID: base.ID, Name: "Front", Position: 0, ImageSrc: front.Src, ImageWidth: 64, ImageHeight: 48},
		{StoreID: storeID, ProductBaseID: base.ID, Name: "Back", Position: 1, ImageSrc: back.Src, ImageWidth: 40, ImageHeight: 40},
	}
	insert(&mockups)
	insert(&[]models.CzPrintArea{
		{StoreID: storeID, MockupID: mockups[0].ID, Name: "Wrap", Position: 0, X: 4, Y: 4, W: 50, H: 30.25, RotationDeg: 5},
		{StoreID: storeID, MockupID: mockups[0].ID, Name: "Handle", Position: 1, X: 56, Y: 10, W: 6, H: 20},
		{StoreID: storeID, MockupID: mockups[1].ID, Name: "Back", Position: 0, X: 0, Y: 0, W: 40, H: 40},
	})
	tpl := &models.CzTemplate{StoreID: storeID, Name: "Personalised mug", DesignID: design.ID, ProductBaseID: base.ID, ExportFormat: "jpeg",
		PPI: 300, IncludedColors: 2, IncludedElements: 3, PricePerExtraColorCents: 150, PricePerExtraElementCents: 250}
	insert(tpl)
	insert(&[]models.CzQuantityTier{
		{StoreID: storeID, TemplateID: tpl.ID, MinQty: 5, Position: 0, PriceCents: 1000},
		{StoreID: storeID, TemplateID: tpl.ID, MinQty: 20, Position: 1, PriceCents: 800},
	})

	sets := []models.CzOptionSet{{StoreID: storeID, Name: "Mug options"}, {StoreID: storeID, Name: "Gift"}, {StoreID: storeID, Name: "Unbound"}}
	insert(&sets)
	name := &models.CzOption{StoreID: storeID, OptionSetID: sets[0].ID, Label: "Name", Type: "text", Position: 0, Required: true,
		Section: "Text", HelpText: "Up to 12 letters", Settings: map[string]any{"placeholder": "Ana"},
		Validation: models.CzTextValidation{MaxLength: 12, MaxLines: 1, Pattern: "^[A-Za-z ]*$", Mode: "letters"}, PricePerCharCents: 20,
		Conditions: []models.CustomizerCondition{}}
	insert(name)
	colour := &models.CzOption{StoreID: storeID, OptionSetID: sets[0].ID, Label: "Colour", Type: "swatch", Position: 1,
		Settings: map[string]any{"shape": "circle"}, Conditions: []models.CustomizerCondition{}}
	insert(colour)
	red := "red"
	insert(&[]models.CzOption{
		{StoreID: storeID, OptionSetID: sets[0].ID, Label: "Sticker", Type: "artwork", Position: 2, Settings: map[string]any{"group_key": "stickers"},
			Conditions: []models.CustomizerCondition{{Op: "equals", OptionID: colour.ID, Value: &red}}},
		{StoreID: storeID, OptionSetID: sets[0].ID, Label: "Gift wrap", Type: "checkbox", Position: 3, Settings: map[string]any{"label": "Wrap it"},
			Conditions: []models.CustomizerCondition{{Op: "filled", OptionID: name.ID}, {Op: "in", OptionID: colour.ID, Values: []string{"red", "blue"}}}},
	})
	gift := &models.CzOption{StoreID: storeID, OptionSetID: sets[1].ID, Label: "Card", Type: "select", Position: 0, Settings: map[string]any{},
		Conditions: []models.CustomizerCondition{}}
	insert(gift)
	nameKey, artGroup := "name", "art"
	insert(&[]models.CzOptionValue{
		{StoreID: storeID, OptionID: colour.ID, Label: "Red", Value: "red", Position: 0, PriceDeltaCents: 300, SwatchHex: "#ff0000", ThumbnailURL: thumb.Src,
			Functions: []models.CustomizerFunction{{ElementKey: &nameKey, Property: "color", Value: "#ff0000"}, {GroupKey: &artGroup, Property: "image", Value: logo.Src}}},
		{StoreID: storeID, OptionID: colour.ID, Label: "Blue", Value: "blue", Position: 1, PriceDeltaCents: -100, SwatchHex: "#0000ff",
			Functions: []models.CustomizerFunction{{GroupKey: &artGroup, Property: "visibility", Value: "hidden"}}},
		{StoreID: storeID, OptionID: gift.ID, Label: "Birthday", Value: "birthday", Position: 0, Functions: []models.CustomizerFunction{}},
	})
	insert(&[]models.CzProductBinding{
		{StoreID: storeID, ProductID: 101, TemplateID: tpl.ID, OptionSetID: sets[0].ID, DefaultSelections: map[string]any{}},
		{StoreID: storeID, ProductID: 102, TemplateID: tpl.ID, OptionSetID: sets[1].ID, DefaultSelections: map[string]any{}},
		{StoreID: storeID, ProductID: 103, TemplateID: tpl.ID, OptionSetID: sets[0].ID, DefaultSelections: map[string]any{}},
	})

	libs := []models.CzLibrary{
		{StoreID: storeID, Name: "Stickers", Kind: "artwork", GroupKey: "stickers"},
		{StoreID: storeID, Name: "Red stickers", Kind: "artwork", GroupKey: "stickers", ScopeValue: "Red"},
		{StoreID: storeID, Name: "Finishes", Kind: "finish", GroupKey: "stickers"},
		{StoreID: storeID, Name: "Unused", Kind: "artwork", GroupKey: "other"},
	}
	insert(&libs)
	insert(&[]models.CzLibraryItem{
		{StoreID: storeID, LibraryID: libs[0].ID, Position: 0, Value: map[string]any{"src": star.Src, "width": 8.0, "height": 8.0, "name": "Star"}},
		{StoreID: storeID, LibraryID: libs[0].ID, Position: 1, Value: map[string]any{"src": heart.Src, "width": 9.0, "height": 9.0}},
		{StoreID: storeID, LibraryID: libs[1].ID, Position: 0, Value: map[string]any{"src": star.Src, "width": 8.0, "height": 8.0, "name": "Red star"}},
		{StoreID: storeID, LibraryID: libs[2].ID, Position: 0, Value: map[string]any{"name": "Gold", "hex": "#ffd700"}},
		{StoreID: storeID, LibraryID: libs[3].ID, Position: 0, Value: map[string]any{"src": star.Src, "width": 8.0, "height": 8.0}},
	})
	return tpl.ID
}

// czbUnzip reads a bundle's entries by name.
func czbUnzip(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("the export is not a zip: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	return out
}

// czbZip writes a zip of the entries, in the order given (name, content).
func czbZip(t *testing.T, entries ...string) []byte {
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

// czbExport exports template id over REST and answers the zip.
func czbExport(t *testing.T, e *apitest.Env, key string, id int64) []byte {
	t.Helper()
	r := e.Do(http.MethodGet, czbExportPath(id), key, nil).Expect(t, 200)
	if ct := r.Header.Get("Content-Type"); ct != "application/zip" || !strings.Contains(r.Header.Get("Content-Disposition"), ".zip") {
		t.Fatalf("export: %s, %s", ct, r.Header.Get("Content-Disposition"))
	}
	return r.Raw
}

// czbImport imports a bundle over REST as the raw body and answers the
// result.
func czbImport(t *testing.T, e *apitest.Env, key string, bundle []byte) map[string]any {
	t.Helper()
	r := e.DoHeaders(http.MethodPost, czbImportPath, key, bundle, map[string]string{"Content-Type": "application/zip"}).Expect(t, 200)
	expectPayload(t, r, "imported")
	return objectWithKeys(t, "imported", r.Body["imported"], []string{"design_id", "elements", "libraries_created", "libraries_reused",
		"library_items_created", "option_set_ids", "options", "product_base_id", "template_id", "values"})
}

// czbImportGraphQL imports a bundle through a GraphQL multipart upload
// and answers the decoded response.
func czbImportGraphQL(t *testing.T, e *apitest.Env, key string, bundle []byte) map[string]any {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	const op = `{"query":"mutation($file: Upload!) { importCustomizerTemplate(file: $file) { design_id elements libraries_created libraries_reused library_items_created option_set_ids options product_base_id template_id values } }","variables":{"file":null}}`
	_ = mw.WriteField("operations", op)
	_ = mw.WriteField("map", `{"0":["variables.file"]}`)
	fw, _ := mw.CreateFormFile("0", "bundle.zip")
	_, _ = fw.Write(bundle)
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, e.URL+"/graphql", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// czbTree is a template's tree as two stores can compare it: every id,
// store and time left out, parents by their place, and every image by
// the sha256 of its bytes (a src is the store's own URL).
func czbTree(t *testing.T, e *apitest.Env, storeID, id int64) map[string]any {
	t.Helper()
	ctx := context.Background()
	tree, err := models.ReadCzTemplateTree(ctx, e.DB, storeID, id)
	if err != nil {
		t.Fatal(err)
	}
	libs, items, err := models.CzLibrariesByGroup(ctx, e.DB, storeID, customizer.ArtworkGroups(tree.Elements, tree.Options))
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	collect := func(s string) string { srcs = append(srcs, s); return s }
	for _, m := range tree.Mockups {
		collect(m.ImageSrc)
	}
	for _, el := range tree.Elements {
		customizer.WalkStrings(el.Settings, collect)
	}
	for _, v := range tree.Values {
		collect(v.ThumbnailURL)
		for _, f := range v.Functions {
			collect(f.Value)
		}
	}
	for _, it := range items {
		customizer.WalkStrings(it.Value, collect)
	}
	media, err := models.MediaBySrc(ctx, e.DB, storeID, srcs)
	if err != nil {
		t.Fatal(err)
	}
	image := func(s string) string {
		m, ok := media[s]
		if !ok {
			return s
		}
		data, err := e.Media.ReadImage(ctx, storeID, m.Key)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		return "image:" + hex.EncodeToString(sum[:])
	}
	// Records as JSON without their ids; parents by their index.
	place := map[int64]int{}
	plain := func(v any, drop ...string) map[string]any {
		var m map[string]any
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range append(drop, "id") {
			delete(m, k)
		}
		return customizer.WalkStrings(m, image).(map[string]any)
	}
	var out = map[string]any{
		"template": plain(tree.Template, "design_id", "product_base_id"),
		"design":   plain(tree.Design),
		"base":     plain(tree.Base),
	}
	list := func(name string, n int, row func(i int) map[string]any) {
		rows := make([]any, n)
		for i := range n {
			rows[i] = row(i)
		}
		out[name] = rows
	}
	list("tiers", len(tree.Tiers), func(i int) map[string]any { return plain(tree.Tiers[i], "template_id") })
	list("elements", len(tree.Elements), func(i int) map[string]any { return plain(tree.Elements[i], "design_id") })
	for i, m := range tree.Mockups {
		place[m.ID] = i
	}
	list("mockups", len(tree.Mockups), func(i int) map[string]any { return plain(tree.Mockups[i], "product_base_id") })
	list("print_areas", len(tree.PrintAreas), func(i int) map[string]any {
		m := plain(tree.PrintAreas[i], "mockup_id")
		m["mockup"] = place[tree.PrintAreas[i].MockupID]
		return m
	})
	for i, s := range tree.OptionSets {
		place[s.ID] = i
	}
	list("option_sets", len(tree.OptionSets), func(i int) map[string]any { return plain(tree.OptionSets[i]) })
	for i, o := range tree.Options {
		place[o.ID] = i
	}
	list("options", len(tree.Options), func(i int) map[string]any {
		o := tree.Options[i]
		m := plain(o, "option_set_id", "conditions")
		m["set"] = place[o.OptionSetID]
		conds := make([]any, len(o.Conditions))
		for j, c := range o.Conditions {
			conds[j] = fmt.Sprintf("%s option#%d %v %v", c.Op, place[c.OptionID], deref(c.Value), c.Values)
		}
		m["conditions"] = conds
		return m
	})
	list("values", len(tree.Values), func(i int) map[string]any {
		m := plain(tree.Values[i], "option_id")
		m["option"] = place[tree.Values[i].OptionID]
		return m
	})
	for i, l := range libs {
		place[l.ID] = i
	}
	list("libraries", len(libs), func(i int) map[string]any { return plain(libs[i]) })
	list("library_items", len(items), func(i int) map[string]any {
		m := plain(items[i], "library_id")
		m["library"] = place[items[i].LibraryID]
		return m
	})
	return out
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// czbCount counts the store's rows of a customizer table.
func czbCount(t *testing.T, e *apitest.Env, table string, storeID int64) int64 {
	t.Helper()
	var n int64
	if err := e.DB.QueryRowContext(context.Background(), "SELECT count(*) FROM "+table+" WHERE store_id = ?", storeID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// czbTables are every table an import writes.
var czbTables = []string{"cz_designs", "cz_elements", "cz_product_bases", "cz_mockups", "cz_print_areas", "cz_templates",
	"cz_quantity_tiers", "cz_option_sets", "cz_options", "cz_option_values", "cz_libraries", "cz_library_items", "media"}

// czbCounts counts the store's rows of every table an import writes.
func czbCounts(t *testing.T, e *apitest.Env, storeID int64) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, table := range czbTables {
		out[table] = czbCount(t, e, table, storeID)
	}
	return out
}

// TestCzBundleRoundTrip: a template exported from one store and imported
// into another is the same template field by field (ids and srcs aside:
// every image is the same bytes, re-stored as the importing store's
// upload); bundle.json carries no database id; a second import reuses
// the artwork catalogues the first created; REST and GraphQL agree; the
// export's statements do not grow with the template.
func TestCzBundleRoundTrip(t *testing.T) {
	e, s, admin := newAcme(t)
	id := czbFixture(t, e, s.ID)
	bundle := czbExport(t, e, admin, id)
	entries := czbUnzip(t, bundle)
	var manifest map[string]any
	if err := json.Unmarshal(entries["bundle.json"], &manifest); err != nil {
		t.Fatalf("bundle.json: %v\n%s", err, entries["bundle.json"])
	}
	if manifest["format"] != "storeadmin.customizer-template" || manifest["version"] != float64(1) {
		t.Fatalf("format %v version %v", manifest["format"], manifest["version"])
	}
	// No database id anywhere: no key named id or *_id, and no URL.
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "id" || strings.HasSuffix(k, "_id") || strings.HasSuffix(k, "_ids") {
					t.Errorf("bundle.json holds %s.%s", at, k)
				}
				walk(at+"."+k, e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", at, i), e)
			}
		case string:
			if strings.Contains(x, "://") {
				t.Errorf("bundle.json holds a URL at %s: %s", at, x)
			}
		}
	}
	walk("", manifest)
	// The images, each once: two photos, the logo, the thumbnail and the
	// two artworks (named alike, told apart); the unused catalogue's and
	// the unbound set's stay home.
	names := slices.Sorted(maps.Keys(entries))
	if want := []string{"bundle.json", "files/2-star.png", "files/logo.png", "files/mug-back.png", "files/mug-front.png", "files/red.png", "files/star.png"}; !slices.Equal(names, want) {
		t.Fatalf("entries %v, want %v", names, want)
	}
	sets := manifest["option_sets"].([]any)
	if len(sets) != 2 || sets[0].(map[string]any)["name"] != "Mug options" || sets[1].(map[string]any)["name"] != "Gift" {
		t.Fatalf("option sets %v", sets)
	}
	if libs := manifest["libraries"].([]any); len(libs) != 3 {
		t.Fatalf("libraries %v", libs)
	}
	name := manifest["design"].(map[string]any)["elements"].([]any)[0].(map[string]any)
	if name["settings"].(map[string]any)["text"] != "bundle:bundle:not-a-file" {
		t.Fatalf("a text that looks like a reference is escaped: %v", name)
	}

	// Into another store: the same tree, new ids, the images its own.
	o := e.Store("Other")
	okey := e.Key(o.ID, auth.RoleAdmin)
	got := czbImport(t, e, okey, bundle)
	want := map[string]any{"elements": 4.0, "libraries_created": 3.0, "libraries_reused": 0.0, "library_items_created": 4.0,
		"options": 5.0, "values": 3.0}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("imported %s = %v, want %v: %v", k, got[k], v, got)
		}
	}
	newID := wholeNumber(t, got["template_id"])
	expectAuditRecord(t, e, okey, "action=importCustomizerTemplate&limit=1", "cz_template", newID)
	// The bundle carries no bindings (they are the seller's products'):
	// bound again, in the bundle's order, the sets are the template's.
	for i, sid := range got["option_set_ids"].([]any) {
		b := &models.CzProductBinding{StoreID: o.ID, ProductID: int64(500 + i), TemplateID: newID, OptionSetID: wholeNumber(t, sid), DefaultSelections: map[string]any{}}
		if _, err := e.DB.NewInsert().Model(b).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := czbTree(t, e, s.ID, id), czbTree(t, e, o.ID, newID); !reflect.DeepEqual(a, b) {
		aj, _ := json.MarshalIndent(a, "", " ")
		bj, _ := json.MarshalIndent(b, "", " ")
		t.Fatalf("the imported template differs:\n%s\nwant\n%s", bj, aj)
	}
	var tpl models.CzTemplate
	if err := e.DB.NewSelect().Model(&tpl).Where("id = ?", newID).Scan(context.Background()); err != nil || tpl.StoreID != o.ID ||
		tpl.DesignID != wholeNumber(t, got["design_id"]) || tpl.ProductBaseID != wholeNumber(t, got["product_base_id"]) {
		t.Fatalf("the new template %+v (%v) is not the other store's with the new design and base: %v", tpl, err, got)
	}
	var setIDs []int64
	for _, v := range got["option_set_ids"].([]any) {
		setIDs = append(setIDs, wholeNumber(t, v))
	}
	for _, sid := range setIDs {
		var set models.CzOptionSet
		if err := e.DB.NewSelect().Model(&set).Where("store_id = ? AND id = ?", o.ID, sid).Scan(context.Background()); err != nil {
			t.Fatalf("option set %d: %v", sid, err)
		}
	}
	var mockups []models.CzMockup
	if err := e.DB.NewSelect().Model(&mockups).Where("store_id = ?", o.ID).Scan(context.Background()); err != nil || len(mockups) != 2 {
		t.Fatal(err, mockups)
	}
	for _, m := range mockups {
		if !e.Media.Owns(o.ID, m.ImageSrc) {
			t.Fatalf("the imported photo %s is not the other store's upload", m.ImageSrc)
		}
	}
	// Exported again, the import is the same bundle.
	if again := czbUnzip(t, czbExport(t, e, okey, newID)); !bytes.Equal(again["bundle.json"], entries["bundle.json"]) {
		t.Fatalf("the import's export differs:\n%s\nwant\n%s", again["bundle.json"], entries["bundle.json"])
	}

	// A second import into the same store: a new template, the
	// catalogues reused, not filled again; GraphQL answers as REST does.
	before := czbCounts(t, e, o.ID)
	g := czbImportGraphQL(t, e, okey, bundle)
	if g["errors"] != nil {
		t.Fatalf("GraphQL import: %v", g)
	}
	again := g["data"].(map[string]any)["importCustomizerTemplate"].(map[string]any)
	if again["libraries_created"] != 0.0 || again["libraries_reused"] != 3.0 || again["library_items_created"] != 0.0 ||
		again["elements"] != 4.0 || again["options"] != 5.0 || again["values"] != 3.0 || again["template_id"] == got["template_id"] {
		t.Fatalf("second import %v", again)
	}
	after := czbCounts(t, e, o.ID)
	if after["cz_libraries"] != before["cz_libraries"] || after["cz_library_items"] != before["cz_library_items"] ||
		after["cz_templates"] != before["cz_templates"]+1 || after["media"] != before["media"]+4 {
		t.Fatalf("second import: %v → %v", before, after)
	}

	// GraphQL's export is the same bundle, at a download URL.
	gx := e.GraphQL(admin, `query($id: Int!) { customizerTemplateExport(id: $id) { filename content_type url expires_at } }`, map[string]any{"id": id})
	d, _ := gx.Data()["customizerTemplateExport"].(map[string]any)
	if d == nil || d["content_type"] != "application/zip" {
		t.Fatalf("GraphQL export: %s", gx.Raw)
	}
	resp, err := http.Get(d["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if gentries := czbUnzip(t, data); !bytes.Equal(gentries["bundle.json"], entries["bundle.json"]) {
		t.Fatalf("GraphQL's bundle differs from REST's")
	}

	// The export reads a fixed number of statements, whatever the
	// template holds.
	count := countStatements(e)
	statements := count(func() { czbExport(t, e, admin, id) })
	var tpl0 models.CzTemplate
	if err := e.DB.NewSelect().Model(&tpl0).Where("id = ?", id).Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		el := &models.CzElement{StoreID: s.ID, DesignID: tpl0.DesignID, ElementKey: fmt.Sprintf("more-%d", i), Type: "shape", W: 1, H: 1, ZIndex: int64(10 + i),
			Settings: map[string]any{"shape": "ellipse", "fill": "#cccccc", "stroke": "", "stroke_width": 0.0}}
		if _, err := e.DB.NewInsert().Model(el).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if more := count(func() { czbExport(t, e, admin, id) }); more != statements {
		t.Fatalf("the export took %d statements, then %d with more elements", statements, more)
	}
}

// TestCzBundleBadBundles: every bundle that is not one, or holds what the
// API would refuse, is a 400 naming what is wrong, on both surfaces, and
// writes nothing: no record and no image.
func TestCzBundleBadBundles(t *testing.T) {
	e, s, admin := newAcme(t)
	good := czbExport(t, e, admin, czbFixture(t, e, s.ID))
	entries := czbUnzip(t, good)
	o := e.Store("Other")
	okey := e.Key(o.ID, auth.RoleAdmin)
	empty := czbCounts(t, e, o.ID)

	// rezip is the good bundle with bundle.json edited by edit (nil: left
	// out) and the files of extra added (a nil content: left out).
	rezip := func(edit func(m map[string]any), extra map[string][]byte) []byte {
		var list []string
		for name, data := range entries {
			if content, ok := extra[name]; ok {
				if content == nil {
					continue
				}
				data = content
			}
			if name == "bundle.json" {
				if edit == nil {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal(data, &m); err != nil {
					t.Fatal(err)
				}
				edit(m)
				data, _ = json.Marshal(m)
			}
			list = append(list, name, string(data))
		}
		for name, content := range extra {
			if _, ok := entries[name]; !ok && content != nil {
				list = append(list, name, string(content))
			}
		}
		return czbZip(t, list...)
	}
	at := func(m map[string]any, path ...any) map[string]any {
		var v any = m
		for _, p := range path {
			switch k := p.(type) {
			case string:
				v = v.(map[string]any)[k]
			case int:
				v = v.([]any)[k]
			}
		}
		return v.(map[string]any)
	}
	// A zip bomb: a bundle.json of 9 MiB of spaces deflates to kilobytes.
	bomb := czbZip(t, "bundle.json", `{"format":"storeadmin.customizer-template","version":1`+strings.Repeat(" ", 9<<20)+`}`)
	// Too many entries.
	many := []string{"bundle.json", string(entries["bundle.json"])}
	for i := range customizer.MaxBundleEntries {
		many = append(many, fmt.Sprintf("files/x%d.png", i), "x")
	}

	cases := []struct {
		name   string
		bundle []byte
		says   string
	}{
		{"not a zip", []byte("hello, not a zip"), "not a zip"},
		{"empty zip", czbZip(t), "holds no bundle.json"},
		{"no bundle.json", rezip(nil, nil), "holds no bundle.json"},
		{"not JSON", czbZip(t, "bundle.json", "{nope"), "not a JSON object"},
		{"another format", rezip(func(m map[string]any) { m["format"] = "theme" }, nil), "format must be"},
		{"another version", rezip(func(m map[string]any) { m["version"] = 2 }, nil), "version is 2"},
		{"unknown field", rezip(func(m map[string]any) { at(m, "template")["colour"] = "red" }, nil), `unknown field "colour"`},
		{"wrong type", rezip(func(m map[string]any) { at(m, "template")["ppi"] = "300" }, nil), "template.ppi must be"},
		{"missing file", rezip(func(m map[string]any) {}, map[string][]byte{"files/mug-front.png": nil}), "product_base.mockups[0].image_src names files/mug-front.png, which the bundle does not hold"},
		{"not a file reference", rezip(func(m map[string]any) { at(m, "product_base", "mockups", 0)["image_src"] = "https://example.com/a.png" }, nil), "product_base.mockups[0].image_src must be an image of the bundle"},
		{"a file that is no image", rezip(func(m map[string]any) {}, map[string][]byte{"files/mug-back.png": []byte("not a png")}), "product_base.mockups[1].image_src names files/mug-back.png: the uploaded file is not an image"},
		{"photo of another size", rezip(func(m map[string]any) { at(m, "product_base", "mockups", 1)["image_width"] = 41 }, nil), "a 40×40 image, but the mockup says 41×40"},
		{"print area outside its photo", rezip(func(m map[string]any) { at(m, "product_base", "mockups", 0, "print_areas", 0)["w"] = 61 }, nil), "product_base.mockups[0].print_areas[0].w puts the print area past the photo's right edge"},
		{"condition on a later option", rezip(func(m map[string]any) { at(m, "option_sets", 0, "options", 2, "conditions", 0)["option"] = "option-4" }, nil), `option_sets[0].options[2].conditions[0].option names "option-4", which is no earlier option`},
		{"condition on no value", rezip(func(m map[string]any) { at(m, "option_sets", 0, "options", 2, "conditions", 0)["value"] = "green" }, nil), `conditions[0].value names "green", which is no value`},
		{"function on no element", rezip(func(m map[string]any) {
			at(m, "option_sets", 0, "options", 1, "values", 0, "functions", 0)["element_key"] = "ghost"
		}, nil), `functions[0].element_key names "ghost", which is no element of the bundle's design`},
		{"duplicate element key", rezip(func(m map[string]any) { at(m, "design", "elements", 1)["element_key"] = "name" }, nil), `design.elements[1].element_key is "name" again`},
		{"ppi out of range", rezip(func(m map[string]any) { at(m, "template")["ppi"] = 10 }, nil), "template.ppi must be between 72 and 1200"},
		{"zero width", rezip(func(m map[string]any) { at(m, "design", "elements", 0)["w"] = 0 }, nil), "design.elements[0].w must be greater than 0"},
		{"bad swatch", rezip(func(m map[string]any) { at(m, "option_sets", 0, "options", 1, "values", 0)["swatch_hex"] = "red" }, nil), "swatch_hex must be #rrggbb"},
		{"duplicate tier", rezip(func(m map[string]any) { at(m, "quantity_tiers", 1)["min_qty"] = 5 }, nil), "quantity_tiers[1].min_qty is 5 again"},
		{"unknown library kind", rezip(func(m map[string]any) { at(m, "libraries", 0)["kind"] = "font" }, nil), "libraries[0].kind must be one of"},
		{"values on a text option", rezip(func(m map[string]any) {
			at(m, "option_sets", 0, "options", 0)["values"] = at(m, "option_sets", 0, "options", 1)["values"]
		}, nil), "option_sets[0].options[0].values must be empty"},
		// The parts' own checks, named at the bundle's path.
		{"an element setting the designs refuse", rezip(func(m map[string]any) { at(m, "design", "elements", 1, "settings")["fit"] = "stretch" }, nil), "design.elements[1].settings.fit"},
		{"an option setting the options refuse", rezip(func(m map[string]any) { at(m, "option_sets", 0, "options", 0, "settings")["rows"] = 3 }, nil), "option_sets[0].options[0].settings"},
		{"a library item the libraries refuse", rezip(func(m map[string]any) { delete(at(m, "libraries", 1, "items", 0, "value"), "name") }, nil), "libraries[1].items[0].value.name"},
		{"zip bomb", bomb, "larger than 8 MiB inflated"},
		{"too many entries", czbZip(t, many...), "a bundle holds at most 2001"},
	}
	for _, c := range cases {
		r := e.DoHeaders(http.MethodPost, czbImportPath, okey, c.bundle, map[string]string{"Content-Type": "application/zip"})
		if r.Status != 400 || !strings.Contains(r.Message(), c.says) {
			t.Errorf("%s: %d %s, want 400 saying %q", c.name, r.Status, r.Raw, c.says)
			continue
		}
		r.Expect(t, 400)
		if g := czbImportGraphQL(t, e, okey, c.bundle); g["errors"] == nil || !strings.Contains(fmt.Sprint(g["errors"]), c.says) {
			t.Errorf("%s on GraphQL: %v", c.name, g)
		}
	}
	if got := czbCounts(t, e, o.ID); !reflect.DeepEqual(got, empty) {
		t.Fatalf("refused imports wrote: %v", got)
	}
	// An empty body is refused before the bundle is read.
	e.DoHeaders(http.MethodPost, czbImportPath, okey, []byte{}, map[string]string{"Content-Type": "application/zip"}).Expect(t, 400)
}

// TestCzBundleAccess: the export needs customizer:read, the import
// customizer:write and the admin role; another store's template, or none,
// is a 404 on both surfaces; a mockup whose photo is no upload of the
// store cannot travel.
func TestCzBundleAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	id := czbFixture(t, e, s.ID)
	bundle := czbExport(t, e, admin, id)
	reads := []apitest.Call{{Method: http.MethodGet, Path: czbExportPath(id)}}
	writes := []apitest.Call{{Method: http.MethodPost, Path: czbImportPath, Body: bundle}}
	checkAccess(t, e, s.ID, "customizer", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "products:write")}, reads, writes)
	if n := czbCount(t, e, "cz_templates", s.ID); n != 1 {
		t.Fatalf("a refused import wrote: %d templates", n)
	}

	o := e.Store("Other")
	okey := e.Key(o.ID, auth.RoleAdmin)
	e.Do(http.MethodGet, czbExportPath(id), okey, nil).Expect(t, 404)
	e.Do(http.MethodGet, czbExportPath(id+1000), admin, nil).Expect(t, 404)
	expectGraphQLNotFound(t, e, okey, `query($id: Int!) { customizerTemplateExport(id: $id) { url } }`, map[string]any{"id": id})
	for name, key := range map[string]string{"read only": e.Key(s.ID, auth.RoleAdmin, "customizer:read"), "staff": e.Key(s.ID, auth.RoleStaff, "customizer:write")} {
		g := czbImportGraphQL(t, e, key, bundle)
		errs, _ := g["errors"].([]any)
		if len(errs) != 1 || !strings.Contains(fmt.Sprint(errs[0]), "FORBIDDEN") {
			t.Fatalf("GraphQL import with %s: %v", name, g)
		}
	}

	// A photo that is no upload of the store travels as its URL, which no
	// import accepts: a mockup's photo must be an image of the bundle.
	if _, err := e.DB.ExecContext(context.Background(), "UPDATE cz_mockups SET image_src = 'https://elsewhere.example/a.png' WHERE store_id = ? AND position = 1", s.ID); err != nil {
		t.Fatal(err)
	}
	r := e.DoHeaders(http.MethodPost, czbImportPath, okey, czbExport(t, e, admin, id), map[string]string{"Content-Type": "application/zip"}).Expect(t, 400)
	if !strings.HasPrefix(r.Message(), "product_base.mockups[1].image_src must be an image of the bundle") || r.Body["field"] != "product_base.mockups[1].image_src" {
		t.Fatalf("a photo from elsewhere: %s", r.Raw)
	}
}

// TestCzBundleConcurrentImports: two imports of one bundle at once into a
// store create its catalogues once; the other reuses them.
func TestCzBundleConcurrentImports(t *testing.T) {
	e, s, admin := newAcme(t)
	bundle := czbExport(t, e, admin, czbFixture(t, e, s.ID))
	o := e.Store("Other")
	okey := e.Key(o.ID, auth.RoleAdmin)
	results := make(chan map[string]any, 2)
	for range 2 {
		go func() {
			req, _ := http.NewRequest(http.MethodPost, e.URL+"/api/v1"+czbImportPath, bytes.NewReader(bundle))
			req.Header.Set("Authorization", "Bearer "+okey)
			req.Header.Set("Content-Type", "application/zip")
			var out map[string]any
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_ = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
			}
			results <- out
		}()
	}
	created, reused := 0.0, 0.0
	for range 2 {
		r := <-results
		imported, _ := r["imported"].(map[string]any)
		if imported == nil {
			t.Fatalf("an import failed: %v", r)
		}
		created += imported["libraries_created"].(float64)
		reused += imported["libraries_reused"].(float64)
	}
	if created != 3 || reused != 3 || czbCount(t, e, "cz_libraries", o.ID) != 3 {
		t.Fatalf("created %v, reused %v, libraries %d", created, reused, czbCount(t, e, "cz_libraries", o.ID))
	}
}
