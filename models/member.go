package models

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Member statuses: invited members have not signed in yet.
const (
	MemberActive  = "active"
	MemberInvited = "invited"
)

// User is a person who can sign in to the dashboard of one or more stores.
type User struct {
	bun.BaseModel `bun:"table:users"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	Email     string    `bun:"email" json:"email"`
	Name      string    `bun:"name" json:"name"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
}

// StoreMember is a user's membership of a store.
type StoreMember struct {
	bun.BaseModel `bun:"table:store_members,alias:m"`

	StoreID   int64     `bun:"store_id,pk" json:"-"`
	UserID    int64     `bun:"user_id,pk" json:"user_id"`
	Role      string    `bun:"role" json:"role"`
	Status    string    `bun:"status" json:"status"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()" json:"-"`

	// Read from users with the membership.
	Email string `bun:"email,scanonly" json:"email"`
	Name  string `bun:"name,scanonly" json:"name"`
}

func memberQuery(db bun.IDB, storeID int64, dest any) *bun.SelectQuery {
	return db.NewSelect().Model(dest).
		ColumnExpr("m.*, u.email, u.name").
		Join("JOIN users AS u ON u.id = m.user_id").
		Where("m.store_id = ?", storeID)
}

// ListMembers lists a store's members, owners first.
func ListMembers(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]StoreMember, error) {
	var out []StoreMember
	q := memberQuery(db, storeID, &out).
		OrderExpr("CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, lower(u.email)")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountMembers counts a store's members.
func CountMembers(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*StoreMember)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// GetMember reads one membership.
func GetMember(ctx context.Context, db bun.IDB, storeID, userID int64) (*StoreMember, error) {
	m := new(StoreMember)
	err := memberQuery(db, storeID, m).Where("m.user_id = ?", userID).Scan(ctx)
	return m, classify(err, "the member")
}

// EnsureUser finds the user with email or creates one. created says which.
func EnsureUser(ctx context.Context, db bun.IDB, email, name string) (u *User, created bool, err error) {
	u = &User{Email: strings.TrimSpace(email), Name: strings.TrimSpace(name)}
	res, err := db.NewInsert().Model(u).On("CONFLICT (lower(email)) DO NOTHING").Returning("*").Exec(ctx)
	if err != nil {
		return nil, false, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return u, true, nil
	}
	err = db.NewSelect().Model(u).Where("lower(email) = lower(?)", u.Email).Scan(ctx)
	return u, false, err
}

// AddMember makes user a member of the store; an existing membership is
// left as it is and reported as a conflict.
func AddMember(ctx context.Context, db bun.IDB, m *StoreMember) error {
	_, err := db.NewInsert().Model(m).Exec(ctx)
	return classify(err, "a member with this email")
}

// SetMemberRole changes a member's role.
func SetMemberRole(ctx context.Context, db bun.IDB, storeID, userID int64, role string) error {
	res, err := db.NewUpdate().Model((*StoreMember)(nil)).Set("role = ?", role).Set("updated_at = now()").
		Where("store_id = ? AND user_id = ?", storeID, userID).Exec(ctx)
	return notFoundIfNone(res, err, "the member")
}

// RemoveMember ends a membership.
func RemoveMember(ctx context.Context, db bun.IDB, storeID, userID int64) error {
	res, err := db.NewDelete().Model((*StoreMember)(nil)).
		Where("store_id = ? AND user_id = ?", storeID, userID).Exec(ctx)
	return notFoundIfNone(res, err, "the member")
}

// UsersByID loads the store's members among ids, for a dataloader. A user
// is seen through a store only while a member of it: the creator of a key
// who has left the store, or who belongs to another, is not loaded.
func UsersByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]User, error) {
	out := make([]User, 0, len(ids)) // at most one row per id
	err := db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("id IN (?) AND EXISTS (SELECT 1 FROM store_members AS m WHERE m.store_id = ? AND m.user_id = ?TableAlias.id)", bun.List(ids), storeID).
		Scan(ctx)
	return out, err
}
