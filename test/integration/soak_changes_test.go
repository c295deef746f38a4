//go:build integration

package integration

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// rate is a phase's change rate: writers in parallel, the pause between one writer's changes,
// and a cap on the changes of the phase (0: until the phase ends).
type rate struct {
	name    string
	writers int
	gap     func(r *rand.Rand) time.Duration
	limit   int
}

// pickRate varies the rate from idle to saturating; bursts are hundreds of changes at once.
func pickRate(r *rand.Rand) rate {
	none := func(*rand.Rand) time.Duration { return 0 }
	switch n := r.IntN(10); {
	case n < 2:
		return rate{name: "idle"}
	case n < 4:
		return rate{name: "trickle", writers: 1, gap: func(r *rand.Rand) time.Duration { return time.Duration(100+r.IntN(400)) * time.Millisecond }}
	case n < 6:
		return rate{name: "steady", writers: 1, gap: func(r *rand.Rand) time.Duration { return time.Duration(10+r.IntN(40)) * time.Millisecond }}
	case n < 8:
		return rate{name: "burst", writers: 3, gap: none, limit: 100 + r.IntN(300)}
	default:
		return rate{name: "saturating", writers: 3, gap: none}
	}
}

// change is one write: upsert (server-side apply), delete, or delete and re-create.
type change struct {
	op   string
	kind *soakKind
	ns   string
	name string
	obj  map[string]any
}

func (s *soak) pickChange(r *rand.Rand, kinds []soakKind) change {
	k := pickKind(r, kinds)
	c := change{op: "apply", kind: k, name: pick(r, k.names...)}
	if k.namespaced {
		c.ns = pick(r, s.world.namespaces...)
	}
	switch n := r.IntN(20); {
	case n < 3:
		c.op = "delete"
	case n < 6:
		c.op = "recreate"
	}
	if k.kind == "IngressClass" && c.name == s.world.class {
		c.op = "apply" // the served class stays (its default-class annotation moves)
	}
	if c.op != "delete" {
		c.obj = k.gen(s.world, r, c.ns, c.name)
	}
	return c
}

func (k *soakKind) gvr() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: k.group, Version: k.version, Resource: k.resource}
}

func (s *soak) resource(k *soakKind, ns string) dynamic.ResourceInterface {
	res := s.dyn.Resource(k.gvr())
	if k.namespaced {
		return res.Namespace(ns)
	}
	return res
}

// apply writes one change and logs it with its outcome (the API server refuses some invalid
// objects by their CRD schema; that is logged, not a failure). It returns the write's error.
func (s *soak) apply(ctx context.Context, writer string, c change) error {
	ri := s.resource(c.kind, c.ns)
	var err error
	if c.op == "delete" || c.op == "recreate" {
		err = ri.Delete(ctx, c.name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			err = nil
		}
	}
	if err == nil && c.op != "delete" {
		u := &unstructured.Unstructured{Object: toData(c.obj)}
		_, err = ri.Apply(ctx, c.name, u, metav1.ApplyOptions{FieldManager: "soak", Force: true})
	}
	body := ""
	if c.obj != nil {
		b, _ := json.Marshal(c.obj)
		body = " " + string(b)
		if len(b) > soakLogBody { // the hostile tenant's big objects: the seed replays them
			body = fmt.Sprintf(" %s… (%d bytes)", b[:soakLogBody], len(b))
		}
	}
	outcome := "ok"
	switch {
	case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
		outcome = "refused: " + err.Error()
		s.count("change refused by the API server")
	case err != nil:
		outcome = "error: " + err.Error()
		s.count("change failed (API server unreachable or busy)")
		// The apiserver is restarting: do not spin.
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
		}
	default:
		s.count("change " + c.op + " " + c.kind.kind)
	}
	s.logf("%s %s %s %s/%s: %s%s", writer, c.op, c.kind.kind, c.ns, c.name, outcome, body)
	return err
}

// soakLogBody is how much of an object the change log shows.
const soakLogBody = 4096

// toData turns a Secret's stringData into base64 data, so that server-side apply owns (and
// drops) each key.
func toData(o map[string]any) map[string]any {
	sd, ok := o["stringData"].(map[string]any)
	if !ok {
		return o
	}
	data := map[string]any{}
	for k, v := range sd {
		data[k] = base64.StdEncoding.EncodeToString([]byte(v.(string)))
	}
	delete(o, "stringData")
	o["data"] = data
	return o
}

// runWriters applies the phase's changes until ctx ends or the limit is reached. Each writer
// draws from its own source (seed, phase, writer), so a seed replays each writer's sequence.
func (s *soak) runWriters(ctx context.Context, phase int, rt rate) <-chan struct{} {
	done := make(chan struct{})
	finished := make(chan struct{}, rt.writers)
	budget := make(chan struct{}, max(rt.limit, 1))
	for range rt.limit {
		budget <- struct{}{}
	}
	for w := range rt.writers {
		r := rand.New(rand.NewPCG(s.seed, uint64(phase)<<8|uint64(w)|1<<40))
		later := rand.New(rand.NewPCG(s.seed, uint64(phase)<<8|uint64(w)|2<<40))
		hostile := rand.New(rand.NewPCG(s.seed, uint64(phase)<<8|uint64(w)|3<<40))
		go func() {
			defer func() { finished <- struct{}{} }()
			for ctx.Err() == nil {
				if rt.limit > 0 {
					select {
					case <-budget:
					default:
						return
					}
				}
				c := s.pickChange(r, s.world.kinds)
				if later.IntN(12) == 0 { // one change in 12 or so: a later kind, before the main one
					s.apply(ctx, fmt.Sprintf("p%d.w%d", phase, w), s.pickChange(later, s.world.later))
				}
				if hostile.IntN(15) == 0 { // one in 15 or so: the hostile tenant
					s.attack(ctx, fmt.Sprintf("p%d.w%d.evil", phase, w), hostile)
				}
				s.apply(ctx, fmt.Sprintf("p%d.w%d", phase, w), c)
				if g := rt.gap(r); g > 0 {
					select {
					case <-time.After(g):
					case <-ctx.Done():
					}
				}
			}
		}()
	}
	go func() {
		for range rt.writers {
			<-finished
		}
		close(done)
	}()
	return done
}

// touchSentinel changes the sentinel Ingress's host: a new config after every phase, so that a
// config Kong refused with a 413 or a 400 naming no object (which kongsync does not retry) is
// replaced, and the sentinel left out after an injected 400 naming it comes back.
func (s *soak) touchSentinel(ctx context.Context) error {
	s.sentinel++
	ns := s.world.namespaces[0]
	ing := app{ns: ns, name: "sentinel", host: fmt.Sprintf("sentinel-%d.%s.example.com", s.sentinel, s.world.prefix)}.ingress()
	ing.Spec.IngressClassName = &s.world.class
	cur, err := admin.NetworkingV1().Ingresses(ns).Get(ctx, "sentinel", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = admin.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	cur.Spec = ing.Spec
	_, err = admin.NetworkingV1().Ingresses(ns).Update(ctx, cur, metav1.UpdateOptions{})
	return err
}
