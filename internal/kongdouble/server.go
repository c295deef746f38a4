// Package kongdouble is a test double of DB-less Kong's Admin API: GET /, GET /status,
// GET /schemas/<type> (of the custom entity types it knows) and POST /config behave as Kong 3.x
// documents and tests them (kong/api/routes/config.lua,
// spec/02-integration/04-admin_api/15-off_spec.lua), including check_hash, flattened errors for
// invalid documents and the empty hash after a restart. Faults (status codes, Retry-After,
// delays, an unreachable port) are injected on demand, and every request is recorded so tests
// can wait for and assert on what kongsync sent, without sleeps.
package kongdouble

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// EmptyHash is the configuration_hash of a Kong that holds no configuration.
const EmptyHash = "00000000000000000000000000000000"

// Options configure a Server. The zero value is a Kong 3.9 with the bundled plugins.
type Options struct {
	// Version is reported by GET / (default "3.9.1"; SetVersion changes it). Validation follows
	// it where Kong's schema changed: the sticky-sessions algorithm and its upstream fields exist
	// from 3.11 on, and the bundled redirect plugin from 3.9 on.
	Version string
	// RouterFlavor is Kong's router_flavor, reported by GET / as configuration.router_flavor
	// (default "traditional_compatible", Kong's default; SetRouterFlavor changes it). Route
	// validation follows it: only "expressions" has the expression and priority fields, and
	// there an expression is parsed and checked against Kong's router schema.
	RouterFlavor string
	// Plugins are the plugins available on the node (default: Kong's bundled plugins of
	// Version, and EnterprisePlugins for an Enterprise version). A document using another
	// plugin, or a custom entity type of another plugin, is rejected, as Kong does.
	Plugins []string
	// Token, if set, must be sent in the Kong-Admin-Token header; otherwise 401.
	Token string
	// MaxConfigBytes, if positive, makes configs larger than this fail with 413 while the
	// previous config is kept, as when a config does not fit Kong's lmdb_map_size.
	MaxConfigBytes int
	// MaxBodyBytes is the admin server's nginx client_max_body_size: a request whose body is
	// larger gets nginx's own 413 page (HTML, not JSON) before Kong sees it. Zero means Kong's
	// default, 10m (nginx_admin_client_max_body_size); negative means no limit (the double still
	// reads at most 256 MiB).
	MaxBodyBytes int64
	// Addr is the listen address (default "127.0.0.1:0": a free loopback port).
	Addr string
	// LoadTime, if positive, is how long loading a valid config takes; a POST /config arriving
	// meanwhile gets 429 with Retry-After, as Kong answers while a previous config is loading.
	LoadTime time.Duration
	// LoadTimePerMB adds this much load time per MiB of config (the "config" string as posted):
	// Kong's parse and router rebuild grow with the config (~10 s for 5,000 routes, Kong#6811).
	LoadTimePerMB time.Duration
	// NoLatencyHeader leaves out X-Kong-Admin-Latency, as a Kong whose `headers` setting drops
	// latency_tokens does; by default every answer carries it, as Kong's.
	NoLatencyHeader bool
	// TLS, if set, serves HTTPS with it (set ClientAuth to require client certificates); URL
	// then starts with https://.
	TLS *tls.Config
	// Listens are the proxy and stream listeners GET / reports (nil: DefaultListens, Kong's
	// defaults; SetListens changes them).
	Listens []Listen
}

// Server is a running double. Create it with New and Close it when done.
type Server struct {
	opts   Options
	addr   string // host:port, fixed at first listen so Start reopens the same port
	plugin bool   // Options.Plugins was given (else the bundled plugins of the version)
	nodeID string

	mu        sync.Mutex
	srv       *http.Server
	down      chan struct{} // closed when the current listener generation stops
	cur       *loaded
	faults    []*Fault
	refused   []TaggedObject // RefuseObjects
	reqs      []Request
	changed   chan struct{} // closed (and replaced) whenever something is recorded
	closed    bool
	loadTime  time.Duration
	loadPerMB time.Duration
	loadUntil time.Time // end of the load in progress, zero when none
}

// New starts a double on a free loopback port (or Options.Addr). It panics if it cannot listen,
// like httptest.NewServer.
func New(opts Options) *Server {
	if opts.Version == "" {
		opts.Version = "3.9.1"
	}
	if opts.RouterFlavor == "" {
		opts.RouterFlavor = FlavorTraditionalCompatible
	}
	if !validFlavor(opts.RouterFlavor) {
		panic(fmt.Sprintf("kongdouble: %v", flavorError(opts.RouterFlavor)))
	}
	given := opts.Plugins != nil
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	s := &Server{opts: opts, plugin: given, addr: opts.Addr, nodeID: newUUID(), changed: make(chan struct{}),
		loadTime: opts.LoadTime, loadPerMB: opts.LoadTimePerMB}
	if err := s.Start(); err != nil {
		panic(fmt.Sprintf("kongdouble: %v", err))
	}
	return s
}

// URL is the admin API base URL, e.g. http://127.0.0.1:41234. It stays the same across Stop,
// Start and Restart.
func (s *Server) URL() string {
	if s.opts.TLS != nil {
		return "https://" + s.addr
	}
	return "http://" + s.addr
}

