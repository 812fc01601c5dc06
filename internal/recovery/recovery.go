// Package recovery wins back abandoned carts and checkouts: the reminder
// sequence a store's policy asks for (RunDue, run every minute by a River
// periodic job, Work), the extra reminder a seller sends now (Resend), the
// emails themselves (rendered from the cart or checkout, with a single-use
// discount code from the policy's step on), and the signed links they carry
// (a recovery link that brings the shopper back to their cart, an opt-out
// link that stops every reminder).
package recovery

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/mail"
	"storeadmin/models"
)

// LinkKeyName names the service secret (models.ServiceSecret) that signs
// the links: every replica reads the same one.
const LinkKeyName = "recovery-link-key"

// Config is what the recovery service needs.
type Config struct {
	// Mailer sends the reminders (SMTP or the outbox).
	Mailer *mail.Mailer
	// LinkKey signs recovery and opt-out links (the service secret
	// LinkKeyName: every replica signs alike).
	LinkKey []byte
	// PublicURL is the service's public base URL: links lead to its
	// storefront surface.
	PublicURL string
	// PlatformDomain makes a store's storefront address when it has no
	// active primary domain: https://<handle>.<PlatformDomain>.
	PlatformDomain string
	// Log receives the periodic run's failures. Default: discarded.
	Log *slog.Logger
}

// Service runs the recovery of abandoned carts and checkouts.
type Service struct {
	cfg   Config
	links links
}

// New builds the service.
func New(cfg Config) (*Service, error) {
	if cfg.Mailer == nil {
		return nil, errors.New("recovery: no mailer")
	}
	if len(cfg.LinkKey) < 32 {
		return nil, errors.New("recovery: the link key must be at least 32 bytes")
	}
	if cfg.PlatformDomain == "" {
		return nil, errors.New("recovery: no platform domain")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	cfg.PublicURL = strings.TrimSuffix(cfg.PublicURL, "/")
	return &Service{cfg: cfg, links: links{key: cfg.LinkKey}}, nil
}

// dueBatch is how many due reminders a run reads at a time.
const dueBatch = 100

// RunDue sends every reminder of the store storeID (0: of every store) that
// is due at now (see
// models.DueRecoveryReminders), each in a transaction of its own that
// holds its cart's or checkout's row, and returns how many it recorded
// (sent, outboxed, failed or skipped). A step another replica recorded
// first is left to it. Tests call it with their own clock; the periodic
// job calls it with the wall clock.
func (s *Service) RunDue(ctx context.Context, db bun.IDB, storeID int64, now time.Time) (int, error) {
	return s.runDue(ctx, db, storeID, now, time.Time{})
}

// runDue is RunDue starting no reminder after deadline (zero: none): what
// it did not reach is due in the next run.
func (s *Service) runDue(ctx context.Context, db bun.IDB, storeID int64, now, deadline time.Time) (int, error) {
	done := 0
	for _, kind := range []string{models.RecoveryCheckout, models.RecoveryCart} {
		for {
			due, err := models.DueRecoveryReminders(ctx, db, kind, storeID, now, dueBatch)
			if err != nil {
				return done, err
			}
			recorded := 0
			for _, d := range due {
				if !deadline.IsZero() && time.Now().After(deadline) {
					return done + recorded, nil
				}
				ok, err := s.sendDue(ctx, db, d, now)
				if err != nil {
					return done, err
				}
				if ok {
					recorded++
				}
			}
			done += recorded
			// A batch where nothing could be recorded (all taken by another
			// replica) would be read again as it is: stop there.
			if len(due) < dueBatch || recorded == 0 {
				break
			}
		}
	}
	return done, nil
}

// sendDue records the step d, and reports false when it was no longer due
// once its row was held (recovered, clicked, already recorded).
func (s *Service) sendDue(ctx context.Context, db bun.IDB, d models.DueReminder, now time.Time) (bool, error) {
	recorded := false
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		t, err := models.LockRecoveryTarget(ctx, tx, d.Kind, d.StoreID, d.ID, "")
		if err != nil {
			return err
		}
		// Held now: read again what the finder saw before.
		if due, err := models.RecoveryReminderDue(ctx, tx, d, now); err != nil || !due {
			return err
		}
		policy, err := models.GetRecoveryPolicy(ctx, tx, d.StoreID)
		if err != nil {
			return err
		}
		seq := d.SequenceAt
		m := &models.RecoveryMessage{Step: d.Step, SequenceAt: &seq}
		if reason := skipReason(t); reason != "" {
			m.Status, m.Error = models.RecoverySkipped, reason
			recorded = true
			return s.record(ctx, tx, t, m, now)
		}
		if _, err := s.deliver(ctx, tx, t, m, surface(policy, t.Kind), now); err != nil {
			return err
		}
		recorded = true
		return nil
	})
	if apperr.CodeOf(err) == apperr.NotFound {
		return false, nil // deleted meanwhile
	}
	return recorded, err
}

