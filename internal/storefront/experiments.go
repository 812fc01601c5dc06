package storefront

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/internal/previews"
	"storeadmin/internal/themesettings"
	"storeadmin/models"
)

// experiments is GET /experiments?visitor_id=…[&preview=TOKEN]: the
// store's running A/B tests, each with the arm the visitor is assigned
// (models.AssignVariant: a pure function of the test's key and the
// visitor id, so nothing is recorded and every replica answers alike)
// and what that arm shows concretely (experimentShows). A broken test
// (its surface gone) shows the control. An arm's preview token forces its
// arm of its test, which is answered even as a draft or paused: that is
// what previews are for. While the platform switches money tests off,
// price and shipping tests are left out, previewed or not: nothing charges
// their arms then (models.MoneyArmsOf), so nothing shows them.
func (s *service) experiments(w http.ResponseWriter, r *http.Request) {
	views, err := s.readExperiments(r)
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, http.StatusOK, map[string]any{"experiments": views})
}

// experimentParams are the query parameters GET /experiments takes (key
// is the publishable key, for a browser that cannot send the header).
var experimentParams = []string{"visitor_id", previews.ArmParam, "key"}

func (s *service) readExperiments(r *http.Request) ([]experimentView, error) {
	q := r.URL.Query()
	for name := range q {
		if !contains(experimentParams, name) {
			return nil, apperr.InvalidField(name, "is not a parameter of GET /experiments; it takes %s", strings.Join(experimentParams, ", "))
		}
	}
	anon := q.Get("visitor_id")
	if !idPattern.MatchString(anon) {
		return nil, apperr.InvalidField("visitor_id", "is required: the id the browser keeps for its visitor, 1 to 64 visible ASCII characters")
	}
	ctx, storeID := r.Context(), storeOf(r)
	forced, err := s.previewArm(ctx, storeID, q.Get(previews.ArmParam))
	if err != nil {
		return nil, err
	}
	kinds := s.Platform.StorefrontKinds()
	tests, err := models.RunningExperiments(ctx, s.DB, storeID, kinds...)
	if err != nil {
		return nil, err
	}
	if forced != nil && slices.Contains(kinds, forced.test.Kind) {
		tests = withForced(tests, forced.test)
	}
	views := make([]experimentView, len(tests))
	for i := range tests {
		e := &tests[i]
		arm, preview := e.Assign(anon), false
		if forced != nil && forced.test.ID == e.ID && !e.Broken {
			arm, preview = forced.arm, true
		}
		views[i] = experimentView{Key: e.Key, Kind: e.Kind, Surface: e.Surface, Preview: preview, Broken: e.Broken}
		if arm != nil {
			views[i].Arm = &armView{Key: arm.Key, Position: arm.Position, Payload: arm.Payload}
		}
	}
	return showArms(ctx, s.DB, storeID, tests, views)
}

// forcedArm is the arm an arm preview token forces, and its test.
type forcedArm struct {
	test models.LiveExperiment
	arm  *models.ExperimentVariant
}

// previewArm reads an arm's preview token (none: nil): 401 when it is not
// valid, expired, or another store's; 404 when its test or arm is gone.
func (s *service) previewArm(ctx context.Context, storeID int64, token string) (*forcedArm, error) {
	if token == "" {
		return nil, nil
	}
	grant, err := s.Previews.CheckArm(token, s.Now())
	if err != nil {
		return nil, err
	}
	if grant.StoreID != storeID {
		return nil, apperr.New(apperr.Unauthenticated, "this preview token is another store's: open the preview from the store it was made for")
	}
	e, err := models.LiveExperimentOf(ctx, s.DB, storeID, grant.ExperimentID)
	if err != nil {
		return nil, err
	}
	arm := e.Arm(grant.VariantID)
	if arm == nil {
		return nil, apperr.NotFoundf("the arm this preview token shows was removed from its experiment")
	}
	return &forcedArm{test: *e, arm: arm}, nil
}

// withForced is tests with the previewed test among them, in place when it
// runs, else last.
func withForced(tests []models.LiveExperiment, e models.LiveExperiment) []models.LiveExperiment {
	for i := range tests {
		if tests[i].ID == e.ID {
			return tests
		}
	}
	return append(tests, e)
}

