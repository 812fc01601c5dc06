package recovery

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// LinkLifetime is how long a reminder's links work after it was sent.
const LinkLifetime = 30 * 24 * time.Hour

// The link purposes, signed with the token: a recovery link's signature
// does not open the opt-out, nor the other way round.
const (
	purposeRecover = "recover"
	purposeOptOut  = "opt-out"
)

// The storefront surface's paths of the links (under /storefront/v1).
const (
	RecoverPath = "/recover/"
	OptOutPath  = "/opt-out/"
)

// links signs and checks the links of reminders. A token is the reminder's
// id and the link's expiry (base 36, "id.expiry"); its signature is an
// HMAC-SHA256 of the purpose and the token, 128 bits in base64url. The
// signature is the credential: the links need no key.
type links struct{ key []byte }

func (l links) sign(purpose, token string) string {
	mac := hmac.New(sha256.New, l.key)
	mac.Write([]byte(purpose + "\x00" + token))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
}

// link is the storefront surface's link of purpose for message id.
func (s *Service) link(path, purpose string, id int64, now time.Time) string {
	token := strconv.FormatInt(id, 36) + "." + strconv.FormatInt(now.Add(LinkLifetime).Unix(), 36)
	return s.cfg.PublicURL + "/storefront/v1" + path + token + "?sig=" + s.links.sign(purpose, token)
}

// errBadLink is the answer to any link that is not one of ours: the same
// for a forged signature and a made-up token, so neither tells anything.
var errBadLink = apperr.NotFoundf("this link is not valid; it may have been copied incompletely")

// check verifies a link's token and signature and returns its message id
// and whether it has expired.
func (l links) check(purpose, token, sig string, now time.Time) (int64, bool, error) {
	want := l.sign(purpose, token)
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return 0, false, errBadLink
	}
	idText, expText, ok := strings.Cut(token, ".")
	id, err1 := strconv.ParseInt(idText, 36, 64)
	exp, err2 := strconv.ParseInt(expText, 36, 64)
	if !ok || err1 != nil || err2 != nil {
		return 0, false, errBadLink
	}
	return id, now.Unix() > exp, nil
}

// Follow serves a recovery link: it checks the signature, records the
// click (which stops the rest of the reminder's sequence: the shopper is
// back) and returns where to send the shopper: their cart or checkout on
// the store's storefront, with the reminder's discount code when it had
// one. An expired link records nothing and leads to the storefront's home
// page.
func (s *Service) Follow(ctx context.Context, db bun.IDB, token, sig string, now time.Time) (string, error) {
	id, expired, err := s.links.check(purposeRecover, token, sig, now)
	if err != nil {
		return "", err
	}
	m, err := models.GetRecoveryMessage(ctx, db, id)
	if apperr.CodeOf(err) == apperr.NotFound {
		return "", errBadLink // its store was deleted
	}
	if err != nil {
		return "", err
	}
	base, err := s.storefrontBase(ctx, db, m.StoreID)
	if err != nil || expired {
		return base + "/", err
	}
	var to string
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		t, err := models.LockRecoveryTarget(ctx, tx, m.Kind(), m.StoreID, m.TargetID(), "")
		if err != nil {
			return err
		}
		to = base + "/cart/" + url.PathEscape(t.Token)
		if t.Kind == models.RecoveryCheckout {
			to = base + "/checkouts/" + url.PathEscape(t.Token)
		}
		if m.DiscountCode != "" {
			to += "?discount=" + url.QueryEscape(m.DiscountCode)
		}
		return models.MarkRecoveryClicked(ctx, tx, m.ID, now)
	})
	if apperr.CodeOf(err) == apperr.NotFound {
		return base + "/", nil // the cart is gone: the store's home
	}
	return to, err
}

// OptOut serves an opt-out link: it checks the signature and records that
// the shopper wants no more reminders, on the reminder's cart or checkout
// and what it is linked to. It works however old the link is: an opt-out
// must never fail because the email sat unread. It returns the store's
// name for the page that confirms it.
func (s *Service) OptOut(ctx context.Context, db bun.IDB, token, sig string) (string, error) {
	id, _, err := s.links.check(purposeOptOut, token, sig, time.Time{})
	if err != nil {
		return "", err
	}
	m, err := models.GetRecoveryMessage(ctx, db, id)
	if apperr.CodeOf(err) == apperr.NotFound {
		return "", errBadLink
	}
	if err != nil {
		return "", err
	}
	if err := models.OptOutOfRecovery(ctx, db, m.Kind(), m.StoreID, m.TargetID()); err != nil {
		return "", err
	}
	st, err := models.GetStore(ctx, db, m.StoreID)
	if err != nil {
		return "", err
	}
	return st.Name, nil
}

// storefrontBase is the store's storefront address: its active primary
// domain, else https://<handle>.<platform domain>.
func (s *Service) storefrontBase(ctx context.Context, db bun.IDB, storeID int64) (string, error) {
	host, err := models.ActiveStorefrontDomain(ctx, db, storeID)
	if err != nil {
		return "", err
	}
	if host == "" {
		st, err := models.GetStore(ctx, db, storeID)
		if err != nil {
			return "", err
		}
		host = st.Handle + "." + s.cfg.PlatformDomain
	}
	return "https://" + host, nil
}

// CheckOptOutLink checks an opt-out link's signature and returns its
// message id, for the page that asks the shopper to confirm.
func (s *Service) CheckOptOutLink(token, sig string) (int64, error) {
	id, _, err := s.links.check(purposeOptOut, token, sig, time.Time{})
	return id, err
}