// skipReason says why a scheduled reminder is not sent to t's shopper:
// they opted out (which always wins) or left no address.
func skipReason(t *models.RecoveryTarget) string {
	switch {
	case t.OptOut:
		return "the shopper opted out of recovery reminders"
	case t.Email == "":
		return "the " + t.Kind + " has no email address"
	}
	return ""
}

// surface is the policy's part for kind.
func surface(p models.RecoveryPolicy, kind string) models.RecoverySurface {
	if kind == models.RecoveryCart {
		return p.Cart
	}
	return p.Checkout
}

// Resend sends one extra reminder about the store's cart or checkout
// (kind) with token now, step 0, whatever the sequence's timing; the
// sequence goes on as scheduled. It refuses (409) what CheckResendable
// refuses, the shopper's opt-out among them; another store's token is not
// found. An SMTP failure writes nothing and is a 502.
func (s *Service) Resend(ctx context.Context, db bun.IDB, kind string, storeID int64, token string, now time.Time) (*models.RecoveryMessage, error) {
	var m *models.RecoveryMessage
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		t, err := models.LockRecoveryTarget(ctx, tx, kind, storeID, 0, token)
		if err != nil {
			return err
		}
		if err := models.CheckResendable(t); err != nil {
			return err
		}
		policy, err := models.GetRecoveryPolicy(ctx, tx, storeID)
		if err != nil {
			return err
		}
		m = &models.RecoveryMessage{Step: 0}
		sent, err := s.deliver(ctx, tx, t, m, surface(policy, kind), now)
		if err != nil {
			return err
		}
		if !sent {
			return apperr.New(apperr.BadGateway, "the mail server did not take the reminder: %s", m.Error)
		}
		return nil
	})
	return m, err
}

// deliver renders and sends m about t, records it, and reports whether it
// went out. A step from the policy's discount step on carries a new
// single-use discount code; a resend carries one when the sequence has
// reached that step. An SMTP failure is recorded as failed, not returned:
// the sequence goes on with its next step.
func (s *Service) deliver(ctx context.Context, tx bun.Tx, t *models.RecoveryTarget, m *models.RecoveryMessage, p models.RecoverySurface, now time.Time) (bool, error) {
	id, err := models.NextRecoveryMessageID(ctx, tx)
	if err != nil {
		return false, err
	}
	m.ID = id
	wants, err := s.wantsDiscount(ctx, tx, t, m, p)
	if err != nil {
		return false, err
	}
	if wants {
		if m.DiscountCode, err = createDiscount(ctx, tx, t.StoreID, p, now); err != nil {
			return false, err
		}
	}
	msg, err := s.render(ctx, tx, t, m, now)
	if err != nil {
		return false, err
	}
	m.ToEmail, m.Subject = msg.To, msg.Subject
	delivery, err := s.cfg.Mailer.Send(ctx, tx, msg)
	switch {
	case err != nil && ctx.Err() != nil:
		return false, ctx.Err()
	case err != nil:
		m.Status, m.Error = models.RecoveryFailed, err.Error()
	default:
		m.Status = string(delivery)
		m.SentAt = &now
	}
	return m.Status != models.RecoveryFailed, s.record(ctx, tx, t, m, now)
}

