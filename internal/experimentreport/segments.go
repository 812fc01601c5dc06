package experimentreport

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// segmentSQL is the value of each dimension for an exposed visitor, from
// its exposure session (s): device and country as the tracker reported
// them ("unknown" without one); source is the session's utm_source, else
// its referrer's host, else "direct"; visitor is "new" for a visitor's
// first session, "returning" otherwise.
const segmentSQL = `(VALUES
	('device', coalesce(nullif(s.device, ''), 'unknown')),
	('country', coalesce(nullif(s.country, ''), 'unknown')),
	('source', coalesce(nullif(lower(s.utm->>'utm_source'), ''),
		nullif(lower(split_part(split_part(split_part(split_part(s.referrer, '://', 2), '/', 1), chr(63), 1), ':', 1)), ''),
		'direct')),
	('visitor', CASE WHEN s.prev_seen_at IS NULL THEN 'new' ELSE 'returning' END)) AS d(dimension, value)`

// dimensions is the order segments are listed in.
var dimensions = []string{DimensionDevice, DimensionCountry, DimensionSource, DimensionVisitor}

// segmentRows is the report's segments: one statement for the sums per
// dimension, value and arm; then each value with fewer than SegmentFloor
// exposed visitors in any arm is folded into the dimension's "other" row
// (folded says how many values it holds; null on the other rows). An
// "other" row below the floor in any arm takes in the smallest shown
// values until it is above it, so that it cannot be read off as the
// arms' totals less the rows shown; one still below (the dimension's
// values all folded) is hidden: listed with hidden true and its arms'
// figures zero. Rows by dimension, then by exposed visitors (most first),
// then value; "other" last.
func segmentRows(ctx context.Context, db bun.IDB, q window, metric string, arms []models.ExperimentVariant) ([]ExperimentSegmentRow, error) {
	var rows []struct {
		Dimension, Value string
		armSum
	}
	err := db.NewRaw(oneSQL+`
		SELECT d.dimension, d.value, v.variant_id, `+armSumsSQL+`
		FROM v JOIN storefront_sessions s ON s.id = v.exposure_session CROSS JOIN LATERAL `+segmentSQL+`
		GROUP BY d.dimension, d.value, v.variant_id
		ORDER BY d.dimension, sum(count(*)) OVER (PARTITION BY d.dimension, d.value) DESC, d.value`,
		q.store, q.experiment, q.to).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	type value struct {
		name string
		sums map[int64]armSum
	}
	byDim := map[string][]*value{}
	for _, r := range rows {
		vs := byDim[r.Dimension]
		if len(vs) == 0 || vs[len(vs)-1].name != r.Value {
			vs = append(vs, &value{name: r.Value, sums: map[int64]armSum{}})
			byDim[r.Dimension] = vs
		}
		vs[len(vs)-1].sums[r.VariantID] = r.armSum
	}
	above := func(sums map[int64]armSum) bool {
		for _, a := range arms {
			if sums[a.ID].Exposed < SegmentFloor {
				return false
			}
		}
		return true
	}
	row := func(dim, name string, sums map[int64]armSum, hidden bool) ExperimentSegmentRow {
		r := ExperimentSegmentRow{Dimension: dim, Value: name, Hidden: hidden, Arms: []ExperimentSegmentArm{}}
		for _, a := range arms {
			sa := ExperimentSegmentArm{Position: a.Position}
			if !hidden {
				s := sums[a.ID]
				sa.Exposed = s.Exposed
				sa.MetricEvents, sa.MetricRate = s.metric(metric)
			}
			r.Arms = append(r.Arms, sa)
		}
		return r
	}
	out := []ExperimentSegmentRow{}
	for _, dim := range dimensions {
		other, folded := map[int64]armSum{}, int64(0)
		fold := func(v *value) {
			folded++
			for id, s := range v.sums {
				other[id] = s.add(other[id])
			}
		}
		var shown []*value
		for _, v := range byDim[dim] {
			if above(v.sums) {
				shown = append(shown, v)
			} else {
				fold(v)
			}
		}
		// An "other" below the floor could be read off as the arms' totals
		// less the values shown: the smallest shown values join it until
		// it is above the floor (or none is left).
		for folded > 0 && !above(other) && len(shown) > 0 {
			fold(shown[len(shown)-1])
			shown = shown[:len(shown)-1]
		}
		for _, v := range shown {
			out = append(out, row(dim, v.name, v.sums, false))
		}
		if folded > 0 {
			r := row(dim, OtherValue, other, !above(other))
			r.Folded = &folded
			out = append(out, r)
		}
	}
	return out, nil
}

// add is the sums of s and t.
func (s armSum) add(t armSum) armSum {
	s.Exposed += t.Exposed
	s.Sessions += t.Sessions
	s.Paused += t.Paused
	s.Consented += t.Consented
	s.Added += t.Added
	s.Checkout += t.Checkout
	s.Converted += t.Converted
	s.Returned += t.Returned
	s.Orders += t.Orders
	s.Units += t.Units
	s.SumNum += t.SumNum
	s.SumNum2 += t.SumNum2
	s.SumDen += t.SumDen
	s.SumDen2 += t.SumDen2
	s.SumNumDen += t.SumNumDen
	return s
}
