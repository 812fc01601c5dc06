package resolvers

import (
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// checkoutZoneChange is what a checked CheckoutZoneInput asks beyond the
// row: whether it set the position, and the funnels that replace the
// zone's (nil: not sent, kept).
type checkoutZoneChange struct {
	position bool
	funnels  []models.CheckoutZoneFunnel
}

// applyCheckoutZoneInput checks in and writes its fields into z, the stored
// zone on update (a merge: what is left out stays), and checks the result
// whole: a catch-all zone lists no countries, any other at least one. On
// create the name is required. The funnels' ids are checked against the
// store by checkCheckoutZone.
func applyCheckoutZoneInput(ctx context.Context, z *models.CheckoutZone, in graph.CheckoutZoneInput, create bool) (*checkoutZoneChange, error) {
	var err error
	if in.Name != nil || create {
		if z.Name, err = text("name", deref(in.Name), 255, true); err != nil {
			return nil, err
		}
	}
	if in.CatchAll != nil {
		z.CatchAll = *in.CatchAll
	}
	nulls := sentNulls(ctx, "input")
	if in.Countries != nil || nulls["countries"] || create {
		if z.Countries, err = uniqueCountries(in.Countries, false); err != nil {
			return nil, err
		}
	}
	switch {
	case z.CatchAll && len(z.Countries) > 0:
		return nil, apperr.Invalidf("countries: the catch-all zone lists none, it takes every country no other zone lists (send countries: [] with catch_all: true)")
	case !z.CatchAll && len(z.Countries) == 0:
		return nil, apperr.Invalidf("countries must list at least one country code (ISO 3166-1 alpha-2, such as US or FR), or catch_all be true for the zone of every country no other zone lists")
	}
	c := &checkoutZoneChange{position: in.Position != nil}
	if in.Position != nil {
		if z.Position, err = position("position", *in.Position); err != nil {
			return nil, err
		}
	}
	if in.Funnels != nil || nulls["funnels"] {
		if c.funnels, err = checkZoneFunnels(in.Funnels); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// checkZoneFunnels checks a zone's funnels: weights 0 to
// models.MaxFunnelWeight, each funnel once, enabled unless sent false, at
// its place in the list unless it sends a position.
func checkZoneFunnels(in []graph.CheckoutZoneFunnelInput) ([]models.CheckoutZoneFunnel, error) {
	out := make([]models.CheckoutZoneFunnel, len(in))
	for i, f := range in {
		at := fmt.Sprintf("funnels[%d]", i)
		if f.Weight < 0 || f.Weight > models.MaxFunnelWeight {
			return nil, apperr.Invalidf("%s.weight must be between 0 and %d, not %d", at, models.MaxFunnelWeight, f.Weight)
		}
		if j := slices.IndexFunc(in[:i], func(g graph.CheckoutZoneFunnelInput) bool { return g.FunnelID == f.FunnelID }); j >= 0 {
			return nil, apperr.Invalidf("%s.funnel_id: funnel %d is listed twice (funnels[%d] is it too)", at, f.FunnelID, j)
		}
		out[i] = models.CheckoutZoneFunnel{FunnelID: f.FunnelID, Weight: f.Weight, Enabled: f.Enabled == nil || *f.Enabled, Position: int64(i)}
		if f.Position != nil {
			p, err := position(at+".position", *f.Position)
			if err != nil {
				return nil, err
			}
			out[i].Position = p
		}
	}
	return out, nil
}

// checkCheckoutZone checks, in the write's transaction, what needs the
// store's records: the funnels are the store's (another store's is as
// unknown as one that does not exist), and a catch-all zone is the store's
// only one (a second is a conflict naming the first).
func checkCheckoutZone(ctx context.Context, tx bun.IDB, z *models.CheckoutZone, c *checkoutZoneChange) error {
	if len(c.funnels) > 0 {
		ids := make([]int64, len(c.funnels))
		for i, f := range c.funnels {
			ids[i] = f.FunnelID
		}
		found, err := models.ExistingIDs(ctx, tx, "upsell_funnels", z.StoreID, ids)
		if err != nil {
			return err
		}
		for i, id := range ids {
			if !found[id] {
				return apperr.Invalidf("funnels[%d].funnel_id: the store has no upsell funnel with the id %d", i, id)
			}
		}
	}
	if !z.CatchAll {
		return nil
	}
	other, err := models.CatchAllCheckoutZone(ctx, tx, z.StoreID)
	if err == nil && other != nil && other.ID != z.ID {
		err = apperr.Conflictf("the store already has a catch-all checkout zone, %s (%d); a store has at most one", other.Name, other.ID)
	}
	return err
}

// saveCheckoutZone checks z and c against the store's records and writes
// them in tx: a new zone goes after the last unless it set its position,
// and funnels sent replace the zone's. It returns the zone as read back,
// with its region warning.
func saveCheckoutZone(ctx context.Context, tx bun.IDB, z *models.CheckoutZone, c *checkoutZoneChange) (*models.CheckoutZone, error) {
	if err := checkCheckoutZone(ctx, tx, z, c); err != nil {
		return nil, err
	}
	var err error
	if z.ID == 0 {
		if !c.position {
			if z.Position, err = models.NextCheckoutZonePosition(ctx, tx, z.StoreID); err != nil {
				return nil, err
			}
		}
		err = models.InsertCheckoutZone(ctx, tx, z)
	} else {
		err = models.UpdateCheckoutZone(ctx, tx, z)
	}
	if err != nil {
		return nil, err
	}
	if c.funnels != nil {
		if err := models.SetCheckoutZoneFunnels(ctx, tx, z.StoreID, z.ID, c.funnels); err != nil {
			return nil, err
		}
	}
	return models.GetCheckoutZone(ctx, tx, z.StoreID, z.ID)
}
