package secretbox

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

func TestSealOpens(t *testing.T) {
	key := bytes.Repeat([]byte{7}, KeySize)
	box, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	secret := []byte(`{"secret_key":"sk_live_planted"}`)
	ad := []byte("payment credentials store=1 provider=card")
	a, b := box.Seal(secret, ad), box.Seal(secret, ad)
	if bytes.Equal(a, b) {
		t.Fatal("two seals of one value are equal: the nonce is not random")
	}
	if bytes.Contains(a, []byte("sk_live_planted")) {
		t.Fatal("the sealed value holds the secret in clear")
	}
	got, err := box.Open(a, ad)
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("open: %q, %v", got, err)
	}
	// Another record's associated data, another key, a flipped byte or a
	// short value do not open.
	if _, err := box.Open(a, []byte("payment credentials store=2 provider=card")); err != ErrOpen {
		t.Errorf("another store's associated data: %v", err)
	}
	other, _ := New(bytes.Repeat([]byte{8}, KeySize))
	if _, err := other.Open(a, ad); err != ErrOpen {
		t.Errorf("another key: %v", err)
	}
	flipped := bytes.Clone(a)
	flipped[len(flipped)-1] ^= 1
	if _, err := box.Open(flipped, ad); err != ErrOpen {
		t.Errorf("a flipped byte: %v", err)
	}
	if _, err := box.Open(a[:5], ad); err != ErrOpen {
		t.Errorf("a short value: %v", err)
	}
	if _, err := New(key[:16]); err == nil {
		t.Error("a 16-byte key was taken")
	}
}

func TestParseKey(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	for name, text := range map[string]string{
		"base64":     base64.StdEncoding.EncodeToString(key),
		"raw base64": base64.RawStdEncoding.EncodeToString(key),
		"url base64": base64.URLEncoding.EncodeToString(key),
		"hex":        hex.EncodeToString(key),
		"spaced":     " " + base64.StdEncoding.EncodeToString(key) + "\n",
	} {
		got, err := ParseKey(text)
		if err != nil || !bytes.Equal(got, key) {
			t.Errorf("%s: %x, %v", name, got, err)
		}
	}
	for name, text := range map[string]string{
		"empty":     "",
		"short":     base64.StdEncoding.EncodeToString(key[:16]),
		"plaintext": "correct horse battery staple",
	} {
		_, err := ParseKey(text)
		if err == nil {
			t.Errorf("%s: taken", name)
			continue
		}
		if text != "" && strings.Contains(err.Error(), text) {
			t.Errorf("%s: the message quotes the key: %v", name, err)
		}
	}
}
