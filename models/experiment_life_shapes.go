package models

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"storeadmin/internal/base/apperr"
)

// The shapes of an experiment's surface and arms' payloads per kind (README
// "A/B tests"), checked here without the store's records so that the API
// and the pools' CLI keep the same rules; what needs the store (the theme's
// schema, the page, the products, the rate) the API checks after.

// Bounds of what an experiment or a pool says.
const (
	MaxExperimentNameLen  = 200
	MaxPriceTestProducts  = 50
	MinPriceChangePct     = -90
	MaxPriceChangePct     = 100
	MaxContentTitleLen    = 255
	MaxContentBodyHTMLLen = 100_000
)

// ExperimentArmSpec is an arm as the client sends it.
type ExperimentArmSpec struct {
	Name     string
	Payload  any
	SplitPct int64
}

// ExperimentShape is an experiment's content, checked: the surface and each
// arm's payload as objects, and the ids the surface names.
type ExperimentShape struct {
	Kind, Metric string
	Surface      map[string]any
	Arms         []ExperimentArmSpec
	Payloads     []map[string]any
	// ThemeID and ThemeVersion: a theme test's surface (0 for a pool's).
	ThemeID, ThemeVersion int64
	// PageID: a content test's page; PageHandle: a content pool's.
	PageID     int64
	PageHandle string
	// ProductIDs: a price test's products, ascending.
	ProductIDs []int64
	// ShippingRateID: a shipping test's rate.
	ShippingRateID int64
}

// CheckExperimentShape checks an experiment's kind, metric, surface and
// arms (2 to 4, names given, splits 1 to 99 summing to 100, payloads of
// the kind's shape). pooled: a pool's definition, whose surface names no
// store record: a theme pool's is {} (whatever theme a member has live), a
// content pool's {"page_handle"} (the member's page of that handle).
func CheckExperimentShape(kind, metric string, surface any, arms []ExperimentArmSpec, pooled bool) (*ExperimentShape, error) {
	kinds := ExperimentKinds
	if pooled {
		kinds = []string{ExperimentKindTheme, ExperimentKindContent}
	}
	if !slices.Contains(kinds, kind) {
		return nil, apperr.InvalidField("kind", "must be one of %s, not %q", strings.Join(kinds, ", "), kind)
	}
	if !slices.Contains(ExperimentMetrics, metric) {
		return nil, apperr.InvalidField("metric", "must be one of %s, not %q", strings.Join(ExperimentMetrics, ", "), metric)
	}
	if pooled && metric == MetricRevenuePerSession {
		// Member stores sell in their own currencies: revenue summed
		// across them would add yen to cents.
		return nil, apperr.InvalidField("metric", "must be a rate for a pool (conversion, add_to_cart or checkout): member stores' revenue is in different currencies")
	}
	sh := &ExperimentShape{Kind: kind, Metric: metric, Arms: arms}
	s, err := jsonObject("surface", surface)
	if err != nil {
		return nil, err
	}
	sh.Surface = s
	if err := sh.checkSurface(pooled); err != nil {
		return nil, err
	}
	if len(arms) < MinExperimentArms || len(arms) > MaxExperimentArms {
		return nil, apperr.InvalidField("variants", "must be %d to %d arms, not %d", MinExperimentArms, MaxExperimentArms, len(arms))
	}
	var sum int64
	for i, a := range arms {
		at := fmt.Sprintf("variants[%d]", i)
		if strings.TrimSpace(a.Name) == "" {
			return nil, apperr.InvalidField(at+".name", "must not be empty")
		}
		if utf8.RuneCountInString(a.Name) > MaxExperimentNameLen {
			return nil, apperr.InvalidField(at+".name", "must be at most %d characters", MaxExperimentNameLen)
		}
		if err := CheckText(a.Name); err != nil {
			return nil, apperr.InvalidField(at+".name", "%s", err.Error())
		}
		if a.SplitPct < 1 || a.SplitPct > 99 {
			return nil, apperr.InvalidField(at+".split_pct", "must be 1 to 99, not %d", a.SplitPct)
		}
		sum += a.SplitPct
		p, err := jsonObject(at+".payload", a.Payload)
		if err != nil {
			return nil, err
		}
		if err := checkPayload(kind, at+".payload", p, i == 0); err != nil {
			return nil, err
		}
		sh.Payloads = append(sh.Payloads, p)
	}
	if sum != ExperimentSplits {
		return nil, apperr.InvalidField("variants", "split_pct must sum to %d, not %d", ExperimentSplits, sum)
	}
	return sh, nil
}

// jsonObject is v as a JSON object, or a 400 naming at.
func jsonObject(at string, v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, apperr.InvalidField(at, "must be a JSON object")
	}
	if err := CheckJSON(m); err != nil {
		return nil, apperr.InvalidField(at, "%s", err.Error())
	}
	return m, nil
}