// Start (re)opens the listener on the same port after Stop. Retries briefly if the port is
// still held by the closing listener.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return nil
	}
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.addr, err)
	}
	s.addr = ln.Addr().String()
	if s.opts.TLS != nil {
		ln = tls.NewListener(ln, s.opts.TLS)
	}
	s.down = make(chan struct{})
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln) //nolint:errcheck // returns ErrServerClosed on Stop
	s.broadcast()
	return nil
}

// Stop closes the listener and every open connection: the admin API becomes unreachable
// (connection refused) until Start. The loaded config is kept, as for a network partition.
func (s *Server) Stop() {
	s.mu.Lock()
	srv, down := s.srv, s.down
	s.srv = nil
	s.mu.Unlock()
	if srv == nil {
		return
	}
	close(down)
	_ = srv.Close()
	s.mu.Lock()
	s.broadcast()
	s.mu.Unlock()
}

// Restart simulates a Kong restart: connections drop, the config is forgotten (GET /status
// reports EmptyHash, as DB-less Kong keeps nothing across restarts), and it listens again on the
// same port.
func (s *Server) Restart() {
	s.Stop()
	s.mu.Lock()
	s.cur = nil
	s.mu.Unlock()
	if err := s.Start(); err != nil {
		panic(fmt.Sprintf("kongdouble: restart: %v", err))
	}
}

// SetVersion changes the version GET / reports and validation follows, as when Kong is upgraded
// (Restart too, to forget the config, as a restarted Kong does).
func (s *Server) SetVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Version = v
}

// SetRouterFlavor changes the router_flavor GET / reports and validation follows, as when Kong
// is restarted with another kong.conf (call Restart too, to forget the config); it panics on a
// flavor Kong would not start with.
func (s *Server) SetRouterFlavor(f string) {
	if !validFlavor(f) {
		panic(fmt.Sprintf("kongdouble: %v", flavorError(f)))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.RouterFlavor = f
}

// RouterFlavor is the router_flavor GET / reports now.
func (s *Server) RouterFlavor() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts.RouterFlavor
}

// version is the version reported and validated for, and the plugins available on the node.
func (s *Server) version() (string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plugin {
		return s.opts.Version, s.opts.Plugins
	}
	plugins := BundledPlugins
	if !versionAtLeast(s.opts.Version, 3, 9) {
		plugins = slices.DeleteFunc(slices.Clone(BundledPlugins), func(p string) bool { return p == "redirect" })
	}
	if isEnterprise(s.opts.Version) {
		plugins = append(slices.Clone(plugins), EnterprisePlugins...)
	}
	return s.opts.Version, plugins
}

// SetPlugins changes the plugins enabled on the node (Options.Plugins; nil: the bundled plugins
// of the version), as when Kong is restarted with another `plugins` setting (call Restart too):
// validation and GET /schemas follow.
func (s *Server) SetPlugins(plugins []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Plugins, s.plugin = slices.Clone(plugins), plugins != nil
}

// versionAtLeast reports whether a Kong version ("3.10.0", "3.4.1.2-enterprise-edition") is at
// least major.minor; an unreadable one counts as new.
func versionAtLeast(v string, major, minor int) bool {
	var ma, mi int
	if n, _ := fmt.Sscanf(v, "%d.%d", &ma, &mi); n != 2 {
		return true
	}
	return ma > major || ma == major && mi >= minor
}

// SetLoadTime changes Options.LoadTime: how long loading a config takes from now on.
func (s *Server) SetLoadTime(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadTime = d
}

// SetLoadTimePerMB changes Options.LoadTimePerMB from now on.
func (s *Server) SetLoadTimePerMB(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadPerMB = d
}

// loadDuration is how long loading a config of n bytes takes; called with mu held.
func (s *Server) loadDuration(n int) time.Duration {
	return s.loadTime + time.Duration(float64(s.loadPerMB)*float64(n)/(1<<20))
}

// Loading reports whether a config is being loaded (see Options.LoadTime).
func (s *Server) Loading() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.loadUntil.IsZero()
}

// Close stops the double for good.
func (s *Server) Close() {
	s.Stop()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// Hash is the configuration_hash GET /status reports now.
func (s *Server) Hash() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur.hash()
}

// Config returns the config string last loaded ("" when empty): the "config" value or raw YAML
// body exactly as posted, or the re-encoded JSON of a top-level object body.
func (s *Server) Config() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return ""
	}
	return s.cur.raw
}

// Document returns the loaded config decoded as generic JSON values (nil when empty). Callers
// must not modify it.
func (s *Server) Document() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return nil
	}
	return s.cur.doc
}

// broadcast wakes every waiter; called with mu held.
func (s *Server) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Changed returns a channel closed at the next recorded request or state change.
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// WaitFor blocks until cond returns true (checked now and after every recorded request or state
// change) or ctx ends. cond runs without the double's lock held, so it may call its methods.
func (s *Server) WaitFor(ctx context.Context, cond func() bool) error {
	for {
		ch := s.Changed()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("kongdouble: condition not met: %w", ctx.Err())
		}
	}
}

// WaitPosts waits until at least n POST /config requests have been answered.
func (s *Server) WaitPosts(ctx context.Context, n int) error {
	return s.WaitFor(ctx, func() bool { return len(s.Posts()) >= n })
}

// WaitHash waits until GET /status would report hash.
func (s *Server) WaitHash(ctx context.Context, hash string) error {
	return s.WaitFor(ctx, func() bool { return s.Hash() == hash })
}
