package resolvers

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// lockCzMockupWithBase locks a mockup of the store and its product base,
// the base first as every writer of the base's list takes them, and
// returns the mockup as it is once held.
func lockCzMockupWithBase(ctx context.Context, tx bun.Tx, storeID, id int64) (*models.CzMockup, error) {
	m, err := models.GetCzMockup(ctx, tx, storeID, id)
	if err != nil {
		return nil, err
	}
	if _, err := models.LockCzProductBase(ctx, tx, storeID, m.ProductBaseID); err != nil {
		return nil, err
	}
	return models.LockCzMockup(ctx, tx, storeID, id)
}

// lockCzPrintAreaWithMockup locks the mockup of a print area of the store
// and returns the print area as it is once held, with the mockup.
func lockCzPrintAreaWithMockup(ctx context.Context, tx bun.Tx, storeID, id int64) (*models.CzPrintArea, *models.CzMockup, error) {
	p, err := models.GetCzPrintArea(ctx, tx, storeID, id)
	if err != nil {
		return nil, nil, err
	}
	mockup, err := models.LockCzMockup(ctx, tx, storeID, p.MockupID)
	if err != nil {
		return nil, nil, err
	}
	p, err = models.GetCzPrintArea(ctx, tx, storeID, id)
	return p, mockup, err
}
