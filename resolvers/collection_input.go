package resolvers

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// checkCollection applies in to cur (a new collection on create) and
// checks the result.
func checkCollection(cur *models.Collection, in graph.CollectionInput) (*models.Collection, error) {
	creating := cur.ID == 0
	c := *cur
	var err error
	if in.Title != nil || creating {
		if c.Title, err = text("title", deref(in.Title), maxTitle, true); err != nil {
			return nil, err
		}
	}
	if in.Handle != nil {
		if c.Handle, err = checkHandle(*in.Handle, "summer-sale"); err != nil {
			return nil, err
		}
	}
	if in.Description != nil {
		if len(*in.Description) > maxBodyHTML {
			return nil, apperr.Invalidf("description must be at most %d KiB", maxBodyHTML>>10)
		}
		c.Description = *in.Description
	}
	if creating {
		c.CollectionType, c.SortOrder, c.Published = models.CollectionManual, "manual", true
		if in.CollectionType != nil {
			if c.CollectionType, err = oneOf("collection_type", *in.CollectionType, models.CollectionManual, models.CollectionSmart); err != nil {
				return nil, err
			}
		}
	} else if in.CollectionType != nil && *in.CollectionType != c.CollectionType {
		return nil, apperr.Invalidf("collection_type is fixed once a collection exists: create a new %s collection instead", *in.CollectionType)
	}
	if in.Disjunctive != nil {
		c.Disjunctive = *in.Disjunctive
	}
	if c.CollectionType == models.CollectionSmart {
		if in.Rules != nil || creating {
			rules := make([]models.CollectionRule, len(in.Rules))
			for i, r := range in.Rules {
				rules[i] = models.CollectionRule{Column: r.Column, Relation: r.Relation, Condition: r.Condition}
			}
			if c.RuleList, err = models.CheckRules(rules); err != nil {
				return nil, err
			}
		}
		if len(in.ProductIds) > 0 {
			return nil, apperr.Invalidf("a smart collection's products follow its rules: send rules, not product_ids")
		}
	} else if len(in.Rules) > 0 {
		return nil, apperr.Invalidf("rules belong to smart collections; this one is manual")
	}
	if in.SortOrder != nil {
		if c.SortOrder, err = oneOf("sort_order", *in.SortOrder, models.CollectionSortOrders...); err != nil {
			return nil, err
		}
	}
	if in.Published != nil {
		c.Published = *in.Published
	}
	if in.ImageSrc != nil {
		c.ImageSrc = ""
		if strings.TrimSpace(*in.ImageSrc) != "" {
			if c.ImageSrc, err = checkImageURL("image_src", *in.ImageSrc); err != nil {
				return nil, err
			}
		}
	}
	if in.Seo != nil || creating {
		if c.SEO, err = checkSEO(in.Seo); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// saveCollection writes a checked collection in tx, with its handle
// generated when unset, and recomputes its members when it is smart.
func saveCollection(ctx context.Context, tx bun.IDB, c *models.Collection, productIDs []int64) error {
	if c.Handle == "" {
		h, err := uniqueHandle(models.Handleize(c.Title), func(h string) (bool, error) {
			return models.CollectionHandleTaken(ctx, tx, c.StoreID, h, c.ID)
		})
		if err != nil {
			return err
		}
		c.Handle = h
	} else if taken, err := models.CollectionHandleTaken(ctx, tx, c.StoreID, c.Handle, c.ID); err != nil {
		return err
	} else if taken {
		return apperr.Conflictf("another collection already has the handle %q", c.Handle)
	}
	if c.ID == 0 {
		if err := models.InsertCollection(ctx, tx, c); err != nil {
			return err
		}
	} else if err := models.UpdateCollection(ctx, tx, c); err != nil {
		return err
	}
	if c.CollectionType == models.CollectionSmart {
		return models.RefreshSmartCollections(ctx, tx, c.StoreID, []int64{c.ID}, nil)
	}
	if len(productIDs) > 0 {
		if err := requireProducts(ctx, tx, c.StoreID, productIDs); err != nil {
			return err
		}
		_, err := models.AddCollectionProducts(ctx, tx, c.StoreID, c.ID, productIDs)
		return err
	}
	return nil
}

// requireProducts refuses ids that name no product of the store.
func requireProducts(ctx context.Context, db bun.IDB, storeID int64, ids []int64) error {
	found, err := models.ExistingIDs(ctx, db, "products", storeID, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if !found[id] {
			return apperr.Invalidf("product %d does not exist in this store", id)
		}
	}
	return nil
}

// manualCollection reads a collection whose members are chosen by hand.
func manualCollection(ctx context.Context, db bun.IDB, storeID, id int64) (*models.Collection, error) {
	c, err := models.GetCollection(ctx, db, storeID, id)
	if err != nil {
		return nil, err
	}
	if c.CollectionType == models.CollectionSmart {
		return nil, apperr.Conflictf("a smart collection's products follow its rules; change the rules instead")
	}
	return c, nil
}

// reorder puts the listed members first, in the given order, and the
// others after them in their old order.
func reorder(members, first []int64) ([]int64, error) {
	in := make(map[int64]bool, len(members))
	for _, id := range members {
		in[id] = true
	}
	placed := make(map[int64]bool, len(first))
	out := make([]int64, 0, len(members))
	for _, id := range first {
		if !in[id] {
			return nil, apperr.Invalidf("product %d is not in this collection", id)
		}
		if placed[id] {
			return nil, apperr.Invalidf("product %d is listed twice", id)
		}
		placed[id] = true
		out = append(out, id)
	}
	for _, id := range members {
		if !placed[id] {
			out = append(out, id)
		}
	}
	return out, nil
}
