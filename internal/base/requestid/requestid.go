// Package requestid names the id of a request, for answers and logs.
package requestid

import (
	"context"

	"github.com/go-chi/chi/v5/middleware"
)

// FromContext is the id of ctx's request (chi's middleware.RequestID gives
// each request one); empty outside a request.
func FromContext(ctx context.Context) string { return middleware.GetReqID(ctx) }
