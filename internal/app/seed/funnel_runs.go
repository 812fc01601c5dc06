package seed

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// Funnel runs behind the seeded storefront orders whose checkout's route
// picked a funnel: the checkout was paid by an authorization, its order
// entered the funnel (models.StartFunnelRun, as completion does) and the
// shopper answered through models.AnswerRun, as the storefront's calls do,
// or never did and the run timed out (models.TimeOutRun, the job's own
// path). So both upsell reports and awaiting capture show real figures.

// The ways a seeded shopper goes through a funnel, in turn.
const (
	frAcceptAll     = iota // accepts every offer: the richest order
	frDeclineAll           // declines every offer: the funnel ends, the authorization is captured
	frTimeOut              // sees the first offer and leaves: the run times out, undecided
	frAcceptDecline        // accepts the first offer, declines the rest
	frPlays
)

// funnelTurn is the play of the store's next run: the plays take turns.
func funnelTurn(ctx context.Context, tx bun.Tx, storeID int64) (int, error) {
	n, err := tx.NewSelect().Model((*models.FunnelRun)(nil)).Where("store_id = ?", storeID).Count(ctx)
	return int(n % frPlays), err
}

// funnelProvider is the provider of the authorization of a funnel
// checkout, whose run will play play: cards, which capture the raised
// total, except where a shopper accepts one offer, paid with a wallet,
// which cannot capture more than it authorized and takes a second charge.
func funnelProvider(play int) string {
	if play == frAcceptDecline {
		return models.PaymentWallet
	}
	return models.PaymentCard
}

// funnelRun starts the run of order o, placed from checkout c at at, and
// plays it one way, its answers a minute or two apart.
func funnelRun(ctx context.Context, tx bun.Tx, c *models.StorefrontCheckout, o *models.Order, at time.Time) error {
	play, err := funnelTurn(ctx, tx, c.StoreID)
	if err != nil {
		return err
	}
	run, err := models.StartFunnelRun(ctx, tx, c, o, at)
	if err != nil || run == nil {
		return err
	}
	for step := 0; run.Status == models.RunRunning; step++ {
		at = at.Add(time.Duration(1+step%2) * time.Minute)
		page, err := models.ReadRunPage(ctx, tx, run)
		if err != nil || page.Offer == nil {
			return err
		}
		a := models.RunAnswer{Verb: models.AnswerShown, Position: page.Offer.Position, Now: at}
		if _, _, err := models.AnswerRun(ctx, tx, c.StoreID, c.Token, a, models.Platform{}); err != nil {
			return err
		}
		if play == frTimeOut {
			_, err := models.TimeOutRun(ctx, tx, c.StoreID, o.ID, run.ExpiresAt)
			return err
		}
		a.Verb, a.Now = models.AnswerDecline, at.Add(20*time.Second)
		if play == frAcceptAll || play == frAcceptDecline && step == 0 {
			a.Verb = models.AnswerAccept
			if page.Step == nil {
				// the step left the funnel: the answer records it unavailable
			} else if sellable := models.SellableVariants(page.Variants, page.Step.Offer.Quantity); len(sellable) > 0 {
				a.VariantID = &sellable[0].ID
			}
		}
		if run, _, err = models.AnswerRun(ctx, tx, c.StoreID, c.Token, a, models.Platform{}); err != nil {
			return err
		}
	}
	return nil
}