// onlyKeys refuses a key of m that is not among keys, naming it.
func onlyKeys(at string, m map[string]any, keys ...string) error {
	unknown := []string{}
	for k := range m {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	allowed := "no keys"
	if len(keys) > 0 {
		allowed = strings.Join(keys, ", ")
	}
	return apperr.InvalidField(at+"."+unknown[0], "is not a known key: %s takes %s", at, allowed)
}

// positiveID reads m[key], a required id.
func positiveID(at string, m map[string]any, key string) (int64, error) {
	v, ok := m[key]
	if !ok {
		return 0, apperr.InvalidField(at+"."+key, "is required")
	}
	n, ok := wholeJSON(v)
	if !ok || n < 1 {
		return 0, apperr.InvalidField(at+"."+key, "must be a positive integer id")
	}
	return n, nil
}

func (sh *ExperimentShape) checkSurface(pooled bool) (err error) {
	s := sh.Surface
	switch {
	case sh.Kind == ExperimentKindTheme && pooled:
		return onlyKeys("surface", s)
	case sh.Kind == ExperimentKindTheme:
		if err := onlyKeys("surface", s, "theme_id", "version"); err != nil {
			return err
		}
		if sh.ThemeID, err = positiveID("surface", s, "theme_id"); err != nil {
			return err
		}
		sh.ThemeVersion, err = positiveID("surface", s, "version")
		return err
	case sh.Kind == ExperimentKindContent && pooled:
		if err := onlyKeys("surface", s, "page_handle"); err != nil {
			return err
		}
		h, ok := s["page_handle"].(string)
		if !ok || h == "" {
			return apperr.InvalidField("surface.page_handle", "must be a page's handle")
		}
		sh.PageHandle = h
		return nil
	case sh.Kind == ExperimentKindContent:
		if err := onlyKeys("surface", s, "page_id"); err != nil {
			return err
		}
		sh.PageID, err = positiveID("surface", s, "page_id")
		return err
	case sh.Kind == ExperimentKindPrice:
		if err := onlyKeys("surface", s, "product_ids"); err != nil {
			return err
		}
		list, ok := s["product_ids"].([]any)
		if !ok || len(list) < 1 || len(list) > MaxPriceTestProducts {
			return apperr.InvalidField("surface.product_ids", "must be a list of 1 to %d product ids", MaxPriceTestProducts)
		}
		for i, v := range list {
			n, ok := wholeJSON(v)
			if !ok || n < 1 {
				return apperr.InvalidField(fmt.Sprintf("surface.product_ids[%d]", i), "must be a positive integer id")
			}
			if slices.Contains(sh.ProductIDs, n) {
				return apperr.InvalidField(fmt.Sprintf("surface.product_ids[%d]", i), "repeats product %d", n)
			}
			sh.ProductIDs = append(sh.ProductIDs, n)
		}
		slices.Sort(sh.ProductIDs)
		return nil
	default: // shipping
		if err := onlyKeys("surface", s, "shipping_rate_id"); err != nil {
			return err
		}
		sh.ShippingRateID, err = positiveID("surface", s, "shipping_rate_id")
		return err
	}
}

// checkPayload checks an arm's payload of the kind; the control (the first
// arm) shows the surface as it is: {} (a price test's {"price_change_pct": 0}).
func checkPayload(kind, at string, p map[string]any, control bool) error {
	switch kind {
	case ExperimentKindTheme:
		if err := onlyKeys(at, p, "settings"); err != nil {
			return err
		}
		if v, ok := p["settings"]; ok {
			if _, ok := v.(map[string]any); !ok {
				return apperr.InvalidField(at+".settings", "must be a JSON object of settings")
			}
		}
	case ExperimentKindContent:
		if err := onlyKeys(at, p, "title", "body_html"); err != nil {
			return err
		}
		for key, most := range map[string]int{"title": MaxContentTitleLen, "body_html": MaxContentBodyHTMLLen} {
			v, ok := p[key]
			if !ok {
				continue
			}
			s, ok := v.(string)
			if !ok || strings.TrimSpace(s) == "" || utf8.RuneCountInString(s) > most {
				return apperr.InvalidField(at+"."+key, "must be text of 1 to %d characters", most)
			}
		}
	case ExperimentKindPrice:
		if err := onlyKeys(at, p, "price_change_pct"); err != nil {
			return err
		}
		n, ok := wholeJSON(p["price_change_pct"])
		if !ok || n < MinPriceChangePct || n > MaxPriceChangePct {
			return apperr.InvalidField(at+".price_change_pct", "must be an integer from %d to %d", MinPriceChangePct, MaxPriceChangePct)
		}
		if control && n != 0 {
			return apperr.InvalidField(at+".price_change_pct", "must be 0: the first arm is the control, which shows the price as it is")
		}
		return nil
	case ExperimentKindShipping:
		if err := onlyKeys(at, p, "price_cents"); err != nil {
			return err
		}
		if v, ok := p["price_cents"]; ok {
			if n, ok := wholeJSON(v); !ok || n < 0 {
				return apperr.InvalidField(at+".price_cents", "must be a whole number of cents, 0 or more")
			}
		}
	}
	if control && len(p) > 0 {
		return apperr.InvalidField(at, "must be {}: the first arm is the control, which shows the surface as it is")
	}
	if !control && len(p) == 0 {
		return apperr.InvalidField(at, "must change something: only the first arm, the control, is {}")
	}
	return nil
}
