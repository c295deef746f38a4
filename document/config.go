package document

import (
	"io"
	"sync"
	"sync/atomic"

	"github.com/kongsync/kongsync/internal/jsonstr"
)

// Config is an encoded configuration kept as the pieces it was encoded in. A 10k-Ingress
// config is 11.5 MB: joining it into one buffer, keeping the previous one and escaping a copy
// into the request body cost more than translating a change, so JSONCache hands out pieces
// it shares with its cache and the sync loop streams them to Kong. The pieces must never be
// modified.
type Config struct {
	pieces [][]byte
	size   int

	// The md5 may be computed after the Config is handed out (JSONCache computes a changed
	// config's behind it, so that a push can start first): hashFn runs once, on the first Hash,
	// unless the goroutine computing it got there first (hashedLater).
	hashOnce sync.Once
	hashFn   func() string
	hash     string
	hashed   atomic.Bool

	extra     int // bytes that escaping the config as a JSON string adds; -1: count on first use
	extraOnce sync.Once
}

// NewConfig wraps a contiguous config, such as JSON's output, and hashes it.
func NewConfig(b []byte) *Config {
	return hashedConfig(&Config{pieces: [][]byte{b}, size: len(b), extra: -1}, Hash(b))
}

// hashedConfig sets c's hash, known when c is built.
func hashedConfig(c *Config, hash string) *Config {
	c.hash = hash
	c.hashed.Store(true)
	return c
}

// hashedLater makes c's hash come from another goroutine, which calls set once with it: Hash
// waits for it, HashReady reports it from then on.
func hashedLater(c *Config) (set func(hash string)) {
	ch := make(chan string, 1)
	c.hashFn = func() string { return <-ch }
	return func(hash string) {
		ch <- hash
		c.hashOnce.Do(func() {
			c.hash = <-ch
			c.hashFn = nil
			c.hashed.Store(true)
		})
	}
}

// Len is the config's size in bytes.
func (c *Config) Len() int { return c.size }

// Hash is Hash of the config's bytes: the configuration_hash Kong reports once it loaded them.
// It waits for the md5 while another goroutine computes it, so it may take a few
// milliseconds; HashReady never waits.
func (c *Config) Hash() string {
	if c.hashed.Load() {
		return c.hash
	}
	c.hashOnce.Do(func() {
		c.hash = c.hashFn()
		c.hashFn = nil
		c.hashed.Store(true)
	})
	return c.hash
}

// HashReady returns the hash if it is already known.
func (c *Config) HashReady() (string, bool) {
	if c.hashed.Load() {
		return c.hash, true
	}
	return "", false
}

// EscapedLen is the config's size once escaped as the content of a JSON string, which is how
// it travels in a POST /config body.
func (c *Config) EscapedLen() int {
	c.extraOnce.Do(func() {
		if c.extra >= 0 {
			return
		}
		c.extra = 0
		for _, p := range c.pieces {
			c.extra += jsonstr.Extra(p)
		}
	})
	return c.size + c.extra
}

// Pieces are the config's bytes in order. They are shared: read them, never modify them.
func (c *Config) Pieces() [][]byte { return c.pieces }

// Bytes returns the config as one new buffer.
func (c *Config) Bytes() []byte {
	out := make([]byte, 0, c.size)
	for _, p := range c.pieces {
		out = append(out, p...)
	}
	return out
}

// WriteTo writes the config's bytes to w.
func (c *Config) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, p := range c.pieces {
		k, err := w.Write(p)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
