package models

import (
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"storeadmin/internal/base/apperr"
)

// classify turns database errors into client errors where the client caused
// them, by SQLSTATE, never by message text. what names the record for the
// message ("a webhook with this URL").
func classify(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return apperr.NotFoundf("%s was not found", what)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505":
			return apperr.Conflictf("%s already exists", what)
		case "23503":
			return apperr.Invalidf("%s refers to a record that does not exist", what)
		case "22001":
			return apperr.Invalidf("a value of %s is too long", what)
		case "23514":
			// A check the code should have made first (its own field
			// error is better): still the client's input, never a 500.
			return apperr.Invalidf("a value of %s is out of its allowed range", what)
		}
	}
	return err
}

// notFoundIfNone turns an update or delete that touched no row into a
// not-found error.
func notFoundIfNone(res sql.Result, err error, what string) error {
	if err != nil {
		return classify(err, what)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apperr.NotFoundf("%s was not found", what)
	}
	return nil
}

// errNoRows stands for an UPDATE ... RETURNING that matched nothing.
var errNoRows = sql.ErrNoRows