// wantsDiscount tells whether m gets a discount code under p.
func (s *Service) wantsDiscount(ctx context.Context, tx bun.Tx, t *models.RecoveryTarget, m *models.RecoveryMessage, p models.RecoverySurface) (bool, error) {
	if p.DiscountEnabled == nil || !*p.DiscountEnabled || p.DiscountFromStep == nil {
		return false, nil
	}
	if m.Step > 0 {
		return m.Step >= *p.DiscountFromStep, nil
	}
	reached, err := models.RecoveryStepReached(ctx, tx, t.Kind, t.ID, *t.AbandonedAt)
	return reached >= *p.DiscountFromStep, err
}

// record stores m about t.
func (s *Service) record(ctx context.Context, tx bun.Tx, t *models.RecoveryTarget, m *models.RecoveryMessage, now time.Time) error {
	m.StoreID, m.CreatedAt = t.StoreID, now
	if t.Kind == models.RecoveryCart {
		m.CartID = &t.ID
	} else {
		m.CheckoutID = &t.ID
	}
	if m.ToEmail == "" {
		m.ToEmail = t.Email
	}
	if m.ID == 0 {
		id, err := models.NextRecoveryMessageID(ctx, tx)
		if err != nil {
			return err
		}
		m.ID = id
	}
	return models.InsertRecoveryMessage(ctx, tx, m)
}

// codeAlphabet is what discount codes are made of: no 0/O or 1/I, so that
// a code read aloud or retyped comes out right.
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// createDiscount creates a single-use code discount through the discounts
// area (usage limit 1, lasting the policy's hours) and returns its code.
func createDiscount(ctx context.Context, tx bun.Tx, storeID int64, p models.RecoverySurface, now time.Time) (string, error) {
	if p.DiscountValue == nil || p.DiscountValueType == nil || p.DiscountTTLHours == nil {
		return "", fmt.Errorf("recovery: the discount of store %d's policy is incomplete", storeID)
	}
	b := make([]byte, 10)
	rand.Read(b)
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	one := int64(1)
	end := now.Add(time.Duration(*p.DiscountTTLHours) * time.Hour)
	d := &models.Discount{
		StoreID: storeID, Class: models.DiscountCode, Code: "COMEBACK-" + string(b),
		Type: *p.DiscountValueType, ValueType: *p.DiscountValueType, Value: int64(*p.DiscountValue),
		AppliesTo: models.AppliesToAll, Enabled: true, UsageLimit: &one, StartsAt: &now, EndsAt: &end,
		GetValueType: models.DiscountPercentage, CreatedAt: now, UpdatedAt: now,
		ProductIDs: []int64{}, CollectionIDs: []int64{}, BuyProductIDs: []int64{}, BuyCollectionIDs: []int64{},
		GetProductIDs: []int64{}, GetCollectionIDs: []int64{},
	}
	if err := models.InsertDiscount(ctx, tx, d); err != nil {
		return "", err
	}
	return d.Code, nil
}

// Mail says where reminders go, for the start-up log.
func (s *Service) Mail() string { return s.cfg.Mailer.Describe() }

// Open builds the service as serve runs it: mail through smtpURL (empty:
// the outbox), sent as no-reply@platformDomain unless the URL's from says
// otherwise; links to publicURL signed with the database's service secret
// LinkKeyName, so that every replica signs alike.
func Open(ctx context.Context, db bun.IDB, smtpURL, platformDomain, publicURL string, log *slog.Logger) (*Service, error) {
	mailer, err := mail.New(mail.Config{URL: smtpURL, From: "no-reply@" + platformDomain, Log: log})
	if err != nil {
		return nil, err
	}
	key, err := models.ServiceSecret(ctx, db, LinkKeyName)
	if err != nil {
		return nil, err
	}
	return New(Config{Mailer: mailer, LinkKey: key, PublicURL: publicURL, PlatformDomain: platformDomain, Log: log})
}
