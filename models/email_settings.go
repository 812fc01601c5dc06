package models

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode"

	"github.com/uptrace/bun"
)

// EmailSettings is how the store's emails to shoppers are sent: the name
// they come from and the address replies go to.
type EmailSettings struct {
	bun.BaseModel `bun:"table:email_settings"`

	StoreID   int64     `bun:"store_id,pk" json:"-"`
	FromName  string    `bun:"from_name" json:"from_name"`
	ReplyTo   string    `bun:"reply_to" json:"reply_to"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()" json:"-"`
}

// GetEmailSettings reads the store's email settings. A store that never
// set them gets the defaults, which follow its profile: its name as the
// sender's name and its contact email (empty when it has none) as the
// reply-to address.
func GetEmailSettings(ctx context.Context, db bun.IDB, storeID int64) (*EmailSettings, error) {
	es := new(EmailSettings)
	err := db.NewSelect().Model(es).Where("store_id = ?", storeID).Scan(ctx)
	if !errors.Is(err, sql.ErrNoRows) {
		return es, err
	}
	return defaultEmailSettings(ctx, db, storeID)
}

// defaultEmailSettings are the settings of a store that never set them.
// The store's name becomes the sender's name on one line: a name stored
// with a line break must not carry it into a From header.
func defaultEmailSettings(ctx context.Context, db bun.IDB, storeID int64) (*EmailSettings, error) {
	s, err := GetStore(ctx, db, storeID)
	if err != nil {
		return nil, err
	}
	name := strings.Join(strings.FieldsFunc(s.Name, func(r rune) bool { return BreaksHeader(r) || unicode.IsSpace(r) }), " ")
	return &EmailSettings{StoreID: storeID, FromName: name, ReplyTo: s.ContactEmail}, nil
}

// BreaksHeader tells the characters an email header value must not hold:
// control characters (CR and LF among them) and Unicode's line and
// paragraph separators.
func BreaksHeader(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp)
}

// UpdateEmailSettings sets the fields of the store's email settings that
// are not nil, in one statement: a store that never set them starts from
// the defaults, and two changes of different fields at once both hold.
func UpdateEmailSettings(ctx context.Context, db bun.IDB, storeID int64, fromName, replyTo *string) (*EmailSettings, error) {
	def, err := defaultEmailSettings(ctx, db, storeID)
	if err != nil {
		return nil, err
	}
	es := new(EmailSettings)
	err = db.NewRaw(`
		INSERT INTO email_settings AS es (store_id, from_name, reply_to) VALUES (?, coalesce(?, ?), coalesce(?, ?))
		ON CONFLICT (store_id) DO UPDATE SET
		  from_name = coalesce(?, es.from_name), reply_to = coalesce(?, es.reply_to), updated_at = now()
		RETURNING es.*`, storeID, fromName, def.FromName, replyTo, def.ReplyTo, fromName, replyTo).Scan(ctx, es)
	return es, classify(err, "the email settings")
}

// HasEmailSettings tells whether the store has set its email settings.
func HasEmailSettings(ctx context.Context, db bun.IDB, storeID int64) (bool, error) {
	return db.NewSelect().Model((*EmailSettings)(nil)).Where("store_id = ?", storeID).Exists(ctx)
}
