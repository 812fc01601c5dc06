package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Domain is a custom domain of a store: a hostname (lower-case ASCII, the
// IDNA form) its storefront answers on once its DNS records lead to the
// platform. A hostname belongs to one store in the whole service, and a
// store has at most one primary domain.
type Domain struct {
	bun.BaseModel `bun:"table:domains,alias:d"`

	ID        int64  `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64  `bun:"store_id" json:"-"`
	Hostname  string `bun:"hostname" json:"hostname"`
	IsPrimary bool   `bun:"is_primary" json:"is_primary"`
	// Status is DomainPending, DomainActive or DomainFailed.
	Status string `bun:"status" json:"status"`
	// VerificationToken is the value of the TXT record that proves the
	// store controls the hostname's DNS.
	VerificationToken string `bun:"verification_token" json:"-"`
	// DNSCheck is what the last check found; nil before the first.
	DNSCheck *DomainDNSCheck `bun:"dns_check,type:jsonb" json:"dns_check"`
	// LastError says what the last check found wrong; empty when nothing.
	LastError string `bun:"last_error" json:"last_error"`
	// SSLStatus is SSLPending, SSLReady or SSLFailed.
	SSLStatus string `bun:"ssl_status" json:"ssl_status"`
	// VerifiedAt is when a check first found its TXT record: the store's
	// control of the hostname is proved, and the record may go.
	VerifiedAt *time.Time `bun:"verified_at" json:"verified_at"`
	CheckedAt  *time.Time `bun:"checked_at" json:"checked_at"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt  time.Time  `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// A domain's status.
const (
	// DomainPending: not yet found pointing here with its TXT record.
	DomainPending = "pending"
	// DomainActive: its records lead here and its ownership was proved.
	DomainActive = "active"
	// DomainFailed: an active domain found pointing elsewhere, or a
	// pending one not verified within DomainVerifyWindow. The periodic
	// checks leave it alone; verifying it again (once fixed) revives it.
	DomainFailed = "failed"
)

// A domain's ssl_status: whether a certificate can be issued for it.
const (
	// SSLPending: the domain is not active, so no certificate can be
	// obtained for it yet.
	SSLPending = "pending"
	// SSLReady: the domain is active, so the TLS edge at the platform's
	// target can obtain its certificate (its ACME HTTP-01 challenge reaches
	// the platform).
	SSLReady = "ready"
	// SSLFailed: the domain failed; its certificate can no longer be
	// obtained or renewed.
	SSLFailed = "failed"
)

// DomainVerifyWindow is how long a new domain stays pending while its
// records are missing or wrong; a check after that fails it.
const DomainVerifyWindow = 72 * time.Hour

// DomainDNSCheck is where the last check found a hostname pointing.
type DomainDNSCheck struct {
	// State is DNSPointed, DNSElsewhere, DNSMissing or DNSUnreachable.
	State string `json:"state"`
	// Points are what the hostname leads to: its CNAME's target, or its
	// addresses (A and AAAA); nil when it has none.
	Points []string `json:"points,omitempty"`
	// Detail says it in words.
	Detail string `json:"detail"`
}

// A DNS check's state.
const (
	// DNSPointed: the hostname leads to the platform's target.
	DNSPointed = "pointed"
	// DNSElsewhere: the hostname has records, but they lead elsewhere.
	DNSElsewhere = "elsewhere"
	// DNSMissing: the hostname does not exist or has no address.
	DNSMissing = "missing"
	// DNSUnreachable: the resolver did not answer (a timeout, a failure);
	// nothing can be concluded, so the domain's status stays.
	DNSUnreachable = "unreachable"
)

// DomainDNSRecord is a DNS record a domain needs: what the seller creates
// at their DNS provider.
type DomainDNSRecord struct {
	Type  string `json:"type"`  // A, AAAA, CNAME or TXT
	Name  string `json:"name"`  // the record's full name
	Value string `json:"value"` // the address, target host or text
	// Purpose is "routing" (leads the hostname to the platform) or
	// "verification" (proves the store controls the hostname's DNS).
	Purpose string `json:"purpose"`
	// Note is advice for the seller; nil when none.
	Note *string `json:"note"`
}

// The purposes of a DomainDNSRecord.
const (
	RecordRouting      = "routing"
	RecordVerification = "verification"
)

// DomainCheck is what one look-up of a domain's records found.
type DomainCheck struct {
	// DNS is where the hostname points (the domain's dns_check).
	DNS DomainDNSCheck
	// Owned: the TXT record holds the domain's token.
	Owned bool
	// TXT says, when not Owned, what the TXT look-up found instead.
	TXT string
}

// problem is what the check found wrong with d, in words (its
// last_error): where it points, unless it points here, and its TXT record
// while its ownership is not yet proved; empty when nothing.
func (c DomainCheck) problem(d *Domain) string {
	var out []string
	if c.DNS.State != DNSPointed {
		out = append(out, c.DNS.Detail)
	}
	if c.DNS.State != DNSUnreachable && !c.Owned && d.VerifiedAt == nil {
		out = append(out, c.TXT)
	}
	return strings.Join(out, "; ")
}

// passed tells a check that finds the domain ready to serve: pointing
// here, and owned (now, or proved before).
func (c DomainCheck) passed(d *Domain) bool {
	return c.DNS.State == DNSPointed && (c.Owned || d.VerifiedAt != nil)
}

// ListDomains lists a store's domains: the primary first, then by age.
func ListDomains(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]Domain, error) {
	var out []Domain
	q := db.NewSelect().Model(&out).Apply(p.Columns.Apply).Where("d.store_id = ?", storeID).
		OrderExpr("d.is_primary DESC, d.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountDomains counts a store's domains.
func CountDomains(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*Domain)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// GetDomain reads one domain of the store.
func GetDomain(ctx context.Context, db bun.IDB, storeID, id int64) (*Domain, error) {
	d := new(Domain)
	err := db.NewSelect().Model(d).Where("d.store_id = ? AND d.id = ?", storeID, id).Scan(ctx)
	return d, classify(err, "the domain")
}

// NewDomainToken makes a domain's verification token: 128 random bits.
func NewDomainToken() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// CreateDomain adds a pending domain to the store, in tx; d needs its
// StoreID and Hostname, and gets a VerificationToken when it has none. The
// store's first domain becomes its primary. A hostname that any store has
// already is a conflict.
func CreateDomain(ctx context.Context, tx bun.Tx, d *Domain) error {
	if err := lockStore(ctx, tx, d.StoreID); err != nil {
		return err
	}
	hasPrimary, err := tx.NewSelect().Model((*Domain)(nil)).Where("store_id = ? AND is_primary", d.StoreID).Exists(ctx)
	if err != nil {
		return err
	}
	d.IsPrimary = !hasPrimary
	d.Status, d.SSLStatus = DomainPending, SSLPending
	if d.VerificationToken == "" {
		d.VerificationToken = NewDomainToken()
	}
	_, err = tx.NewInsert().Model(d).Returning("*").Exec(ctx)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "domains_hostname_key" {
		return apperr.Conflictf("%s is already connected to a store; remove it there first (a hostname belongs to one store)", d.Hostname)
	}
	return classify(err, "the domain")
}

// SetPrimaryDomain makes the domain id the store's primary, in tx: the
// previous primary stops being one in the same transaction.
func SetPrimaryDomain(ctx context.Context, tx bun.Tx, storeID, id int64) error {
	if err := lockStore(ctx, tx, storeID); err != nil {
		return err
	}
	if _, err := GetDomain(ctx, tx, storeID, id); err != nil {
		return err
	}
	// Two statements: the one-primary index is checked row by row, so one
	// UPDATE swapping both could meet two primaries half-way.
	if _, err := tx.NewUpdate().Model((*Domain)(nil)).Set("is_primary = false, updated_at = now()").
		Where("store_id = ? AND is_primary AND id <> ?", storeID, id).Exec(ctx); err != nil {
		return err
	}
	_, err := tx.NewUpdate().Model((*Domain)(nil)).Set("is_primary = true, updated_at = now()").
		Where("store_id = ? AND id = ? AND NOT is_primary", storeID, id).Exec(ctx)
	return err
}

// DeleteDomain removes the domain id of the store, in tx. When it was the
// primary, the oldest active domain left becomes primary, or, when none is
// active, the oldest left; removing the last domain leaves none.
func DeleteDomain(ctx context.Context, tx bun.Tx, storeID, id int64) error {
	if err := lockStore(ctx, tx, storeID); err != nil {
		return err
	}
	var wasPrimary bool
	err := tx.NewDelete().Model((*Domain)(nil)).Where("store_id = ? AND id = ?", storeID, id).
		Returning("is_primary").Scan(ctx, &wasPrimary)
	if err != nil || !wasPrimary {
		return classify(err, "the domain")
	}
	next := tx.NewSelect().Model((*Domain)(nil)).Column("id").Where("store_id = ?", storeID).
		OrderExpr("status = ? DESC, id", DomainActive).Limit(1)
	_, err = tx.NewUpdate().Model((*Domain)(nil)).Set("is_primary = true, updated_at = now()").
		Where("id = (?)", next).Exec(ctx)
	return err
}

// RecordDomainCheck stores what a check of the domain id found, at now, and
// moves its status (and ssl_status) by it, in tx (the domain's row locked):
//   - a check that finds its TXT record sets verified_at, the first time;
//   - a check that finds it pointing here and owned (now, or proved
//     before) makes it active;
//   - an unreachable resolver proves nothing: the status stays;
//   - otherwise an active domain fails, and a pending one fails once it
//     has been pending longer than DomainVerifyWindow.
//
// It returns the domain as stored.
func RecordDomainCheck(ctx context.Context, tx bun.Tx, storeID, id int64, c DomainCheck, now time.Time) (*Domain, error) {
	d := new(Domain)
	err := tx.NewSelect().Model(d).Where("d.store_id = ? AND d.id = ?", storeID, id).For("UPDATE").Scan(ctx)
	if err != nil {
		return nil, classify(err, "the domain")
	}
	if c.Owned && d.VerifiedAt == nil {
		d.VerifiedAt = &now
	}
	switch {
	case c.passed(d):
		d.Status, d.SSLStatus = DomainActive, SSLReady
	case c.DNS.State == DNSUnreachable:
	case d.Status == DomainActive, d.Status == DomainPending && now.Sub(d.CreatedAt) > DomainVerifyWindow:
		d.Status, d.SSLStatus = DomainFailed, SSLFailed
	}
	dns := c.DNS
	d.DNSCheck, d.LastError, d.CheckedAt = &dns, c.problem(d), &now
	_, err = tx.NewUpdate().Model(d).Column("status", "ssl_status", "verified_at", "dns_check", "last_error", "checked_at").
		Set("updated_at = now()").WherePK().Returning("updated_at").Exec(ctx)
	return d, err
}

// DueDomains are the domains of every store that the periodic check looks
// at: pending and active ones not checked since before, oldest check
// first (never checked before all), at most limit. It is the one read
// across stores: the check is the service's, not a store's.
func DueDomains(ctx context.Context, db bun.IDB, before time.Time, limit int64) ([]Domain, error) {
	var out []Domain
	err := db.NewSelect().Model(&out).
		Where("d.status IN (?, ?) AND (d.checked_at IS NULL OR d.checked_at < ?)", DomainPending, DomainActive, before).
		OrderExpr("d.checked_at NULLS FIRST, d.id").Limit(limit).Scan(ctx)
	return out, err
}
