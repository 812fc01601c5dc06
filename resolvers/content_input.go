package resolvers

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// maxExcerpt bounds an article's written excerpt, in characters.
const maxExcerpt = 1000

// publication is the published_at a page or article has after a write
// that sent published and published_at (nullAt: published_at sent as an
// explicit null), at now; cur is its published_at before. published true
// publishes now, unless the record is live already (its date stays);
// false unpublishes; a published_at in the past publishes as of then, one
// in the future schedules, null makes a draft. Both sent must agree:
// published must be what the date means now.
func publication(cur *time.Time, published *bool, at *time.Time, nullAt bool, now time.Time) (*time.Time, error) {
	switch {
	case at != nil:
		// A record read and sent back says both; they agree when
		// published is what the date means now.
		if published != nil && !*published && !at.After(now) {
			return nil, apperr.Invalidf("published is false but published_at is in the past: send published_at null (or published false alone) to unpublish")
		}
		if published != nil && *published && at.After(now) {
			return nil, apperr.Invalidf("published is true but published_at is in the future: leave published out to schedule it")
		}
		t := at.UTC()
		return &t, nil
	case nullAt:
		if published != nil && *published {
			return nil, apperr.Invalidf("published is true but published_at is null: send one or the other")
		}
		return nil, nil
	case published == nil:
		return cur, nil
	case !*published:
		return nil, nil
	case models.IsPublished(cur, now):
		return cur, nil
	}
	t := now.UTC()
	return &t, nil
}

// checkContentPage applies in to a copy of cur (a new, empty page on
// create) and checks the result; sentNull names the input's fields sent as
// an explicit null.
func checkContentPage(cur *models.ContentPage, in graph.ContentPageInput, sentNull map[string]bool, now time.Time) (*models.ContentPage, error) {
	creating := cur.ID == 0
	p := *cur
	var err error
	if in.Title != nil || creating {
		if p.Title, err = text("title", deref(in.Title), maxTitle, true); err != nil {
			return nil, err
		}
	}
	if in.Handle != nil {
		if p.Handle, err = checkHandle(*in.Handle, "shipping-policy"); err != nil {
			return nil, err
		}
	}
	if in.BodyHTML != nil {
		if p.BodyHTML, err = bodyHTML(*in.BodyHTML); err != nil {
			return nil, err
		}
	}
	if p.PublishedAt, err = publication(cur.PublishedAt, in.Published, in.PublishedAt, sentNull["published_at"], now); err != nil {
		return nil, err
	}
	if in.Seo != nil || creating {
		if p.SEO, err = checkSEO(in.Seo); err != nil {
			return nil, err
		}
	}
	return &p, nil
}

// checkArticle applies in to a copy of cur (a new, empty article on
// create) and checks the result; sentNull names the input's fields sent as
// an explicit null. An image must be one of the store's uploads, whose
// ThumbHash it copies.
func checkArticle(ctx context.Context, db bun.IDB, cur *models.Article, in graph.ArticleInput, sentNull map[string]bool, now time.Time) (*models.Article, error) {
	creating := cur.ID == 0
	a := *cur
	var err error
	if in.Title != nil || creating {
		if a.Title, err = text("title", deref(in.Title), maxTitle, true); err != nil {
			return nil, err
		}
	}
	if in.Handle != nil {
		if a.Handle, err = checkHandle(*in.Handle, "summer-lookbook"); err != nil {
			return nil, err
		}
	}
	if in.BodyHTML != nil {
		if a.BodyHTML, err = bodyHTML(*in.BodyHTML); err != nil {
			return nil, err
		}
	}
	if in.Author != nil {
		if a.Author, err = text("author", *in.Author, maxTitle, false); err != nil {
			return nil, err
		}
	}
	if in.Tags != nil || creating {
		if a.Tags, err = checkTags(in.Tags); err != nil {
			return nil, err
		}
	}
	// An excerpt nobody wrote follows the body: it is derived when the
	// article is new, when one is sent empty, and when the stored one is
	// the old body's.
	derived := creating || cur.Excerpt == models.Excerpt(cur.BodyHTML)
	switch written := strings.TrimSpace(deref(in.Excerpt)); {
	case written != "":
		if a.Excerpt, err = text("excerpt", written, maxExcerpt, false); err != nil {
			return nil, err
		}
	case in.Excerpt != nil || derived:
		a.Excerpt = models.Excerpt(a.BodyHTML)
	}
	if in.ImageSrc != nil {
		if a.ImageSrc, a.ImageThumbhash, err = uploadedImage(ctx, db, a.StoreID, "image_src", *in.ImageSrc); err != nil {
			return nil, err
		}
	}
	if a.PublishedAt, err = publication(cur.PublishedAt, in.Published, in.PublishedAt, sentNull["published_at"], now); err != nil {
		return nil, err
	}
	if in.Seo != nil || creating {
		if a.SEO, err = checkSEO(in.Seo); err != nil {
			return nil, err
		}
	}
	return &a, nil
}

