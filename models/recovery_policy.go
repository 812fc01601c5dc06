package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
)

// RecoverySurface is the abandonment and recovery policy of one surface
// (carts, or checkouts): AbandonedcartSurface.
type RecoverySurface struct {
	// Mode is off (flagged abandoned, no reminders) or email (reminders
	// follow).
	Mode string `json:"mode"`
	// IdleMinutes without a change before a cart or checkout is abandoned.
	IdleMinutes int `json:"idle_minutes"`
	// DelaysMinutes: each reminder's delay after the abandonment.
	DelaysMinutes []int `json:"delays_minutes"`
	// The optional discount of later reminders: from which step (1-based),
	// its value and type (percentage or fixed_amount), and how many hours
	// its single-use code lasts.
	DiscountEnabled   *bool   `json:"discount_enabled,omitempty"`
	DiscountFromStep  *int    `json:"discount_from_step,omitempty"`
	DiscountTTLHours  *int    `json:"discount_ttl_hours,omitempty"`
	DiscountValue     *int    `json:"discount_value,omitempty"`
	DiscountValueType *string `json:"discount_value_type,omitempty"`
}

// RecoveryPolicy is a store's policy (AbandonedcartPolicy).
type RecoveryPolicy struct {
	Cart     RecoverySurface `json:"cart"`
	Checkout RecoverySurface `json:"checkout"`
}

// Recovery modes.
const (
	RecoveryOff   = "off"
	RecoveryEmail = "email"
)

// DefaultRecoveryPolicy is the policy of a store that has not set one:
// abandoned after an hour idle, reminded an hour and a day later, no
// discount.
func DefaultRecoveryPolicy() RecoveryPolicy {
	return RecoveryPolicy{
		Cart:     RecoverySurface{Mode: RecoveryEmail, IdleMinutes: 60, DelaysMinutes: []int{60, 1440}},
		Checkout: RecoverySurface{Mode: RecoveryEmail, IdleMinutes: 60, DelaysMinutes: []int{60, 1440}},
	}
}

// GetRecoveryPolicy reads the store's policy, or the default.
func GetRecoveryPolicy(ctx context.Context, db bun.IDB, storeID int64) (RecoveryPolicy, error) {
	var raw []byte
	err := db.NewSelect().Table("recovery_settings").Column("policy").Where("store_id = ?", storeID).Scan(ctx, &raw)
	if errors.Is(err, sql.ErrNoRows) {
		return DefaultRecoveryPolicy(), nil
	}
	if err != nil {
		return RecoveryPolicy{}, err
	}
	var p RecoveryPolicy
	if err := json.Unmarshal(raw, &p); err != nil {
		return RecoveryPolicy{}, fmt.Errorf("recovery policy of store %d: %w", storeID, err)
	}
	return p, nil
}
