package resolvers

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/models"
)

// maxReviewReply bounds the characters of a store's reply to a review.
const maxReviewReply = 5000

// Bulk actions on reviews.
const (
	reviewApprove = "approve"
	reviewReject  = "reject"
	reviewDelete  = "delete"
)

// checkReviewBulk checks a bulk action and returns the status it moves
// reviews to ("" for delete) and its ids without repeats.
func checkReviewBulk(in graph.ReviewBulkInput) (string, []int64, error) {
	action, err := oneOf("action", in.Action, reviewApprove, reviewReject, reviewDelete)
	if err != nil {
		return "", nil, err
	}
	if err := checkBulkIDs(in.Ids); err != nil {
		return "", nil, err
	}
	status := map[string]string{reviewApprove: models.ReviewPublished, reviewReject: models.ReviewRejected}[action]
	return status, distinctIDs(in.Ids), nil
}

// refreshRatings recomputes the ratings of the products (repeats allowed)
// whose published reviews a write may have changed.
func refreshRatings(ctx context.Context, tx bun.IDB, storeID int64, products []int64) error {
	return models.RefreshProductRatings(ctx, tx, storeID, distinctIDs(products))
}

// changeReview reads the store's review id, lets change edit it, writes its
// moderation fields and, when ratings, recomputes its product's rating, all
// in one transaction.
func (r *Resolver) changeReview(ctx context.Context, id int64, ratings bool, change func(*models.Review)) (*models.Review, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	var rv *models.Review
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if rv, err = models.GetReview(ctx, tx, sid, id); err != nil {
			return err
		}
		change(rv)
		if err := models.UpdateReview(ctx, tx, rv); err != nil {
			return err
		}
		if ratings {
			return refreshRatings(ctx, tx, sid, []int64{rv.ProductID})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "review", rv.ID)
	return rv, nil
}

// reviewProduct is the product a review is about, loaded for every review
// of a list at once.
func reviewProduct(ctx context.Context, rv *models.Review) (*models.Product, error) {
	return reviewedProduct.Require(ctx, rv, "the review's product")
}
