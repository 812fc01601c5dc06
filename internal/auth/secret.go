package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// secretPrefix marks storeadmin secrets so that secret scanners and people
// recognise a leaked one.
const secretPrefix = "sa_"

// PublishableKind is the kind of a publishable storefront key's secret
// (sa_pub_...).
const PublishableKind = "pub"

// IsPublishable reports whether secret looks like a publishable storefront
// key's.
func IsPublishable(secret string) bool {
	return strings.HasPrefix(secret, secretPrefix+PublishableKind+"_")
}

// NewSecret returns a fresh key secret, its hash for storage and a short hint
// that identifies it without revealing it. Only the hash is ever stored.
func NewSecret(kind string) (secret string, hash []byte, hint string) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error()) // the OS has no entropy: nothing sensible to do
	}
	secret = secretPrefix + kind + "_" + base64.RawURLEncoding.EncodeToString(b)
	return secret, HashSecret(secret), Hint(secret)
}

// HashSecret is the stored form of a secret. The secret carries 256 random
// bits, so a fast hash is enough: there is nothing to brute-force.
func HashSecret(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// Hint shows the kind and the last four characters of a secret.
func Hint(secret string) string {
	kind := secretPrefix
	if rest, ok := strings.CutPrefix(secret, secretPrefix); ok {
		if k, _, ok := strings.Cut(rest, "_"); ok {
			kind = secretPrefix + k + "_"
		}
	}
	if len(secret) < 8 {
		return kind + "…"
	}
	return kind + "…" + secret[len(secret)-4:]
}

// BearerToken extracts the token of an "Authorization: Bearer X" header.
func BearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
