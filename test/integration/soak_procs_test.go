//go:build integration

package integration

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	gosync "sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/kongsync/kongsync/runner"
	kongsync "github.com/kongsync/kongsync/sync"
)

// soakTransport wraps one kongsync incarnation's Kubernetes transport: it can end every open
// watch stream (plainly, or with the apiserver's 410 Expired event) and, when the process is
// "killed", fail every request, so that its Lease is not released and must expire.
type soakTransport struct {
	next   http.RoundTripper
	killed atomic.Bool

	mu     gosync.Mutex
	bodies []*expiringBody
}

var errKilled = errors.New("soak: process killed")

func (s *soakTransport) wrap(rt http.RoundTripper) http.RoundTripper { s.next = rt; return s }

func (s *soakTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if s.killed.Load() {
		return nil, errKilled
	}
	resp, err := s.next.RoundTrip(req)
	if err != nil || req.URL.Query().Get("watch") != "true" {
		return resp, err
	}
	b := newExpiringBody(resp.Body, resp.Header.Get("Content-Type"))
	resp.Body = b
	s.mu.Lock()
	s.bodies = append(s.bodies, b)
	s.mu.Unlock()
	return resp, nil
}

// kick ends every open watch (with a 410 Expired event when expire is set); returns how many.
func (s *soakTransport) kick(expire bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bodies {
		b.end(expire)
	}
	n := len(s.bodies)
	s.bodies = nil
	return n
}

// timedEvent is a sync loop event with the time the observer got it.
type timedEvent struct {
	at time.Time
	kongsync.Event
}

// soakObserver keeps one incarnation's build events (hash → store versions, in order).
type soakObserver struct {
	mu     gosync.Mutex
	builds []timedEvent
}

func (o *soakObserver) observe(e kongsync.Event) {
	if e.Type != kongsync.EventBuild {
		return
	}
	o.mu.Lock()
	o.builds = append(o.builds, timedEvent{time.Now(), e})
	o.mu.Unlock()
}

// versionOf is the store version of a build of hash observed before t that explains a POST of
// it after one of version atLeast: the oldest such build at atLeast or later, else the latest
// before t (older than atLeast: a push that went back). A config can be built again at a later
// version (a change undone, a rejected object left out and back), and a POST may end before
// the observer sees the build that sent it, so builds up to t (the POST's end plus the
// observer's lag) count.
func (o *soakObserver) versionOf(hash string, t time.Time, atLeast uint64) (uint64, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var latest, explains uint64
	found, explained := false, false
	for _, b := range o.builds {
		if b.Hash != hash || b.at.After(t) {
			continue
		}
		latest, found = b.Version, true
		if b.Version >= atLeast && (!explained || b.Version < explains) {
			explains, explained = b.Version, true
		}
	}
	if explained {
		return explains, true
	}
	return latest, found
}

// soakProc is one incarnation of a kongsync replica (slot a or b).
type soakProc struct {
	slot, id string
	in       *instance
	tr       *soakTransport
	obs      *soakObserver
	leading  atomic.Bool
	dead     bool
}

// procs holds both slots, every incarnation ever started (their observers stay readable for
// the push-order check), and the log files.
type procs struct {
	s       *soak
	mu      gosync.Mutex
	cur     map[string]*soakProc
	all     map[string]*soakProc
	n       int
	panics  atomic.Int64
	logs    map[string]*os.File
	logMu   gosync.Mutex
	started int
}

func newProcs(s *soak) *procs {
	return &procs{s: s, cur: map[string]*soakProc{}, all: map[string]*soakProc{}, logs: map[string]*os.File{}}
}

