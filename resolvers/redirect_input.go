package resolvers

import (
	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/storeurl"
	"storeadmin/models"
)

// applyURLRedirectInput checks in and writes its fields into r, the stored
// redirect on update (a merge: what is left out stays), normalising the
// path and target for a store whose own hosts own names. On create both
// are required.
func applyURLRedirectInput(r *models.URLRedirect, in graph.URLRedirectInput, own storeurl.OwnHost, create bool) error {
	if in.Path != nil || create {
		p, err := storeurl.Path(deref(in.Path), own)
		if err != nil {
			return apperr.Invalidf("path %s", err)
		}
		r.Path = p
	}
	if in.Target != nil || create {
		t, err := storeurl.Target(deref(in.Target), own)
		if err != nil {
			return apperr.Invalidf("target %s", err)
		}
		r.Target = t
	}
	return nil
}

// urlRedirectBulkDelete checks which redirects a bulk delete names: the
// ids, or (all_matching) a filter, never both and never neither.
func urlRedirectBulkDelete(in graph.URLRedirectBulkDeleteInput) (ids []int64, matching *models.URLRedirectFilter, err error) {
	f := models.URLRedirectFilter{Q: in.Q, Source: in.Source, CreatedFrom: in.CreatedFrom, CreatedTo: in.CreatedTo}
	filtered := f != models.URLRedirectFilter{}
	switch {
	case deref(in.AllMatching):
		if in.Ids != nil {
			return nil, nil, apperr.Invalidf("ids must be left out with all_matching, which deletes what the filter matches")
		}
		return nil, &f, f.Check()
	case filtered:
		return nil, nil, apperr.Invalidf("all_matching must be true to delete by q, source, created_from or created_to")
	case in.Ids == nil:
		return nil, nil, apperr.Invalidf("send ids, or all_matching: true with the filter of the redirects to delete")
	}
	return in.Ids, nil, checkBulkIDs(in.Ids)
}
