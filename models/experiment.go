package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// A/B tests (migration 20261124210000, README "A/B tests"): a store's
// experiments and their arms, their pauses, the products a price test
// holds, the visitors exposed, the money opt-in, and the platform's pools.

// The kinds of experiment: what the test changes.
const (
	ExperimentKindTheme    = "theme"    // theme settings of the live theme's published version
	ExperimentKindContent  = "content"  // a page's content
	ExperimentKindPrice    = "price"    // products' prices, charged as shown
	ExperimentKindShipping = "shipping" // a shipping rate's price
)

// ExperimentKinds are the kinds, in the order the API lists them.
var ExperimentKinds = []string{ExperimentKindTheme, ExperimentKindContent, ExperimentKindPrice, ExperimentKindShipping}

// The metrics an experiment is decided on: the share of exposed visitors
// who converted (placed an order), added to cart, reached checkout; or
// revenue per session.
const (
	MetricConversion        = "conversion"
	MetricAddToCart         = "add_to_cart"
	MetricCheckout          = "checkout"
	MetricRevenuePerSession = "revenue_per_session"
)

// ExperimentMetrics are the metrics, in the order the API lists them.
var ExperimentMetrics = []string{MetricConversion, MetricAddToCart, MetricCheckout, MetricRevenuePerSession}

// The states of an experiment: draft → running ⇄ paused → ended.
const (
	ExperimentDraft   = "draft"
	ExperimentRunning = "running"
	ExperimentPaused  = "paused"
	ExperimentEnded   = "ended"
)

// The number of arms an experiment has, and the sum of their splits.
const (
	MinExperimentArms = 2
	MaxExperimentArms = 4
	ExperimentSplits  = 100
)

// Experiment is a store's A/B test.
type Experiment struct {
	bun.BaseModel `bun:"table:experiments,alias:ex"`

	ID              int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID         int64      `bun:"store_id" json:"-"`
	Key             string     `bun:"key" json:"key"`
	Name            string     `bun:"name" json:"name"`
	Kind            string     `bun:"kind" json:"kind"`
	Metric          string     `bun:"metric" json:"metric"`
	Surface         any        `bun:"surface,type:jsonb" json:"surface"`
	Status          string     `bun:"status" json:"status"`
	StartedAt       *time.Time `bun:"started_at" json:"started_at"`
	PausedAt        *time.Time `bun:"paused_at" json:"paused_at"`
	PausedReason    string     `bun:"paused_reason" json:"paused_reason"`
	EndedAt         *time.Time `bun:"ended_at" json:"ended_at"`
	WinnerVariantID *int64     `bun:"winner_variant_id" json:"winner_variant_id"`
	PoolKey         *string    `bun:"pool_key" json:"pool_key"`
	CreatedAt       time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt       time.Time  `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// ExperimentVariant is one arm of an experiment; position 1 is the
// control.
type ExperimentVariant struct {
	bun.BaseModel `bun:"table:experiment_variants,alias:ev"`

	ID           int64  `bun:"id,pk,autoincrement" json:"id"`
	StoreID      int64  `bun:"store_id" json:"-"`
	ExperimentID int64  `bun:"experiment_id" json:"-"`
	Position     int64  `bun:"position" json:"position"`
	Key          string `bun:"key" json:"key"`
	Name         string `bun:"name" json:"name"`
	Payload      any    `bun:"payload,type:jsonb" json:"payload"`
	SplitPct     int64  `bun:"split_pct" json:"split_pct"`
}

// ExperimentPauseInterval is one pause of an experiment, an interval of its
// pause_log: To is nil while it lasts.
type ExperimentPauseInterval struct {
	bun.BaseModel `bun:"table:experiment_pauses,alias:ep"`

	ID           int64      `bun:"id,pk,autoincrement" json:"-"`
	StoreID      int64      `bun:"store_id" json:"-"`
	ExperimentID int64      `bun:"experiment_id" json:"-"`
	From         time.Time  `bun:"paused_at" json:"from"`
	To           *time.Time `bun:"resumed_at" json:"to"`
	Reason       *string    `bun:"reason" json:"reason"`
}

// ExperimentExposure is a visitor's first exposure to an experiment.
type ExperimentExposure struct {
	bun.BaseModel `bun:"table:experiment_exposures,alias:ee"`

	ID           int64     `bun:"id,pk,autoincrement"`
	StoreID      int64     `bun:"store_id"`
	ExperimentID int64     `bun:"experiment_id"`
	VariantID    int64     `bun:"variant_id"`
	VisitorID    int64     `bun:"visitor_id"`
	SessionID    int64     `bun:"session_id"`
	ExposedAt    time.Time `bun:"exposed_at"`
}

// MoneyGate says whether the store may run price and shipping tests: both
// its own opt-in and the platform's switch must allow them.
type MoneyGate struct {
	OptIn    bool `json:"opt_in"`
	Platform bool `json:"platform"`
}

// Open tells whether price and shipping tests are allowed.
func (g MoneyGate) Open() bool { return g.OptIn && g.Platform }

// MoneyGateOf is the store's money gate under the platform p.
func MoneyGateOf(ctx context.Context, db bun.IDB, storeID int64, p Platform) (MoneyGate, error) {
	var optIn bool
	err := db.NewRaw("SELECT coalesce((SELECT enabled FROM experiment_money_opt_ins WHERE store_id = ?), false)", storeID).Scan(ctx, &optIn)
	return MoneyGate{OptIn: optIn, Platform: !p.MoneyExperimentsOff}, err
}

// The states of a pool.
const (
	PoolRunning = "running"
	PoolEnded   = "ended"
)

// ExperimentPool is a platform-wide pooled test, the same for every store.
type ExperimentPool struct {
	bun.BaseModel `bun:"table:experiment_pools,alias:xp"`

	Key        string     `bun:"key,pk" json:"key"`
	ID         int64      `bun:"id,autoincrement" json:"-"`
	Name       string     `bun:"name" json:"name"`
	Kind       string     `bun:"kind" json:"kind"`
	Metric     string     `bun:"metric" json:"metric"`
	Surface    any        `bun:"surface,type:jsonb" json:"surface"`
	Status     string     `bun:"status" json:"status"`
	StoreFloor int64      `bun:"store_floor" json:"store_floor"`
	MaxShare   float64    `bun:"max_share" json:"max_share"`
	MinStores  int64      `bun:"min_stores" json:"min_stores"`
	CreatedBy  *int64     `bun:"created_by" json:"created_by"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	StartedAt  *time.Time `bun:"started_at,nullzero,default:now()" json:"started_at"`
	EndedAt    *time.Time `bun:"ended_at" json:"ended_at"`
}

// ExperimentPoolVariant is one arm of a pool.
type ExperimentPoolVariant struct {
	bun.BaseModel `bun:"table:experiment_pool_variants,alias:xpv"`

	PoolKey  string `bun:"pool_key,pk" json:"-"`
	Position int64  `bun:"position,pk" json:"-"`
	Key      string `bun:"key" json:"key"`
	Name     string `bun:"name" json:"name"`
	Payload  any    `bun:"payload,type:jsonb" json:"payload"`
	SplitPct int64  `bun:"split_pct" json:"split_pct"`
	// PoolID is its pool's number, read by the graph's loader.
	PoolID int64 `bun:"pool_id,scanonly" json:"-"`
}
