package models

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"storeadmin/internal/base/apperr"
)

// TestClassifyCheckViolation: a CHECK the code did not make first
// (SQLSTATE 23514) is the client's bad input, a 400, never a 500.
func TestClassifyCheckViolation(t *testing.T) {
	err := classify(&pgconn.PgError{Code: "23514"}, "the print area")
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.Invalid {
		t.Fatalf("classify(23514) = %#v, want a 400", err)
	}
}
