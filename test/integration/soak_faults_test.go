//go:build integration

package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"time"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// soakFault is one fault of a phase's schedule: what it is (for the log) and how to run it.
// run returns when the fault is over, at the latest when ctx (the phase) ends; the phase's heal
// then clears whatever is left (faults still installed in the doubles, stopped doubles, killed
// kongsyncs).
type soakFault struct {
	name  string
	at    time.Duration // offset in the phase
	run   func(ctx context.Context)
	heavy bool // the apiserver restart: at most one per phase
}

// pickFaults draws 0–3 faults for a phase of length d.
func (s *soak) pickFaults(r *rand.Rand, d time.Duration) []soakFault {
	var out []soakFault
	heavy := false
	for range r.IntN(4) {
		f := s.pickFault(r)
		if f.heavy && heavy {
			continue
		}
		heavy = heavy || f.heavy
		f.at = time.Duration(r.Int64N(int64(d)/2 + 1))
		out = append(out, f)
	}
	return out
}

func (s *soak) pickFault(r *rand.Rand) soakFault {
	k := r.IntN(len(s.doubles))
	n := r.IntN(100)
	if n < 56 {
		return s.kongFault(r, k, n)
	}
	return s.processFault(r, n)
}

// kongFault is a fault of double k: restarted, down, an error answer, slow answers.
func (s *soak) kongFault(r *rand.Rand, k, n int) soakFault {
	kong := s.doubles[k]
	name := func(f string, args ...any) string { return fmt.Sprintf("kong%d ", k) + fmt.Sprintf(f, args...) }
	switch {
	case n < 12:
		return soakFault{name: name("restarted empty"), run: func(context.Context) { kong.Restart() }}
	case n < 24:
		down := time.Second + time.Duration(r.Int64N(int64(s.maxDown-time.Second)+1))
		return soakFault{name: name("down %s", down.Round(time.Millisecond)), run: func(ctx context.Context) {
			kong.Stop()
			select {
			case <-time.After(down):
			case <-ctx.Done():
			}
			_ = kong.Start()
		}}
	case n < 44:
		return s.statusFault(r, k, kong)
	case n < 52:
		delay := time.Duration(200+r.IntN(2800)) * time.Millisecond
		times := 1 + r.IntN(3)
		return soakFault{name: name("slow POST %s ×%d", delay, times), run: func(context.Context) {
			kong.AddFault(kongdouble.Fault{Delay: delay, Times: times})
		}}
	}
	return soakFault{name: name("GET /status hangs 3s ×2"), run: func(context.Context) {
		kong.AddFault(kongdouble.Fault{Method: "GET", Path: "/status", Delay: 3 * time.Second, Times: 2})
	}}
}

// processFault ends watches, kills a kongsync or the leader, or restarts the apiserver.
func (s *soak) processFault(r *rand.Rand, n int) soakFault {
	switch {
	case n < 70:
		expire := r.IntN(2) == 0
		pick := r.IntN(2)
		return soakFault{name: fmt.Sprintf("watches of kongsync #%d ended (410 Expired: %v)", pick, expire), run: func(context.Context) {
			if live := s.procs.live(); len(live) > 0 {
				p := live[pick%len(live)]
				s.logf("ended %d watches of %s", p.tr.kick(expire), p.id)
			}
		}}
	case n < 80:
		hard := r.IntN(2) == 0
		return soakFault{name: fmt.Sprintf("leader killed (hard=%v)", hard), run: func(context.Context) {
			if live := s.procs.live(); len(live) > 0 && live[0].leading.Load() {
				s.procs.kill(live[0], hard)
			}
		}}
	case n < 90:
		slot, hard := pick(r, "a", "b"), r.IntN(2) == 0
		return soakFault{name: fmt.Sprintf("kongsync %s killed (hard=%v)", slot, hard), run: func(context.Context) {
			for _, p := range s.procs.live() {
				if p.slot == slot {
					s.procs.kill(p, hard)
				}
			}
		}}
	case n < 90+s.apiserverPct:
		return soakFault{name: "kube-apiserver restarted", heavy: true, run: func(context.Context) {
			s.apiRestarted.Store(time.Now().UnixNano())
			took, err := plane.RestartAPIServer(90 * time.Second)
			s.logf("kube-apiserver restarted in %s (err %v)", took.Round(time.Millisecond), err)
		}}
	}
	return soakFault{name: "none", run: func(context.Context) {}}
}

// statusFault makes a double answer POST /config with an error: 400 naming the sentinel
// Ingress (kongsync leaves it out until it changes: the heal touches it), 400 naming nothing,
// 413, 429 with Retry-After, or a 5xx.
func (s *soak) statusFault(r *rand.Rand, k int, kong *kongdouble.Server) soakFault {
	times := 1 + r.IntN(3)
	var f kongdouble.Fault
	switch code := pick(r, 400, 400, 413, 429, 500, 502, 503, 504); code {
	case 400:
		if r.IntN(2) == 0 {
			f = kongdouble.Fault{Status: 400, Body: rejectionBody(s.world.namespaces[0], "sentinel", "soak: injected rejection"), Times: 1}
		} else {
			f = kongdouble.Fault{Status: 400, Body: `{"code":14,"name":"invalid declarative configuration","message":"declarative config is invalid: {}","fields":{}}`, Times: 1}
		}
	case 413:
		f = kongdouble.Fault{Status: 413, Times: 1}
	case 429:
		f = kongdouble.Fault{Status: 429, RetryAfter: pick(r, "1", "0.5", ""), Times: times}
	default:
		f = kongdouble.Fault{Status: code, Times: times}
	}
	return soakFault{name: fmt.Sprintf("kong%d answers %d ×%d (%.40s)", k, f.Status, f.Times, f.Body), run: func(context.Context) {
		kong.AddFault(f)
	}}
}

// runFaults starts each fault at its offset; it returns when all are over (ctx ends them).
func (s *soak) runFaults(ctx context.Context, start time.Time, faults []soakFault) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		finished := make(chan struct{}, len(faults))
		for _, f := range faults {
			go func() {
				defer func() { finished <- struct{}{} }()
				select {
				case <-time.After(time.Until(start.Add(f.at))):
				case <-ctx.Done():
					return
				}
				s.logf("fault: %s", f.name)
				s.count("fault: " + faultKind(f.name))
				f.run(ctx)
			}()
		}
		for range faults {
			<-finished
		}
	}()
	return done
}

// healDoubles ends every fault left in the doubles: installed answers cleared, listeners open.
func (s *soak) healDoubles() {
	for _, d := range s.doubles {
		d.ClearFaults()
		_ = d.Start()
	}
}

// faultKind is a fault's name without its durations, counts and bodies, for the counts.
func faultKind(name string) string {
	return faultDetail.ReplaceAllString(name, "")
}

var faultDetail = regexp.MustCompile(` ?(\d+(\.\d+)?(ms|s)|×\d+|\(\{.*|\(\)|@.*)`)
