// Package previews makes and checks preview tokens: short bearer tokens a
// merchant hands to a browser (theirs, a colleague's) so that it sees what
// is not live yet, here a theme's draft. A token names what it opens and
// when it stops working, and is signed (HMAC-SHA256) with a service secret
// kept in the database, so every replica, and every later day, checks the
// tokens any of them made. Nothing is stored per token: the signature is
// the credential, and a token works until its expiry (delete the theme to
// end its previews earlier). An A/B test's arm has tokens too: they force
// that arm for the browser holding one.
package previews

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// KeyName names the service secret (models.ServiceSecret) that signs
// preview tokens.
const KeyName = "preview-token-key"

// The lifetimes a token may be given: the default when none is asked for,
// and the bounds of one asked for.
const (
	DefaultLifetime = 24 * time.Hour
	MinLifetime     = 5 * time.Minute
	MaxLifetime     = 7 * 24 * time.Hour
)

// The purposes of tokens, signed with them: a theme's token opens no
// other kind of preview.
const (
	purposeTheme = "theme"
	purposeArm   = "experiment-arm"
)

// Signer makes and checks tokens with one key.
type Signer struct{ key []byte }

// New is a signer with key, at least 32 bytes.
func New(key []byte) (*Signer, error) {
	if len(key) < 32 {
		return nil, errors.New("previews: the signing key must be at least 32 bytes")
	}
	return &Signer{key: append([]byte(nil), key...)}, nil
}

// Open is the signer of the database's service secret KeyName.
func Open(ctx context.Context, db bun.IDB) (*Signer, error) {
	key, err := models.ServiceSecret(ctx, db, KeyName)
	if err != nil {
		return nil, err
	}
	return New(key)
}

// Theme is what a theme's preview token opens: one theme of one store,
// until Expires.
type Theme struct {
	StoreID int64
	ThemeID int64
	Expires time.Time
}

// ThemeToken is the token of t.
func (s *Signer) ThemeToken(t Theme) string {
	return s.sign(purposeTheme, t.Expires, t.StoreID, t.ThemeID)
}

// CheckTheme reads a theme's preview token: 401 when it is not one of
// ours (altered, cut, made for something else) or has expired.
func (s *Signer) CheckTheme(token string, now time.Time) (Theme, error) {
	ids, expires, err := s.check(purposeTheme, token, 2, now)
	if err != nil {
		return Theme{}, err
	}
	return Theme{StoreID: ids[0], ThemeID: ids[1], Expires: expires}, nil
}

// Arm is what an experiment arm's preview token opens: one arm of one
// experiment of one store, until Expires.
type Arm struct {
	StoreID      int64
	ExperimentID int64
	VariantID    int64
	Expires      time.Time
}

// ArmToken is the token of a.
func (s *Signer) ArmToken(a Arm) string {
	return s.sign(purposeArm, a.Expires, a.StoreID, a.ExperimentID, a.VariantID)
}

// CheckArm reads an arm's preview token: 401 when it is not one of ours
// (altered, cut, made for something else, a theme's) or has expired.
func (s *Signer) CheckArm(token string, now time.Time) (Arm, error) {
	ids, expires, err := s.check(purposeArm, token, 3, now)
	if err != nil {
		return Arm{}, err
	}
	return Arm{StoreID: ids[0], ExperimentID: ids[1], VariantID: ids[2], Expires: expires}, nil
}

// Lifetime is the lifetime a caller asks for in seconds (nil: the
// default), checked against the bounds.
func Lifetime(seconds *int64) (time.Duration, error) {
	if seconds == nil {
		return DefaultLifetime, nil
	}
	if *seconds < int64(MinLifetime/time.Second) || *seconds > int64(MaxLifetime/time.Second) {
		return 0, apperr.Invalidf("expires_in must be between %d and %d seconds (5 minutes to 7 days), got %d",
			int64(MinLifetime/time.Second), int64(MaxLifetime/time.Second), *seconds)
	}
	return time.Duration(*seconds) * time.Second, nil
}

// Expiry is when a token made at now for the lifetime asked for in
// seconds (nil: the default) expires, in whole seconds: a token keeps its
// expiry in seconds, so the expiry answered beside it is the one it has.
func Expiry(now time.Time, seconds *int64) (time.Time, error) {
	lifetime, err := Lifetime(seconds)
	if err != nil {
		return time.Time{}, err
	}
	return now.Add(lifetime).Truncate(time.Second), nil
}

// A token is its ids and its expiry (Unix seconds), each in base 36, then
// its signature: "id.id.expiry.signature". The signature is the first 128
// bits of the HMAC of the purpose and the rest, in base64url: every part
// is safe in a URL's path and query.
func (s *Signer) sign(purpose string, expires time.Time, ids ...int64) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(strconv.FormatInt(id, 36))
		b.WriteByte('.')
	}
	b.WriteString(strconv.FormatInt(expires.Unix(), 36))
	body := b.String()
	return body + "." + s.mac(purpose, body)
}

func (s *Signer) mac(purpose, body string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(purpose + "\x00" + body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// errInvalid is the answer to any token that is not one of ours: the same
// for a forged signature and a made-up token, so neither tells anything.
var errInvalid = apperr.New(apperr.Unauthenticated, "this preview token is not valid: it was altered or copied incompletely; make a new one")

// check verifies token's signature for purpose and reads its n ids and
// expiry; an expired token is refused after its signature is verified, so
// that the message tells the truth only to a token's holder.
func (s *Signer) check(purpose, token string, n int, now time.Time) ([]int64, time.Time, error) {
	cut := strings.LastIndexByte(token, '.')
	if cut < 0 {
		return nil, time.Time{}, errInvalid
	}
	body, sig := token[:cut], token[cut+1:]
	if !hmac.Equal([]byte(s.mac(purpose, body)), []byte(sig)) {
		return nil, time.Time{}, errInvalid
	}
	parts := strings.Split(body, ".")
	if len(parts) != n+1 {
		return nil, time.Time{}, errInvalid
	}
	nums := make([]int64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 36, 64)
		if err != nil {
			return nil, time.Time{}, errInvalid
		}
		nums[i] = v
	}
	expires := time.Unix(nums[n], 0).UTC()
	if !now.Before(expires) {
		return nil, time.Time{}, apperr.New(apperr.Unauthenticated, "this preview token expired at %s: make a new one", expires.Format(time.RFC3339))
	}
	return nums[:n], expires, nil
}

// ArmPath is the storefront surface's call (/storefront/v1) that answers
// a visitor's arms; ArmParam is its query parameter that carries an arm's
// token.
const (
	ArmPath  = "/experiments"
	ArmParam = "preview"
)

// ThemePath is where the storefront surface (/storefront/v1) answers a
// theme's draft for a token: ThemePath + token.
const ThemePath = "/theme-preview/"
