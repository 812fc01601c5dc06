package resolvers

import (
	"context"
	"strings"

	"storeadmin/models"
)

// handleAvailable reports whether handle is well formed and no record of
// the caller's store other than id has it; taken asks the table.
func handleAvailable(ctx context.Context, handle string, id *int64, taken func(storeID int64, handle string, exceptID int64) (bool, error)) (bool, error) {
	return inStore(ctx, func(sid int64) (bool, error) {
		h := strings.TrimSpace(handle)
		if !models.HandleRE.MatchString(h) || len(h) > models.MaxHandleLength {
			return false, nil
		}
		var except int64
		if id != nil {
			except = *id
		}
		t, err := taken(sid, h, except)
		return !t, err
	})
}
