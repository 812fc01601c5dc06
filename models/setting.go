package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// StoreSetting is one namespaced key/value setting of a store.
type StoreSetting struct {
	bun.BaseModel `bun:"table:store_settings"`

	StoreID   int64     `bun:"store_id,pk" json:"-"`
	Namespace string    `bun:"namespace,pk" json:"namespace"`
	Key       string    `bun:"key,pk" json:"key"`
	Value     any       `bun:"value,type:jsonb" json:"value"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// StoreSettingRef names a setting.
type StoreSettingRef struct {
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
}

// SettingFilter narrows a settings list.
type SettingFilter struct {
	Namespace *string
}

func (f SettingFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f.Namespace != nil {
		q = q.Where("namespace = ?", *f.Namespace)
	}
	return q
}

// ListSettings lists a store's settings by namespace and key.
func ListSettings(ctx context.Context, db bun.IDB, storeID int64, f SettingFilter, p Paging) ([]StoreSetting, error) {
	var out []StoreSetting
	q := db.NewSelect().Model(&out).Where("store_id = ?", storeID).Apply(f.apply).
		Order("namespace", "key")
	err := p.Apply(q).Scan(ctx)
	return out, err
}

// CountSettings counts what ListSettings would list without paging.
func CountSettings(ctx context.Context, db bun.IDB, storeID int64, f SettingFilter) (int64, error) {
	return db.NewSelect().Model((*StoreSetting)(nil)).Where("store_id = ?", storeID).Apply(f.apply).Count(ctx)
}

// PutSetting creates or replaces one setting.
func PutSetting(ctx context.Context, db bun.IDB, s *StoreSetting) error {
	_, err := db.NewInsert().Model(s).
		On("CONFLICT (store_id, namespace, key) DO UPDATE").
		Set("value = EXCLUDED.value").Set("updated_at = now()").
		Exec(ctx)
	return err
}
