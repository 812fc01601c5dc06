package auth

import (
	"context"
	"encoding/hex"
	"sync"

	"storeadmin/models"
)

// maxCachedKeys bounds the cache. Only keys that were valid when read are
// kept, so nobody grows it by sending made-up secrets; past the bound an
// arbitrary entry makes room, and its key is read again on its next use.
const maxCachedKeys = 10_000

// keyCache holds the active keys this process has read, by secret hash, and
// answers for one only once it has proved the entry current.
//
// The proof is a fence: a round trip on the listener's connection that
// starts after the asking request arrived. PostgreSQL sends a listening
// session the notices of every transaction committed before it answers a
// query (the committing backend signals it before its own client hears of
// the commit, and the listener's backend forwards what it was signalled for
// ahead of its next ReadyForQuery), and the trigger on api_keys sends one in
// the changing transaction. So when the fence returns, every change
// committed before the request arrived has dropped its entry. Requests
// waiting at the same moment share one round trip, which is an empty query:
// no statement, no transaction, no pool connection.
//
// Without a listening connection the cache is empty and answers nothing:
// notices sent while nobody listened are lost, so entries are dropped when
// the connection goes and filling starts again only once LISTEN has run.
type keyCache struct {
	mu      sync.Mutex
	entries map[string]*models.APIKey
	// gen changes with every notice and every loss or gain of the
	// connection. A request that read a key from the database stores it only
	// if gen is what it was before the read: a notice handled in between may
	// be about the very row it read, as it was before the change.
	gen uint64
	// live is set while the listener's connection is listening.
	live bool
	// waiting collects the requests for the next fence; interrupt wakes
	// the listener from waiting for a notice to run it.
	waiting   *fence
	interrupt context.CancelFunc
}

// fence is one round trip that requests wait for; ok says it came back.
type fence struct {
	done chan struct{}
	ok   bool
}

func (f *fence) finish(ok bool) {
	f.ok = ok
	close(f.done)
}

func newKeyCache() *keyCache {
	return &keyCache{entries: map[string]*models.APIKey{}}
}

// current returns the cached key of hash once a fence that started after
// the call has come back, or nil when there is none, the fence failed or ctx
// ended first: the caller then reads the database.
func (c *keyCache) current(ctx context.Context, hash []byte) *models.APIKey {
	c.mu.Lock()
	if c.entries[string(hash)] == nil {
		c.mu.Unlock()
		return nil
	}
	f := c.waiting
	if f == nil {
		f = &fence{done: make(chan struct{})}
		c.waiting = f
		if c.interrupt != nil {
			c.interrupt()
			c.interrupt = nil
		}
	}
	c.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil
	}
	if !f.ok {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[string(hash)]
}

// generation is what a request notes before it reads a key from the
// database, to store it afterwards with add.
func (c *keyCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// add keeps k, read after generation returned gen, unless a notice or a
// change of connection came in between or nobody is listening.
func (c *keyCache) add(hash []byte, k *models.APIKey, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || gen != c.gen {
		return
	}
	if len(c.entries) >= maxCachedKeys {
		for h := range c.entries {
			delete(c.entries, h)
			break
		}
	}
	c.entries[string(hash)] = k
}

// changed handles a notice of the api_keys trigger: the hex of the changed
// key's secret hash, or "" for every key.
func (c *keyCache) changed(payload string) {
	hash, err := hex.DecodeString(payload)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if payload == "" || err != nil {
		clear(c.entries)
		return
	}
	delete(c.entries, string(hash))
}

// listening marks the cache trusted: LISTEN has run on a new connection.
// Nothing is cached yet (lost emptied it), and fills that started before
// are refused.
func (c *keyCache) listening() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.live = true
}

// lost marks the cache untrusted: the connection is gone, and with it the
// notices sent until the next LISTEN. Every entry goes, the requests
// waiting for a fence read the database, and so does everyone until
// listening.
func (c *keyCache) lost() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.live = false
	clear(c.entries)
	if c.waiting != nil {
		c.waiting.finish(false)
		c.waiting = nil
	}
	c.interrupt = nil
}

// nextFence is the listener's turn: the fence requests are waiting for, or
// nil, in which case the listener waits for a notice and cancel is how a
// request wakes it.
func (c *keyCache) nextFence(cancel context.CancelFunc) *fence {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.waiting
	c.waiting = nil
	if f == nil {
		c.interrupt = cancel
	}
	return f
}

// woke says the listener has stopped waiting for a notice.
func (c *keyCache) woke() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.interrupt = nil
}