// experimentView is a test as GET /experiments answers it (README
// "Storefront: assignment and exposures").
type experimentView struct {
	Key     string   `json:"key"`
	Kind    string   `json:"kind"`
	Surface any      `json:"surface"`
	Arm     *armView `json:"arm"`
	// Preview: the arm is the one a preview token forces.
	Preview bool `json:"preview"`
	// Broken: the surface is gone, so the arm is the control.
	Broken bool `json:"broken"`
	// Shows is what the arm shows concretely, by kind; null when broken.
	Shows any `json:"shows"`
}

type armView struct {
	Key      string `json:"key"`
	Position int64  `json:"position"`
	Payload  any    `json:"payload"`
}

// showArms fills each view's Shows from the records the tests' surfaces
// name, read for all the tests at once: one statement per kind present,
// whatever the number of tests, products or variants. It answers the
// views the storefront may show: a content test of a page not published
// (yet, or any more) is left out, as the page is not on the storefront and
// its text is not the shoppers' to read, but for a preview browser, whose
// signed token is the merchant's.
func showArms(ctx context.Context, db bun.IDB, storeID int64, tests []models.LiveExperiment, views []experimentView) ([]experimentView, error) {
	var themeKeys [][2]int64
	var pageIDs, productIDs, rateIDs []int64
	for i, e := range tests {
		if e.Broken || views[i].Arm == nil {
			continue
		}
		switch e.Kind {
		case models.ExperimentKindTheme:
			id, _ := models.SurfaceNumber(e.Surface, "theme_id")
			v, _ := models.SurfaceNumber(e.Surface, "version")
			themeKeys = append(themeKeys, [2]int64{int64(id), int64(v)})
		case models.ExperimentKindContent:
			id, _ := models.SurfaceNumber(e.Surface, "page_id")
			pageIDs = append(pageIDs, int64(id))
		case models.ExperimentKindPrice:
			productIDs = append(productIDs, models.SurfaceIDs(e.Surface, "product_ids")...)
		case models.ExperimentKindShipping:
			id, _ := models.SurfaceNumber(e.Surface, "shipping_rate_id")
			rateIDs = append(rateIDs, int64(id))
		}
	}
	surfaces, err := readSurfaces(ctx, db, storeID, themeKeys, pageIDs, productIDs, rateIDs)
	if err != nil {
		return nil, err
	}
	shown := views[:0]
	for i, e := range tests {
		if !e.Broken && views[i].Arm != nil {
			if e.Kind == models.ExperimentKindContent && !views[i].Preview {
				id, _ := models.SurfaceNumber(e.Surface, "page_id")
				if !surfaces.pages[int64(id)].Published {
					continue
				}
			}
			views[i].Shows = surfaces.show(e, views[i].Arm.Payload)
		}
		shown = append(shown, views[i])
	}
	return shown, nil
}

// surfaceRecords are the records the shown tests' surfaces name.
type surfaceRecords struct {
	versions map[[2]int64]any // (theme, version) → settings
	pages    map[int64]pageRecord
	variants map[int64][]variantRecord // product → its variants
	rates    map[int64]int64           // rate → price_cents
}

type pageRecord struct {
	ID        int64  `bun:"id"`
	Title     string `bun:"title"`
	BodyHTML  string `bun:"body_html"`
	Published bool   `bun:"published"` // as the storefront's pages are: published_at reached
}

type variantRecord struct {
	ID         int64 `bun:"id"`
	ProductID  int64 `bun:"product_id"`
	PriceCents int64 `bun:"price_cents"`
}

