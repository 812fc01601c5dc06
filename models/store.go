package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Store statuses. A closed store stays readable; it cannot be reopened
// through the API.
const (
	StoreActive = "active"
	StoreClosed = "closed"
)

// Store is a tenant: every other table hangs off one.
type Store struct {
	bun.BaseModel `bun:"table:stores"`

	ID                int64      `bun:"id,pk,autoincrement" json:"id"`
	Handle            string     `bun:"handle" json:"handle"`
	Name              string     `bun:"name" json:"name"`
	Status            string     `bun:"status" json:"status"`
	StorefrontEnabled bool       `bun:"storefront_enabled" json:"storefront_enabled"`
	ContactEmail      string     `bun:"contact_email" json:"contact_email"`
	ContactPhone      string     `bun:"contact_phone" json:"contact_phone"`
	Currency          string     `bun:"currency" json:"currency"`
	Locale            string     `bun:"locale" json:"locale"`
	Timezone          string     `bun:"timezone" json:"timezone"`
	WeightUnit        string     `bun:"weight_unit" json:"weight_unit"`
	OrderNumberPrefix string     `bun:"order_number_prefix" json:"order_number_prefix"`
	OrderNumberSuffix string     `bun:"order_number_suffix" json:"order_number_suffix"`
	Address           any        `bun:"address,type:jsonb" json:"address"`
	ClosedAt          *time.Time `bun:"closed_at" json:"closed_at"`
	CreatedAt         time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt         time.Time  `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// GetStore reads one store.
func GetStore(ctx context.Context, db bun.IDB, storeID int64) (*Store, error) {
	s := new(Store)
	err := db.NewSelect().Model(s).Where("id = ?", storeID).Scan(ctx)
	return s, classify(err, "the store")
}

// GetStoreByHandle reads one store by its handle.
func GetStoreByHandle(ctx context.Context, db bun.IDB, handle string) (*Store, error) {
	s := new(Store)
	err := db.NewSelect().Model(s).Where("handle = ?", handle).Scan(ctx)
	return s, classify(err, "a store with handle "+handle)
}

// CreateStore inserts a store with the defaults of a new one.
func CreateStore(ctx context.Context, db bun.IDB, s *Store) error {
	if s.Status == "" {
		s.Status = StoreActive
		s.StorefrontEnabled = true
	}
	for field, def := range map[*string]string{
		&s.Currency: "USD", &s.Locale: "en", &s.Timezone: "UTC", &s.WeightUnit: "kg", &s.OrderNumberPrefix: "#",
	} {
		if *field == "" {
			*field = def
		}
	}
	if s.Address == nil {
		s.Address = map[string]any{}
	}
	// Only server-set columns come back: bun cannot scan jsonb into an any
	// field that already holds a value.
	_, err := db.NewInsert().Model(s).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "a store with handle "+s.Handle)
}

// UpdateStore writes the given columns of s, which must be open: a closed
// store's profile takes no changes (409). The statement itself checks it,
// so a change that read the store before a concurrent close committed
// cannot undo the close (switch a closed store's storefront back on).
func UpdateStore(ctx context.Context, db bun.IDB, s *Store, columns ...string) error {
	res, err := db.NewUpdate().Model(s).Column(columns...).Set("updated_at = now()").
		Where("id = ? AND status <> ?", s.ID, StoreClosed).Returning("updated_at").Exec(ctx)
	if err != nil {
		return classify(err, "the store")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notOpen(ctx, db, s.ID)
	}
	return nil
}

// CloseStore closes an open store for good at at: its status becomes
// closed and its storefront goes off, in one statement (a closed store,
// or one a concurrent close closed first, is a 409). It returns the store
// as closed.
func CloseStore(ctx context.Context, db bun.IDB, storeID int64, at time.Time) (*Store, error) {
	res, err := db.NewUpdate().Model((*Store)(nil)).
		Set("status = ?, storefront_enabled = false, closed_at = ?, updated_at = now()", StoreClosed, at).
		Where("id = ? AND status <> ?", storeID, StoreClosed).Exec(ctx)
	if err != nil {
		return nil, classify(err, "the store")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, notOpen(ctx, db, storeID)
	}
	return GetStore(ctx, db, storeID)
}

// notOpen is why a change to the store storeID matched no row: it is
// closed (409), or there is no such store (404).
func notOpen(ctx context.Context, db bun.IDB, storeID int64) error {
	if _, err := GetStore(ctx, db, storeID); err != nil {
		return err
	}
	return apperr.Conflictf("the store is closed")
}

// lockStore makes the store's changes that decide which of its records is
// the one (its primary domain, its default checkout page) take turns: it
// takes the store row's lock until db's transaction ends (a row lock, so it
// holds while the store has no such record yet). Without it two first
// records added at once would both be made the one, and one would fail on
// the index that allows one. It is FOR NO KEY UPDATE, so inserts that only
// refer to the store (foreign key checks) do not wait for it.
func lockStore(ctx context.Context, db bun.IDB, storeID int64) error {
	var id int64
	err := db.NewSelect().Table("stores").Column("id").Where("id = ?", storeID).For("NO KEY UPDATE").Scan(ctx, &id)
	return classify(err, "the store")
}
