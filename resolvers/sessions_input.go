package resolvers

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Session windows: the last defaultWindowDays days unless the client names
// others, never more than maxWindowDays.
const (
	defaultWindowDays = 30
	maxWindowDays     = 366
)

// sessionScope checks a sessions filter into the sessions it names: its
// window in the store's time zone (whole days: from the first day's
// midnight to the midnight after the last) and its conditions.
func (r *Resolver) sessionScope(ctx context.Context, storeID int64, f *models.SessionFilter) (models.SessionScope, error) {
	var sc models.SessionScope
	if f != nil {
		sc.SessionFilter = *f
	}
	loc, err := r.storeLocation(ctx, storeID)
	if err != nil {
		return sc, err
	}
	if sc.Window, err = sessionWindow(sc.SessionFilter, r.Now().In(loc)); err != nil {
		return sc, err
	}
	if sc.Outcome != nil {
		if !slices.Contains(models.SessionOutcomes, *sc.Outcome) {
			return sc, apperr.InvalidField("outcome", "must be one of %s, not %q", strings.Join(models.SessionOutcomes, ", "), *sc.Outcome)
		}
	}
	for field, v := range map[string]*string{"country": sc.Country, "city": sc.City, "device": sc.Device, "browser": sc.Browser,
		"landing_path": sc.LandingPath, "utm_source": sc.UTMSource, "utm_medium": sc.UTMMedium, "utm_campaign": sc.UTMCampaign} {
		if v != nil && (strings.TrimSpace(*v) == "" || utf8.RuneCountInString(*v) > 500) {
			return sc, apperr.InvalidField(field, "must be 1 to 500 characters")
		}
	}
	if sc.Country != nil && len(strings.TrimSpace(*sc.Country)) != 2 {
		return sc, apperr.InvalidField("country", "must be a two-letter country code (ISO 3166-1 alpha-2), not %q", *sc.Country)
	}
	return sc, nil
}

// sessionWindow is the window f names, today being the day of now (in the
// store's time zone).
func sessionWindow(f models.SessionFilter, now time.Time) (models.WindowView, error) {
	loc := now.Location()
	day := func(field string, v string) (time.Time, error) {
		d, err := time.ParseInLocation("2006-01-02", v, loc)
		if err != nil {
			return d, apperr.InvalidField(field, "must be a date such as 2026-11-01, not %q", v)
		}
		return d, nil
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	if f.Days != nil {
		if f.From != nil || f.To != nil {
			return models.WindowView{}, apperr.InvalidField("days", "cannot be combined with from or to")
		}
		if *f.Days < 1 || *f.Days > maxWindowDays {
			return models.WindowView{}, apperr.InvalidField("days", "must be between 1 and %d", maxWindowDays)
		}
	}
	days := int64(defaultWindowDays)
	if f.Days != nil {
		days = *f.Days
	}
	last := today
	if f.To != nil {
		var err error
		if last, err = day("to", *f.To); err != nil {
			return models.WindowView{}, err
		}
	}
	first := last.AddDate(0, 0, int(1-days))
	if f.From != nil {
		var err error
		if first, err = day("from", *f.From); err != nil {
			return models.WindowView{}, err
		}
	}
	if first.After(last) {
		return models.WindowView{}, apperr.InvalidField("from", "must not be after to")
	}
	if last.Sub(first) >= maxWindowDays*24*time.Hour {
		return models.WindowView{}, apperr.InvalidField("from", "must be at most %d days before to", maxWindowDays)
	}
	return models.WindowView{From: first.UTC(), To: last.AddDate(0, 0, 1).UTC()}, nil
}

// groupDimension checks what a client asked the sessions to be grouped by.
func groupDimension(groupBy *string) (string, error) {
	if groupBy == nil {
		return "", nil
	}
	if !slices.Contains(models.SessionGroupDimensions, *groupBy) {
		return "", apperr.InvalidField("group_by", "must be one of %s, not %q", strings.Join(models.SessionGroupDimensions, ", "), *groupBy)
	}
	return *groupBy, nil
}
