package resolvers

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/internal/audit"
	"storeadmin/models"
)

// changeCheckoutPage reads the store's page id, lets change write into it
// and stores it, in one transaction: the shape of the page's updates.
func (r *mutationResolver) changeCheckoutPage(ctx context.Context, id int64, change func(*models.CheckoutPage) error) (*models.CheckoutPage, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	var p *models.CheckoutPage
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if p, err = models.GetCheckoutPage(ctx, tx, sid, id); err != nil {
			return err
		}
		if err := change(p); err != nil {
			return err
		}
		return models.UpdateCheckoutPage(ctx, tx, p)
	})
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "checkout_page", p.ID)
	return p, nil
}
