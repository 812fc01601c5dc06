package resolvers

import (
	"context"
	"strings"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/handle"
)

// checkHandle checks the handle of a product or collection a client sent:
// trimmed, then handle.Valid; example shows the shape in the message.
func checkHandle(v, example string) (string, error) {
	h := strings.TrimSpace(v)
	if len(h) > handle.MaxLength {
		return "", apperr.Invalidf("handle must be at most %d characters", handle.MaxLength)
	}
	if !handle.Valid(h) {
		return "", apperr.Invalidf("handle must be lowercase letters, digits and single dashes, such as %s", example)
	}
	return h, nil
}

// handleAvailable reports whether h is well formed and no record of the
// caller's store other than id has it; taken asks the table.
func handleAvailable(ctx context.Context, h string, id *int64, taken func(storeID int64, handle string, exceptID int64) (bool, error)) (bool, error) {
	h = strings.TrimSpace(h)
	return inStore(ctx, func(sid int64) (bool, error) {
		if !handle.Valid(h) {
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
