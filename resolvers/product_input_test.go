package resolvers

import (
	"reflect"
	"strings"
	"testing"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

func ptr[T any](v T) *T { return &v }

// wantInvalid fails unless err is a BAD_USER_INPUT error saying says; an
// empty says wants no error.
func wantInvalid(t *testing.T, what string, err error, says string) {
	t.Helper()
	if says == "" {
		if err != nil {
			t.Errorf("%s: %v, want no error", what, err)
		}
		return
	}
	if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), says) {
		t.Errorf("%s: %v, want an invalid-input error saying %q", what, err, says)
	}
}

// existing is a saved product with options Size and Color.
var existing = &models.Product{ID: 9, Options: []models.ProductOption{{Name: "Size"}, {Name: "Color"}}}

func TestOptionNamesOf(t *testing.T) {
	long := strings.Repeat("x", maxTitle+1)
	cases := []struct {
		name string
		cur  *models.Product
		in   graph.ProductInput
		want []string
		says string
	}{
		{name: "kept", cur: existing, in: graph.ProductInput{}, want: []string{"Size", "Color"}},
		{name: "none on a new product", cur: &models.Product{}, want: []string{}},
		{name: "sent, trimmed", cur: &models.Product{}, in: graph.ProductInput{Options: []graph.ProductOptionInput{{Name: " Size "}, {Name: "Fit"}}},
			want: []string{"Size", "Fit"}},
		{name: "sent empty", cur: existing, in: graph.ProductInput{Options: []graph.ProductOptionInput{}, Variants: []graph.ProductVariantInput{}}, want: []string{}},
		{name: "four", cur: &models.Product{}, in: graph.ProductInput{Options: make([]graph.ProductOptionInput, 4)}, says: "at most 3 options"},
		{name: "blank name", cur: &models.Product{}, in: graph.ProductInput{Options: []graph.ProductOptionInput{{Name: "Size"}, {Name: " "}}},
			says: "options[1].name must not be empty"},
		{name: "long name", cur: &models.Product{}, in: graph.ProductInput{Options: []graph.ProductOptionInput{{Name: long}}},
			says: "options[0].name must be at most 255 characters"},
		{name: "repeated ignoring case", cur: &models.Product{}, in: graph.ProductInput{Options: []graph.ProductOptionInput{{Name: "Size"}, {Name: "size"}}},
			says: `options[1].name repeats "size"`},
		{name: "changed without variants on a saved product", cur: existing, in: graph.ProductInput{Options: []graph.ProductOptionInput{{Name: "Size"}}},
			says: "send variants with options"},
		{name: "changed with variants on a saved product", cur: existing,
			in: graph.ProductInput{Options: []graph.ProductOptionInput{{Name: "Fit"}}, Variants: []graph.ProductVariantInput{{}}}, want: []string{"Fit"}},
	}
	for _, c := range cases {
		got, err := optionNamesOf(c.cur, c.in)
		wantInvalid(t, c.name, err, c.says)
		if c.says == "" && !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestVariantInputs(t *testing.T) {
	sent := []graph.ProductVariantInput{{PriceCents: 1}, {PriceCents: 2}}
	if got, settle := variantInputs(existing, graph.ProductInput{Variants: sent}); !settle || !reflect.DeepEqual(got, sent) {
		t.Errorf("sent: %v %v", got, settle)
	}
	if got, settle := variantInputs(existing, graph.ProductInput{Variants: []graph.ProductVariantInput{}}); !settle || len(got) != 0 {
		t.Errorf("sent none: %v %v, want to settle zero (and be refused)", got, settle)
	}
	if got, settle := variantInputs(&models.Product{}, graph.ProductInput{}); !settle || !reflect.DeepEqual(got, []graph.ProductVariantInput{{}}) {
		t.Errorf("new product: %v %v, want one default variant", got, settle)
	}
	if got, settle := variantInputs(existing, graph.ProductInput{}); settle || got != nil {
		t.Errorf("saved product, none sent: %v %v, want its variants kept", got, settle)
	}
}

func TestOnlyDefaultOption(t *testing.T) {
	for _, c := range []struct {
		names []string
		sent  []graph.ProductOptionInput
		want  bool
	}{
		{nil, nil, true},
		{[]string{}, []graph.ProductOptionInput{}, true},
		{[]string{"Title"}, nil, true},
		{[]string{"Title"}, []graph.ProductOptionInput{{Name: "Title"}}, false}, // named by the client: a real option
		{[]string{"Size"}, nil, false},
		{[]string{"Title", "Size"}, nil, false},
	} {
		if got := onlyDefaultOption(c.names, c.sent); got != c.want {
			t.Errorf("onlyDefaultOption(%q, %v) = %v, want %v", c.names, c.sent, got, c.want)
		}
	}
}

func TestCheckVariantCount(t *testing.T) {
	for _, c := range []struct {
		n           int
		defaultOnly bool
		says        string
	}{
		{0, false, "at least one variant"},
		{0, true, "at least one variant"},
		{1, true, ""},
		{2, true, "name the options (such as Size or Color) that tell 2 variants apart"},
		{2, false, ""},
		{models.MaxVariants, false, ""},
		{models.MaxVariants + 1, false, "at most 100 variants"},
		{models.MaxVariants + 1, true, "at most 100 variants"},
	} {
		wantInvalid(t, "count", checkVariantCount(c.n, c.defaultOnly), c.says)
	}
}

func TestVariantCheckerBase(t *testing.T) {
	saved := models.ProductVariant{ID: 4, SKU: "HAT", InventoryPolicy: models.InventoryContinue}
	c := newVariantChecker([]string{"Size"}, false, []models.ProductVariant{saved}, nil)
	v, err := c.base("variants[0]", graph.ProductVariantInput{})
	want := models.ProductVariant{InventoryPolicy: models.InventoryDeny, TrackInventory: true, Taxable: true, RequiresShipping: true}
	if err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("new: %+v %v, want the defaults", v, err)
	}
	if v, err = c.base("variants[0]", graph.ProductVariantInput{ID: ptr(int64(4))}); err != nil || !reflect.DeepEqual(v, saved) {
		t.Errorf("saved: %+v %v", v, err)
	}
	_, err = c.base("variants[1]", graph.ProductVariantInput{ID: ptr(int64(5))})
	wantInvalid(t, "another product's variant", err, "variants[1].id 5 is not a variant of this product")
}

func TestVariantCheckerSetOptionValues(t *testing.T) {
	two := []string{"Size", "Color"}
	cases := []struct {
		name        string
		names       []string
		defaultOnly bool
		have        models.ProductVariant
		in          graph.ProductVariantInput
		want        [3]string
		says        string
	}{
		{name: "sent, trimmed", names: two, in: graph.ProductVariantInput{Option1: ptr(" M "), Option2: ptr("Red")}, want: [3]string{"M", "Red", ""}},
		{name: "kept when not sent", names: two, have: models.ProductVariant{Option1: "S", Option2: "Blue"},
			in: graph.ProductVariantInput{ID: ptr(int64(1)), Option2: ptr("Red")}, want: [3]string{"S", "Red", ""}},
		{name: "default title", names: []string{"Title"}, defaultOnly: true, in: graph.ProductVariantInput{Option1: ptr("ignored")},
			want: [3]string{"Default Title", "", ""}},
		{name: "a saved variant loses values of options gone", names: []string{"Size"}, have: models.ProductVariant{Option1: "S", Option2: "Blue"},
			in: graph.ProductVariantInput{ID: ptr(int64(1))}, want: [3]string{"S", "", ""}},
		{name: "a saved variant may still send them", names: []string{"Size"}, have: models.ProductVariant{Option1: "S"},
			in: graph.ProductVariantInput{ID: ptr(int64(1)), Option3: ptr("x")}, want: [3]string{"S", "", ""}},
		{name: "a new variant may not", names: []string{"Size"}, in: graph.ProductVariantInput{Option1: ptr("S"), Option2: ptr("Red")},
			says: "variants[0].option2 has a value, but the product has 1 option(s)"},
		{name: "missing", names: two, in: graph.ProductVariantInput{Option1: ptr("S")}, says: "variants[0].option2 (Color) must not be empty"},
		{name: "blank", names: two, in: graph.ProductVariantInput{Option1: ptr(" "), Option2: ptr("Red")}, says: "variants[0].option1 (Size) must not be empty"},
		{name: "too long", names: two, in: graph.ProductVariantInput{Option1: ptr(strings.Repeat("é", maxTitle+1)), Option2: ptr("Red")},
			says: "variants[0].option1 must be at most 255 characters"},
	}
	for _, c := range cases {
		ch := newVariantChecker(c.names, c.defaultOnly, nil, nil)
		v := c.have
		err := ch.setOptionValues("variants[0]", &v, c.in)
		wantInvalid(t, c.name, err, c.says)
		if got := [3]string{v.Option1, v.Option2, v.Option3}; c.says == "" && got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}

	// values gathers each option's values once, ignoring case, in first use
	ch := newVariantChecker(two, false, nil, nil)
	for _, in := range []graph.ProductVariantInput{
		{Option1: ptr("S"), Option2: ptr("Red")}, {Option1: ptr("M"), Option2: ptr("red")}, {Option1: ptr("s"), Option2: ptr("Blue")},
	} {
		var v models.ProductVariant
		if err := ch.setOptionValues("v", &v, in); err != nil {
			t.Fatal(err)
		}
	}
	if want := [][]string{{"S", "M"}, {"Red", "Blue"}}; !reflect.DeepEqual(ch.values, want) {
		t.Errorf("values %q, want %q", ch.values, want)
	}
}

func TestVariantCheckerClaimCombination(t *testing.T) {
	c := newVariantChecker([]string{"Size", "Color"}, false, nil, nil)
	wantInvalid(t, "first", c.claimCombination("variants[0]", 0, models.ProductVariant{Option1: "S", Option2: "Red"}), "")
	wantInvalid(t, "other", c.claimCombination("variants[1]", 1, models.ProductVariant{Option1: "S", Option2: "Blue"}), "")
	wantInvalid(t, "same ignoring case", c.claimCombination("variants[2]", 2, models.ProductVariant{Option1: "s", Option2: "BLUE"}),
		"variants[2] has the same option values as variants[1]")
	// the separator keeps "a"+"bc" apart from "ab"+"c"
	wantInvalid(t, "shifted", c.claimCombination("variants[3]", 3, models.ProductVariant{Option1: "SR", Option2: "ed"}), "")
}

func TestSetVariantPrices(t *testing.T) {
	var v models.ProductVariant
	err := setVariantPrices("variants[0]", &v, graph.ProductVariantInput{PriceCents: 1500, CompareAtPriceCents: ptr(int64(2000)), CostCents: ptr(int64(0))})
	if err != nil || v.PriceCents != 1500 || *v.CompareAtPriceCents != 2000 || *v.CostCents != 0 {
		t.Errorf("prices: %+v %v", v, err)
	}
	kept := models.ProductVariant{CompareAtPriceCents: ptr(int64(900))}
	if err := setVariantPrices("variants[0]", &kept, graph.ProductVariantInput{PriceCents: 10}); err != nil || *kept.CompareAtPriceCents != 900 || kept.CostCents != nil {
		t.Errorf("not sent: %+v %v, want kept", kept, err)
	}
	for in, says := range map[graph.ProductVariantInput]string{
		{PriceCents: -1}:                      "variants[0].price_cents must not be negative",
		{CompareAtPriceCents: ptr(int64(-1))}: "variants[0].compare_at_price_cents must not be negative",
		{CostCents: ptr(int64(-1))}:           "variants[0].cost_cents must not be negative",
	} {
		wantInvalid(t, says, setVariantPrices("variants[0]", &models.ProductVariant{}, in), says)
	}
}

func TestSetVariantStock(t *testing.T) {
	v := models.ProductVariant{InventoryPolicy: models.InventoryDeny, WeightGrams: 5, InventoryQuantity: 3}
	if err := setVariantStock("variants[0]", &v, graph.ProductVariantInput{}); err != nil || v.WeightGrams != 5 || v.InventoryQuantity != 3 || v.InventoryPolicy != models.InventoryDeny {
		t.Errorf("not sent: %+v %v, want kept", v, err)
	}
	err := setVariantStock("variants[0]", &v, graph.ProductVariantInput{WeightGrams: ptr(int64(0)), InventoryQuantity: ptr(int64(-2)), InventoryPolicy: ptr("continue")})
	if err != nil || v.WeightGrams != 0 || v.InventoryQuantity != -2 || v.InventoryPolicy != models.InventoryContinue {
		t.Errorf("sent: %+v %v (a negative stock is an oversell, allowed)", v, err)
	}
	wantInvalid(t, "weight", setVariantStock("variants[0]", &v, graph.ProductVariantInput{WeightGrams: ptr(int64(-1))}),
		"variants[0].weight_grams must not be negative")
	wantInvalid(t, "policy", setVariantStock("variants[0]", &v, graph.ProductVariantInput{InventoryPolicy: ptr("DENY")}),
		`variants[0].inventory_policy must be one of deny, continue, not "DENY"`)
}

func TestVariantCheckerSetSKU(t *testing.T) {
	c := newVariantChecker(nil, false, nil, nil)
	v := models.ProductVariant{}
	if err := c.setSKU("variants[0]", 0, &v, graph.ProductVariantInput{Sku: ptr(" HAT-1 ")}); err != nil || v.SKU != "HAT-1" {
		t.Errorf("sent: %q %v", v.SKU, err)
	}
	kept := models.ProductVariant{SKU: "HAT-2"}
	if err := c.setSKU("variants[1]", 1, &kept, graph.ProductVariantInput{}); err != nil || kept.SKU != "HAT-2" {
		t.Errorf("kept: %q %v", kept.SKU, err)
	}
	// no SKU is not a repeat
	for i := 2; i < 4; i++ {
		wantInvalid(t, "none", c.setSKU("variants[2]", i, &models.ProductVariant{}, graph.ProductVariantInput{Sku: ptr(" ")}), "")
	}
	wantInvalid(t, "repeat of a sent SKU", c.setSKU("variants[4]", 4, &models.ProductVariant{}, graph.ProductVariantInput{Sku: ptr("hat-1")}),
		`variants[4].sku "hat-1" repeats the SKU of variants[0]`)
	wantInvalid(t, "repeat of a kept SKU", c.setSKU("variants[5]", 5, &models.ProductVariant{SKU: "hat-2"}, graph.ProductVariantInput{}),
		`variants[5].sku "hat-2" repeats the SKU of variants[1]`)
	wantInvalid(t, "too long", c.setSKU("variants[6]", 6, &models.ProductVariant{}, graph.ProductVariantInput{Sku: ptr(strings.Repeat("x", maxTitle+1))}),
		"variants[6].sku must be at most 255 characters")
}

func TestSetVariantBarcodeAndFlags(t *testing.T) {
	v := models.ProductVariant{Barcode: "old", TrackInventory: true, Taxable: true, RequiresShipping: true}
	if err := setVariantBarcode("variants[0]", &v, graph.ProductVariantInput{}); err != nil || v.Barcode != "old" {
		t.Errorf("barcode kept: %q %v", v.Barcode, err)
	}
	if err := setVariantBarcode("variants[0]", &v, graph.ProductVariantInput{Barcode: ptr(" 4006381333931 ")}); err != nil || v.Barcode != "4006381333931" {
		t.Errorf("barcode sent: %q %v", v.Barcode, err)
	}
	wantInvalid(t, "barcode too long", setVariantBarcode("variants[0]", &v, graph.ProductVariantInput{Barcode: ptr(strings.Repeat("1", maxTitle+1))}),
		"variants[0].barcode must be at most 255 characters")

	setVariantFlags(&v, graph.ProductVariantInput{Taxable: ptr(false)})
	if !v.TrackInventory || v.Taxable || !v.RequiresShipping {
		t.Errorf("flags: %+v, want only taxable changed", v)
	}
	setVariantFlags(&v, graph.ProductVariantInput{TrackInventory: ptr(false), Taxable: ptr(true), RequiresShipping: ptr(false)})
	if v.TrackInventory || !v.Taxable || v.RequiresShipping {
		t.Errorf("flags: %+v, want each as sent", v)
	}
}

func TestVariantCheckerSetImage(t *testing.T) {
	c := newVariantChecker(nil, false, nil, []models.ProductImage{{Src: "https://cdn.example.com/a.png"}})
	imageID := ptr(int64(7))
	cases := []struct {
		name    string
		in      *string
		wantSrc string
		wantID  *int64
		says    string
	}{
		{name: "left out keeps the image", in: nil, wantID: imageID},
		{name: "empty removes it", in: ptr(" "), wantID: nil},
		{name: "one of the images", in: ptr(" https://cdn.example.com/a.png "), wantSrc: "https://cdn.example.com/a.png"},
		{name: "another src", in: ptr("https://cdn.example.com/b.png"), says: "variants[0].image_src must be the src of one of the product's images"},
	}
	for _, c2 := range cases {
		v := models.ProductVariant{ImageID: imageID, ImageSrc: "stale"}
		err := c.setImage("variants[0]", &v, graph.ProductVariantInput{ImageSrc: c2.in})
		wantInvalid(t, c2.name, err, c2.says)
		if c2.says == "" && (v.ImageSrc != c2.wantSrc || v.ImageID != c2.wantID) {
			t.Errorf("%s: src %q id %v, want %q %v", c2.name, v.ImageSrc, v.ImageID, c2.wantSrc, c2.wantID)
		}
	}
}

// TestCheckVariants runs the pieces together: the draft gets the settled
// variants and options, or nothing changes.
func TestCheckVariants(t *testing.T) {
	t.Run("a new product without options gets one default variant", func(t *testing.T) {
		d := &productDraft{p: &models.Product{}}
		if err := checkVariants(d, &models.Product{}, nil, nil, graph.ProductInput{}); err != nil {
			t.Fatal(err)
		}
		want := []models.ProductVariant{{Option1: "Default Title", Title: "Default Title", InventoryPolicy: models.InventoryDeny, TrackInventory: true, Taxable: true, RequiresShipping: true}}
		if !reflect.DeepEqual(d.variants, want) || !reflect.DeepEqual(d.p.Options, []models.ProductOption{{Name: "Title", Position: 1, Values: []string{"Default Title"}}}) {
			t.Errorf("variants %+v options %+v", d.variants, d.p.Options)
		}
	})
	t.Run("options ordered as sent, then as used", func(t *testing.T) {
		d := &productDraft{p: &models.Product{}}
		in := graph.ProductInput{
			Options: []graph.ProductOptionInput{{Name: "Size", Values: []string{"L", "XS", "M"}}, {Name: "Color"}},
			Variants: []graph.ProductVariantInput{
				{Option1: ptr("M"), Option2: ptr("Red"), Sku: ptr("T-M-R")},
				{Option1: ptr("L"), Option2: ptr("Blue"), PriceCents: 100},
				{Option1: ptr("S"), Option2: ptr("Red")},
			},
		}
		if err := checkVariants(d, &models.Product{}, nil, nil, in); err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, v := range d.variants {
			titles = append(titles, v.Title)
		}
		if !reflect.DeepEqual(titles, []string{"M / Red", "L / Blue", "S / Red"}) {
			t.Errorf("titles %q", titles)
		}
		want := []models.ProductOption{{Name: "Size", Position: 1, Values: []string{"L", "M", "S"}}, {Name: "Color", Position: 2, Values: []string{"Red", "Blue"}}}
		if !reflect.DeepEqual(d.p.Options, want) {
			t.Errorf("options %+v, want %+v", d.p.Options, want)
		}
	})
	t.Run("a saved product keeps its variants when none are sent", func(t *testing.T) {
		d := &productDraft{p: &models.Product{Options: existing.Options}}
		if err := checkVariants(d, existing, nil, nil, graph.ProductInput{}); err != nil || d.variants != nil || !reflect.DeepEqual(d.p.Options, existing.Options) {
			t.Errorf("%v: variants %+v options %+v", err, d.variants, d.p.Options)
		}
	})
	t.Run("the first error wins and nothing is set", func(t *testing.T) {
		d := &productDraft{p: &models.Product{}}
		in := graph.ProductInput{
			Options:  []graph.ProductOptionInput{{Name: "Size"}},
			Variants: []graph.ProductVariantInput{{Option1: ptr("M"), Sku: ptr("A")}, {Option1: ptr("m"), Sku: ptr("a"), PriceCents: -1}},
		}
		wantInvalid(t, "duplicate", checkVariants(d, &models.Product{}, nil, nil, in), "variants[1] has the same option values as variants[0]")
		if d.variants != nil || d.p.Options != nil {
			t.Errorf("variants %+v options %+v set on error", d.variants, d.p.Options)
		}
	})
	t.Run("two variants without options", func(t *testing.T) {
		d := &productDraft{p: &models.Product{}}
		wantInvalid(t, "two defaults", checkVariants(d, &models.Product{}, nil, nil, graph.ProductInput{Variants: make([]graph.ProductVariantInput, 2)}),
			"that tell 2 variants apart")
	})
}
