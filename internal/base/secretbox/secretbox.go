// Package secretbox seals the secrets the service keeps for stores (a
// payment provider's credentials and webhook secret) with AES-256-GCM under
// one key from the environment, so that a copy of the database, a backup or
// a log of its statements holds no secret in clear.
//
// A sealed value is the 12-byte random nonce followed by the ciphertext and
// its tag. Each value is sealed with associated data naming what it is and
// whose (store and record), so a sealed value copied onto another row, or
// another store's, does not open.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
)

// KeySize is the length of a key: 32 bytes, AES-256.
const KeySize = 32

// ErrOpen is the failure to open a sealed value: another key sealed it, it
// was sealed for other associated data, or it was altered.
var ErrOpen = errors.New("secretbox: the value does not open with this key")

// Box seals and opens values under one key.
type Box struct{ aead cipher.AEAD }

// New makes a Box of a KeySize-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, errors.New("secretbox: the key must be 32 bytes")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// ParseKey reads a key as it is written in the environment: 32 bytes in
// standard or URL-safe base64 (with or without padding) or in hex, as
// `openssl rand -base64 32` or `openssl rand -hex 32` print them. The
// message of its error never quotes the text.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*KeySize {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == KeySize {
			return b, nil
		}
	}
	return nil, errors.New("the secrets key must be 32 random bytes written in base64 or hex (openssl rand -base64 32)")
}

// Seal encrypts plaintext for the associated data ad.
func (b *Box) Seal(plaintext, ad []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic("secretbox: no randomness: " + err.Error()) // crypto/rand does not fail on supported systems
	}
	return b.aead.Seal(nonce, nonce, plaintext, ad)
}

// Open decrypts a value Seal made for the same associated data.
func (b *Box) Open(sealed, ad []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, ErrOpen
	}
	out, err := b.aead.Open(nil, sealed[:n], sealed[n:], ad)
	if err != nil {
		return nil, ErrOpen
	}
	return out, nil
}
