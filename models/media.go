package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Media is an uploaded, verified image of a store.
type Media struct {
	bun.BaseModel `bun:"table:media"`

	ID          int64     `bun:"id,pk,autoincrement" json:"-"`
	StoreID     int64     `bun:"store_id" json:"-"`
	Key         string    `bun:"key" json:"-"`
	Src         string    `bun:"src" json:"src"`
	Filename    string    `bun:"filename" json:"filename"`
	ContentType string    `bun:"content_type" json:"content_type"`
	Width       int64     `bun:"width" json:"width"`
	Height      int64     `bun:"height" json:"height"`
	Thumbhash   string    `bun:"thumbhash" json:"thumbhash"`
	Bytes       int64     `bun:"bytes" json:"bytes"`
	CreatedAt   time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
}

// InsertMedia records an uploaded image.
func InsertMedia(ctx context.Context, db bun.IDB, m *Media) error {
	_, err := db.NewInsert().Model(m).On("CONFLICT (store_id, src) DO NOTHING").Returning("id").Exec(ctx)
	return classify(err, "the image")
}

// MediaBySrc maps the srcs of the store's uploaded images among srcs to
// their records, so product images can carry their size and ThumbHash.
func MediaBySrc(ctx context.Context, db bun.IDB, storeID int64, srcs []string) (map[string]Media, error) {
	out := map[string]Media{}
	if len(srcs) == 0 {
		return out, nil
	}
	var rows []Media
	if err := db.NewSelect().Model(&rows).Where("store_id = ? AND src IN (?)", storeID, bun.List(srcs)).Scan(ctx); err != nil {
		return nil, err
	}
	for _, m := range rows {
		out[m.Src] = m
	}
	return out, nil
}
