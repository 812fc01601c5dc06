package resolvers

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// czTemplatePreview reads a template of the store and its bindings, and
// chooses the binding and the option set the preview shows: the binding
// bindingID names (a binding of another template, or of no template of the
// store, is a 404) and its option set; without one, the option set every
// binding of the template uses, or none when they use several or there is
// no binding. The rest of the preview is read by its fields' relations.
func czTemplatePreview(ctx context.Context, db bun.IDB, storeID, id int64, bindingID *int64) (*models.CzTemplatePreview, error) {
	t, err := models.GetCzTemplate(ctx, db, storeID, id)
	if err != nil {
		return nil, err
	}
	bindings, err := models.CzBindingsOfTemplate(ctx, db, storeID, id)
	if err != nil {
		return nil, err
	}
	p := &models.CzTemplatePreview{Template: *t, Bindings: bindings}
	if bindingID != nil {
		for i := range bindings {
			if bindings[i].ID == *bindingID {
				p.Binding = &bindings[i]
			}
		}
		if p.Binding == nil {
			return nil, apperr.NotFoundf("binding %d is not a binding of the template %d", *bindingID, id)
		}
		p.OptionSetID = &p.Binding.OptionSetID
		return p, nil
	}
	for i := range bindings {
		switch {
		case i == 0:
			p.OptionSetID = &bindings[0].OptionSetID
		case bindings[i].OptionSetID != *p.OptionSetID:
			p.OptionSetID = nil
			return p, nil
		}
	}
	return p, nil
}
