package resolvers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/customizer"
	"storeadmin/models"
)

// Bounds of a binding's input (README "Product customizer / Bindings").
const (
	maxCzDefaultSelections = 16 << 10
)

// czBindingOf checks the input of a binding of product productID (which
// must be the store's: a 404 otherwise) and answers the binding to store:
// its template and option set the store's (404), its scope an option value
// of the product, its defaults valid for the option set, and every
// function of the option set's values aimed at the template's design.
func czBindingOf(ctx context.Context, tx bun.IDB, sid, productID int64, in graph.CzProductBindingInput) (*models.CzProductBinding, error) {
	product, err := models.GetProduct(ctx, tx, sid, productID)
	if err != nil {
		return nil, err
	}
	b := &models.CzProductBinding{StoreID: sid, ProductID: productID, TemplateID: in.TemplateID, OptionSetID: in.OptionSetID,
		OptionName: strings.TrimSpace(deref(in.OptionName)), OptionValue: strings.TrimSpace(deref(in.OptionValue))}
	if err := czBindingScope(product, b); err != nil {
		return nil, err
	}
	if err := models.CheckCzBindingOverlap(ctx, tx, product, b); err != nil {
		return nil, err
	}
	b.LibraryScope = strings.TrimSpace(deref(in.LibraryScope))
	if err := customizer.CheckLibraryScope("library_scope", b.LibraryScope); err != nil {
		return nil, err
	}
	if err := models.CheckCzBindingTargets(ctx, tx, b); err != nil {
		return nil, err
	}
	var defaults map[string]any
	if in.DefaultSelections != nil {
		var ok bool
		if defaults, ok = in.DefaultSelections.(map[string]any); !ok {
			return nil, apperr.InvalidField("default_selections", "must be an object of answers by option id")
		}
		if err := jsonSize("default_selections", defaults, maxCzDefaultSelections); err != nil {
			return nil, err
		}
	}
	if b.DefaultSelections, err = models.NewCzLines(tx, sid).CheckBinding(ctx, b, defaults); err != nil {
		return nil, err
	}
	return b, nil
}

// czBindingScope checks the binding's scope: both option_name and
// option_value empty (every variant), or a value of one of the product's
// options.
func czBindingScope(p *models.Product, b *models.CzProductBinding) error {
	switch {
	case b.OptionName == "" && b.OptionValue == "":
		return nil
	case b.OptionName == "":
		return apperr.InvalidField("option_name", "is needed with option_value (or leave both out: every variant)")
	case b.OptionValue == "":
		return apperr.InvalidField("option_value", "is needed with option_name (or leave both out: every variant)")
	}
	i := slices.IndexFunc(p.Options, func(o models.ProductOption) bool { return o.Name == b.OptionName })
	if i < 0 {
		names := make([]string, len(p.Options))
		for j, o := range p.Options {
			names[j] = o.Name
		}
		return apperr.InvalidField("option_name", "%q is not an option of product %d (its options: %s)", b.OptionName, p.ID, strings.Join(names, ", "))
	}
	if !slices.Contains(p.Options[i].Values, b.OptionValue) {
		return apperr.InvalidField("option_value", "%q is not a value of option %q of product %d", b.OptionValue, b.OptionName, p.ID)
	}
	return nil
}

// czLineAsk is a draft line's customization as the models check it.
func czLineAsk(field string, in *graph.CzLineCustomizationInput) (*models.CzLineAsk, error) {
	sels, ok := in.Selections.(map[string]any)
	if !ok {
		return nil, apperr.InvalidField(field+".selections", "must be an object of answers by option id")
	}
	return &models.CzLineAsk{BindingID: in.BindingID, Selections: sels}, nil
}

// customizeDraftLines checks the customised lines of in (built into lines,
// in order) and prices them: the customizer's unit price, the selections
// kept in the line's properties. A customised line must be a variant's and
// may not set its own price; a variant's line without customization must
// not be of a personalised variant with a required option.
func customizeDraftLines(ctx context.Context, db bun.IDB, storeID int64, in []graph.DraftLineInput, variants map[int64]models.CatalogueVariant,
	lines []models.DraftOrderLine, field string, p models.Platform) error {
	cz := models.NewCzLines(db, storeID)
	products := make([]int64, 0, len(variants))
	for _, v := range variants {
		products = append(products, v.ProductID)
	}
	if err := cz.ProductBindings(ctx, products); err != nil {
		return err
	}
	for i, l := range in {
		at := fmt.Sprintf("%s[%d].customization", field, i)
		if l.Customization == nil {
			if l.VariantID == nil {
				continue
			}
			if err := cz.CheckUncustomized(ctx, at, variants[*l.VariantID], p); err != nil {
				return err
			}
			continue
		}
		if l.VariantID == nil {
			return apperr.InvalidField(at, "needs variant_id: only a catalogue variant's line is customised")
		}
		if l.PriceCents != nil {
			return apperr.InvalidField(fmt.Sprintf("%s[%d].price_cents", field, i), "may not be sent with customization: the customizer prices the line")
		}
		ask, err := czLineAsk(at, l.Customization)
		if err != nil {
			return err
		}
		if err := p.AllowsCustomization(at, ask); err != nil {
			return err
		}
		line, err := cz.Customize(ctx, at, variants[*l.VariantID], lines[i].Quantity, ask)
		if err != nil {
			return err
		}
		lines[i].PriceCents = line.UnitPrice(line.BaseCents)
		lines[i].LineTotalCents = lines[i].PriceCents * lines[i].Quantity
		lines[i].Properties = map[string]any{models.CzPropertyKey: line.Customization}
	}
	return nil
}
