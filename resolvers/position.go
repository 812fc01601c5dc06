package resolvers

import (
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// position checks a position: 0 to models.MaxPosition.
func position(field string, v int64) (int64, error) {
	if v < 0 || v > models.MaxPosition {
		return 0, apperr.InvalidField(field, "must be between 0 and %d", models.MaxPosition)
	}
	return v, nil
}