// logger writes a slot's logs to <out>/kongsync-<slot>.log, each line with its incarnation and
// time, and counts lines mentioning a panic (kongsync recovers translator panics and logs them).
func (ps *procs) logger(slot, id string) logr.Logger {
	ps.logMu.Lock()
	f := ps.logs[slot]
	if f == nil {
		var err error
		if f, err = os.Create(ps.s.path("kongsync-" + slot + ".log")); err != nil {
			f = nil
		}
		ps.logs[slot] = f
	}
	ps.logMu.Unlock()
	return funcr.New(func(prefix, args string) {
		line := fmt.Sprintf("%s %s %s %s\n", time.Now().Format("15:04:05.000"), id, prefix, args)
		if strings.Contains(strings.ToLower(line), "panic") {
			ps.panics.Add(1)
		}
		if f != nil {
			ps.logMu.Lock()
			_, _ = io.WriteString(f, line)
			ps.logMu.Unlock()
		}
	}, funcr.Options{Verbosity: ps.s.logV}).WithName(id)
}

// start runs a new incarnation in slot: leader-only pushes to the doubles discovered through
// the kong-admin Service, short Lease timings so that a killed leader is replaced in seconds.
func (ps *procs) start(t *testing.T, slot string) *soakProc {
	t.Helper()
	ps.mu.Lock()
	ps.n++
	p := &soakProc{slot: slot, id: fmt.Sprintf("%s%d", slot, ps.n), tr: &soakTransport{}, obs: &soakObserver{}}
	ps.mu.Unlock()
	p.in = startKongsyncWithLogger(t, p.id, "", nil, func(c *runner.Config) {
		ps.s.configure(c)
		c.RestConfig.WrapTransport = p.tr.wrap
		c.Identity = p.id
		c.KongAdminSvc = ps.s.kongNS + "/kong-admin"
		c.KongAdminSvcPortNames = []string{"admin"}
		c.KongAdminHeaders = http.Header{identityHeader: {p.id}}
		c.ElectionNamespace = ps.s.kongNS
		c.LeaseDuration, c.RenewDeadline, c.RetryPeriod = 4*time.Second, 3*time.Second, 500*time.Millisecond
		c.Hooks.Observe = p.obs.observe
		c.Hooks.Leading = func(b bool) { p.leading.Store(b); ps.s.logf("%s leading=%v", p.id, b) }
	}, ps.logger(slot, p.id))
	ps.mu.Lock()
	ps.cur[slot], ps.all[p.id] = p, p
	ps.started++
	ps.mu.Unlock()
	ps.s.logf("started kongsync %s", p.id)
	return p
}

// kill stops an incarnation: hard (its API requests fail first, so its Lease is not released,
// as when a Pod dies) or graceful (it releases the Lease).
func (ps *procs) kill(p *soakProc, hard bool) {
	ps.mu.Lock()
	if p.dead {
		ps.mu.Unlock()
		return
	}
	p.dead = true
	ps.mu.Unlock()
	if hard {
		p.tr.killed.Store(true)
	}
	p.in.stop()
	p.leading.Store(false)
	ps.s.logf("stopped kongsync %s (hard=%v)", p.id, hard)
}

// live returns the running incarnations, the leader first if there is one.
func (ps *procs) live() []*soakProc {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []*soakProc
	for _, slot := range []string{"a", "b"} {
		if p := ps.cur[slot]; p != nil && !p.dead {
			if p.leading.Load() {
				out = append([]*soakProc{p}, out...)
			} else {
				out = append(out, p)
			}
		}
	}
	return out
}

// heal restarts the slots whose incarnation was killed.
func (ps *procs) heal(t *testing.T) {
	for _, slot := range []string{"a", "b"} {
		ps.mu.Lock()
		p := ps.cur[slot]
		ps.mu.Unlock()
		if p == nil || p.dead {
			ps.start(t, slot)
		}
	}
}

func (ps *procs) byID(id string) *soakProc {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.all[id]
}

func (ps *procs) closeLogs() {
	ps.logMu.Lock()
	defer ps.logMu.Unlock()
	for _, f := range ps.logs {
		if f != nil {
			_ = f.Close()
		}
	}
}
