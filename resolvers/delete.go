package resolvers

import (
	"context"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
)

// deleteFunc deletes records of a store by id and returns the ids it
// deleted.
type deleteFunc func(ctx context.Context, storeID int64, ids []int64) ([]int64, error)

// deleteRecord deletes the record id of the caller's store through del
// and notes it in the audit log as kind.
func deleteRecord(ctx context.Context, kind string, id int64, del func(storeID int64) error) (bool, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return false, err
	}
	if err := del(sid); err != nil {
		return false, err
	}
	audit.Touch(ctx, kind, id)
	return true, nil
}

// deleteOne deletes one record of the caller's store; kind names it in the
// audit log and in the not-found error.
func deleteOne(ctx context.Context, kind string, id int64, del deleteFunc) (bool, error) {
	deleted, err := deleteRecords(ctx, kind, []int64{id}, del)
	if err == nil && len(deleted) == 0 {
		err = apperr.NotFoundf("the %s was not found", kind)
	}
	return err == nil, err
}

// bulkDelete deletes the listed records of the caller's store; ids of no
// record of the store are ignored.
func bulkDelete(ctx context.Context, kind string, ids []int64, del deleteFunc) (*graph.BulkResult, error) {
	if err := checkBulkIDs(ids); err != nil {
		return nil, err
	}
	deleted, err := deleteRecords(ctx, kind, ids, del)
	if err != nil {
		return nil, err
	}
	return &graph.BulkResult{Ids: deleted, Count: int64(len(deleted))}, nil
}

func deleteRecords(ctx context.Context, kind string, ids []int64, del deleteFunc) ([]int64, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	deleted, err := del(ctx, sid, ids)
	if err != nil {
		return nil, err
	}
	for _, id := range deleted {
		audit.Touch(ctx, kind, id)
	}
	return deleted, nil
}
