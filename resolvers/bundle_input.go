package resolvers

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/loaders"
	"storeadmin/models"
)

// maxBundleTierQuantity bounds a tier's quantity: well above any real
// volume offer, well inside the column's integer.
const maxBundleTierQuantity = 10000

// bundleChange is a checked BundleInput: the bundle row with the sent
// fields applied, and the lists that replace the stored ones (nil: left
// out, keep what is stored).
type bundleChange struct {
	tiers         []models.BundleOfferTier
	productIDs    []int64
	collectionIDs []int64
}

// newBundle is a bundle of the store with the defaults of a create.
func newBundle(storeID int64) *models.BundleOffer {
	return &models.BundleOffer{StoreID: storeID, Enabled: true, AppliesTo: models.BundleAll, VariantSelectors: true}
}

// applyBundleInput checks in and writes its fields into b. On create the
// title and the tiers are required.
func applyBundleInput(b *models.BundleOffer, in graph.BundleInput, create bool) (*bundleChange, error) {
	var err error
	if in.Title != nil || create {
		title := ""
		if in.Title != nil {
			title = *in.Title
		}
		if b.Title, err = text("title", title, 255, true); err != nil {
			return nil, err
		}
	}
	if in.AppliesTo != nil {
		if b.AppliesTo, err = oneOf("applies_to", *in.AppliesTo, models.BundleAll, models.BundleProducts, models.BundleCollections); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		in  *bool
		out *bool
	}{
		{in.Enabled, &b.Enabled},
		{in.IncludePlainItems, &b.IncludePlainItems},
		{in.VariantSelectors, &b.VariantSelectors},
		{in.VariantSelectorsSingle, &b.VariantSelectorsSingle},
	} {
		if f.in != nil {
			*f.out = *f.in
		}
	}
	c := &bundleChange{productIDs: distinctIDs(in.ProductIds), collectionIDs: distinctIDs(in.CollectionIds)}
	if in.Tiers != nil || create {
		if c.tiers, err = checkBundleTiers(in.Tiers); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// checkBundleTiers checks the tiers of a bundle and returns them by
// quantity, smallest first.
func checkBundleTiers(in []graph.BundleTierInput) ([]models.BundleOfferTier, error) {
	if len(in) < 1 || len(in) > models.MaxBundleTiers {
		return nil, apperr.Invalidf("tiers must hold 1 to %d tiers, not %d", models.MaxBundleTiers, len(in))
	}
	out := make([]models.BundleOfferTier, 0, len(in))
	seen := map[int64]bool{}
	preselected := 0
	for i, t := range in {
		field := func(name string) string { return fmt.Sprintf("tiers[%d].%s", i, name) }
		if t.Quantity < 1 || t.Quantity > maxBundleTierQuantity {
			return nil, apperr.Invalidf("%s must be between 1 and %d", field("quantity"), maxBundleTierQuantity)
		}
		if seen[t.Quantity] {
			return nil, apperr.Invalidf("%s: two tiers have the quantity %d; quantities must be distinct", field("quantity"), t.Quantity)
		}
		seen[t.Quantity] = true
		tier := models.BundleOfferTier{Quantity: t.Quantity}
		if t.DiscountBps != nil {
			if *t.DiscountBps < 0 || *t.DiscountBps > 10000 {
				return nil, apperr.Invalidf("%s must be between 0 and 10000 (basis points: 1000 = 10%%)", field("discount_bps"))
			}
			tier.DiscountBps = *t.DiscountBps
		}
		if t.FreeShipping != nil {
			tier.FreeShipping = *t.FreeShipping
		}
		if t.Preselected != nil && *t.Preselected {
			tier.Preselected = true
			if preselected++; preselected > 1 {
				return nil, apperr.Invalidf("%s: at most one tier may be preselected", field("preselected"))
			}
		}
		for _, s := range []struct {
			name string
			in   *string
			out  *string
		}{
			{"label", t.Label, &tier.Label},
			{"title", t.Title, &tier.Title},
			{"caption", t.Caption, &tier.Caption},
			{"benefit_label", t.BenefitLabel, &tier.BenefitLabel},
		} {
			if s.in == nil {
				continue
			}
			v, err := text(field(s.name), *s.in, 255, false)
			if err != nil {
				return nil, err
			}
			*s.out = v
		}
		out = append(out, tier)
	}
	slices.SortFunc(out, func(a, b models.BundleOfferTier) int { return cmp.Compare(a.Quantity, b.Quantity) })
	return out, nil
}

// distinctIDs drops repeated ids, keeping the first of each; nil stays
// nil (left out) and an empty list stays empty (sent, to clear).
func distinctIDs(ids []int64) []int64 {
	if ids == nil {
		return nil
	}
	out := make([]int64, 0, len(ids))
	seen := make(map[int64]bool, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// checkBundleTargets checks, inside the write's transaction, that the sent
// lists name records of the store, and that a bundle for products or
// collections names at least one (the stored list counts when none is
// sent). It fills the lists left out with the stored ones, so that c holds
// what to save.
func checkBundleTargets(ctx context.Context, tx bun.IDB, b *models.BundleOffer, c *bundleChange, create bool) error {
	for _, t := range []struct {
		field, table, noun string
		ids                *[]int64
		load               loaders.Fetch[models.BundleLink]
		appliesTo          string
	}{
		{"product_ids", "products", "product", &c.productIDs, models.BundleProductLinks, models.BundleProducts},
		{"collection_ids", "collections", "collection", &c.collectionIDs, models.BundleCollectionLinks, models.BundleCollections},
	} {
		if *t.ids == nil {
			*t.ids = []int64{}
			if !create {
				links, err := t.load(ctx, tx, b.StoreID, []int64{b.ID}, models.AllColumns)
				if err != nil {
					return err
				}
				for _, l := range links {
					*t.ids = append(*t.ids, l.TargetID)
				}
			}
		} else {
			found, err := models.ExistingIDs(ctx, tx, t.table, b.StoreID, *t.ids)
			if err != nil {
				return err
			}
			var missing []string
			for _, id := range *t.ids {
				if !found[id] {
					missing = append(missing, strconv.FormatInt(id, 10))
				}
			}
			if len(missing) > 0 {
				return apperr.Invalidf("%s: no %s of this store has the id %s", t.field, t.noun, strings.Join(missing, ", "))
			}
		}
		if b.AppliesTo == t.appliesTo && len(*t.ids) == 0 {
			return apperr.Invalidf("%s must name at least one %s when applies_to is %s", t.field, t.noun, t.appliesTo)
		}
	}
	return nil
}

// linkIDs is the target ids of links.
func linkIDs(links []models.BundleLink) []int64 {
	out := make([]int64, len(links))
	for i, l := range links {
		out[i] = l.TargetID
	}
	return out
}