func readSurfaces(ctx context.Context, db bun.IDB, storeID int64, themeKeys [][2]int64, pageIDs, productIDs, rateIDs []int64) (surfaceRecords, error) {
	out := surfaceRecords{versions: map[[2]int64]any{}, pages: map[int64]pageRecord{}, variants: map[int64][]variantRecord{}, rates: map[int64]int64{}}
	if len(themeKeys) > 0 {
		keys, _ := json.Marshal(themeKeys)
		var rows []struct {
			ThemeID  int64 `bun:"theme_id"`
			Version  int64 `bun:"version"`
			Settings any   `bun:"settings,type:jsonb"`
		}
		err := db.NewRaw(`SELECT theme_id, version, settings FROM theme_versions
			WHERE store_id = ? AND (theme_id, version) IN (SELECT (k->>0)::bigint, (k->>1)::int FROM jsonb_array_elements(?::jsonb) k)`,
			storeID, string(keys)).Scan(ctx, &rows)
		if err != nil {
			return out, err
		}
		for _, r := range rows {
			out.versions[[2]int64{r.ThemeID, r.Version}] = r.Settings
		}
	}
	if len(pageIDs) > 0 {
		var rows []pageRecord
		if err := db.NewRaw("SELECT id, title, body_html, coalesce(published_at <= now(), false) AS published FROM pages WHERE store_id = ? AND id IN (?)", storeID, bun.List(pageIDs)).Scan(ctx, &rows); err != nil {
			return out, err
		}
		for _, r := range rows {
			out.pages[r.ID] = r
		}
	}
	if len(productIDs) > 0 {
		var rows []variantRecord
		err := db.NewRaw(`SELECT v.id, v.product_id, v.price_cents FROM product_variants v
			WHERE v.store_id = ? AND v.product_id IN (?) ORDER BY v.product_id, v.position, v.id`, storeID, bun.List(productIDs)).Scan(ctx, &rows)
		if err != nil {
			return out, err
		}
		for _, r := range rows {
			out.variants[r.ProductID] = append(out.variants[r.ProductID], r)
		}
	}
	if len(rateIDs) > 0 {
		var rows []struct {
			ID         int64 `bun:"id"`
			PriceCents int64 `bun:"price_cents"`
		}
		if err := db.NewRaw("SELECT id, price_cents FROM shipping_rates WHERE store_id = ? AND id IN (?)", storeID, bun.List(rateIDs)).Scan(ctx, &rows); err != nil {
			return out, err
		}
		for _, r := range rows {
			out.rates[r.ID] = r.PriceCents
		}
	}
	return out, nil
}

// show is what e's arm of payload shows, by kind (README "Storefront:
// assignment and exposures").
func (rec surfaceRecords) show(e models.LiveExperiment, payload any) any {
	switch e.Kind {
	case models.ExperimentKindTheme:
		id, _ := models.SurfaceNumber(e.Surface, "theme_id")
		v, _ := models.SurfaceNumber(e.Surface, "version")
		settings := rec.versions[[2]int64{int64(id), int64(v)}]
		over, _ := payload.(map[string]any)
		return map[string]any{"theme_id": int64(id), "version": int64(v), "settings": themesettings.Merge(settings, over["settings"])}
	case models.ExperimentKindContent:
		id, _ := models.SurfaceNumber(e.Surface, "page_id")
		p := rec.pages[int64(id)]
		title, body := models.ContentShown(p.Title, p.BodyHTML, payload)
		return map[string]any{"page_id": p.ID, "title": title, "body_html": body}
	case models.ExperimentKindPrice:
		pct, _ := models.SurfaceNumber(payload, "price_change_pct")
		prices := []map[string]any{}
		for _, pid := range models.SurfaceIDs(e.Surface, "product_ids") {
			for _, v := range rec.variants[pid] {
				prices = append(prices, map[string]any{"product_id": v.ProductID, "variant_id": v.ID,
					"catalogue_price_cents": v.PriceCents, "price_cents": models.ArmPriceCents(v.PriceCents, pct)})
			}
		}
		return map[string]any{"price_change_pct": pct, "variants": prices}
	case models.ExperimentKindShipping:
		id, _ := models.SurfaceNumber(e.Surface, "shipping_rate_id")
		own := rec.rates[int64(id)]
		price := own
		if p, ok := models.SurfaceNumber(payload, "price_cents"); ok {
			price = int64(p)
		}
		return map[string]any{"shipping_rate_id": int64(id), "rate_price_cents": own, "price_cents": price}
	}
	return nil
}
