package auth

import (
	"context"
	"encoding/hex"
	"fmt"
	"testing"

	"storeadmin/models"
)

// kcRunFences plays the listener: it runs each fence requests ask for, and
// says ok for it, until stop is closed.
func kcRunFences(c *keyCache, ok bool, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		if f := c.nextFence(func() {}); f != nil {
			f.finish(ok)
		}
		c.woke()
	}
}

func TestKeyCacheAnswersAfterAFenceOnly(t *testing.T) {
	hash := HashSecret("sa_api_x")
	k := &models.APIKey{ID: 1}
	c := newKeyCache()
	c.add(hash, k, c.generation())
	if got := c.current(context.Background(), hash); got != nil {
		t.Fatal("a cache nobody listens for answered")
	}
	c.listening()
	c.add(hash, k, c.generation())

	stop := make(chan struct{})
	go kcRunFences(c, true, stop)
	if got := c.current(context.Background(), hash); got != k {
		t.Fatalf("after a fence that came back: %v, want the key", got)
	}
	close(stop)

	stop = make(chan struct{})
	go kcRunFences(c, false, stop)
	if got := c.current(context.Background(), hash); got != nil {
		t.Fatal("answered after a failed fence")
	}
	close(stop)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := c.current(ctx, hash); got != nil {
		t.Fatal("answered without a fence for a request that ended")
	}
	c.lost()
	if got := c.current(context.Background(), hash); got != nil || len(c.entries) != 0 {
		t.Fatal("a lost connection left entries behind")
	}
}

// A key read from the database before a notice was handled may be the row
// as it was before the change: it is not stored.
func TestKeyCacheRefusesAFillThatANoticeOvertook(t *testing.T) {
	hash := HashSecret("sa_api_x")
	c := newKeyCache()
	c.listening()
	for name, overtake := range map[string]func(){
		"a notice of the key":   func() { c.changed(hex.EncodeToString(hash)) },
		"a notice of every key": func() { c.changed("") },
		"a lost connection":     func() { c.lost(); c.listening() },
	} {
		gen := c.generation()
		overtake()
		c.add(hash, &models.APIKey{ID: 1}, gen)
		if len(c.entries) != 0 {
			t.Fatalf("%s: the fill was stored", name)
		}
	}
	c.add(hash, &models.APIKey{ID: 1}, c.generation())
	other := HashSecret("sa_api_y")
	c.add(other, &models.APIKey{ID: 2}, c.generation())
	c.changed(hex.EncodeToString(hash))
	if _, kept := c.entries[string(other)]; len(c.entries) != 1 || !kept {
		t.Fatalf("a notice of one key must drop that key only: %d entries", len(c.entries))
	}
}

func TestKeyCacheIsBounded(t *testing.T) {
	c := newKeyCache()
	c.listening()
	for i := range maxCachedKeys + 100 {
		c.add(HashSecret(fmt.Sprint(i)), &models.APIKey{ID: int64(i)}, c.generation())
	}
	if len(c.entries) != maxCachedKeys {
		t.Fatalf("%d entries, want at most %d", len(c.entries), maxCachedKeys)
	}
}
