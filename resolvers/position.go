package resolvers

import (
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// position checks a position: 0 to models.MaxPosition.
func position(field string, v int64) (int64, error) {
	if v < 0 || v > models.MaxPosition {
		return 0, apperr.Invalidf("%s must be between 0 and %d", field, models.MaxPosition)
	}
	return v, nil
}