// bodyHTML checks a page's or article's HTML: at most maxBodyHTML bytes.
func bodyHTML(v string) (string, error) {
	if len(v) > maxBodyHTML {
		return "", apperr.Invalidf("body_html must be at most %d KiB", maxBodyHTML>>10)
	}
	return v, nil
}

// uploadedImage checks src, which must be the src of an image uploaded to
// the store, and returns it with that upload's ThumbHash; empty is no
// image.
func uploadedImage(ctx context.Context, db bun.IDB, storeID int64, field, src string) (string, string, error) {
	src = strings.TrimSpace(src)
	if src == "" {
		return "", "", nil
	}
	media, err := models.MediaBySrc(ctx, db, storeID, []string{src})
	if err != nil {
		return "", "", err
	}
	m, ok := media[src]
	if !ok {
		return "", "", apperr.Invalidf("%s must be the src of an image uploaded to this store (POST /store/uploads/request, then /store/uploads/finalize), not %q", field, src)
	}
	return m.Src, m.Thumbhash, nil
}

// saveContentPage writes a checked page in tx: its handle generated from
// the title when it has none (-2, -3 ... when taken); a handle sent that
// another page has is a conflict.
func saveContentPage(ctx context.Context, tx bun.IDB, p *models.ContentPage) error {
	taken := func(h string) (bool, error) { return models.ContentPageHandleTaken(ctx, tx, p.StoreID, h, p.ID) }
	if err := settleHandle(&p.Handle, p.Title, "page", taken); err != nil {
		return err
	}
	if p.ID == 0 {
		return models.InsertContentPage(ctx, tx, p)
	}
	return models.UpdateContentPage(ctx, tx, p)
}

// saveArticle writes a checked article in tx, its handle settled as a
// page's is.
func saveArticle(ctx context.Context, tx bun.IDB, a *models.Article) error {
	taken := func(h string) (bool, error) { return models.ArticleHandleTaken(ctx, tx, a.StoreID, h, a.ID) }
	if err := settleHandle(&a.Handle, a.Title, "article", taken); err != nil {
		return err
	}
	if a.ID == 0 {
		return models.InsertArticle(ctx, tx, a)
	}
	return models.UpdateArticle(ctx, tx, a)
}

// settleHandle makes *h the record's handle: generated from title when
// empty (uniqueHandle), else refused with a conflict when taken says
// another record of its kind (what) has it.
func settleHandle(h *string, title, what string, taken func(string) (bool, error)) error {
	if *h == "" {
		generated, err := uniqueHandle(models.Handleize(title), taken)
		*h = generated
		return err
	}
	t, err := taken(*h)
	if err == nil && t {
		err = apperr.Conflictf("another %s already has the handle %q", what, *h)
	}
	return err
}
