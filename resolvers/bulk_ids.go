package resolvers

import "storeadmin/internal/base/apperr"

// maxBulkIDs bounds the ids of one bulk call.
const maxBulkIDs = 500

// checkBulkIDs checks the ids of a bulk call.
func checkBulkIDs(ids []int64) error {
	if len(ids) == 0 {
		return apperr.Invalidf("ids must list at least one id")
	}
	if len(ids) > maxBulkIDs {
		return apperr.Invalidf("ids may list at most %d ids", maxBulkIDs)
	}
	return nil
}
