//go:build integration

package integration

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/google/uuid"
)

// The hostile tenant (issue 20): a namespace of its own, watched by kongsync, whose changes are
// the objects issue 20 found harmful, sized to stay legal for the API server. Its changes draw
// from a random stream of their own (runWriters), about one change in 15, so recorded seeds keep
// their schedules. Its objects never name the random world's objects or hosts (its own Services,
// Gateway and hosts), so that what the random world does cannot decide whether it harms anyone;
// what it aims at is the victim: stable objects in the world's first namespace, created once at
// setup and never written again, so that they are always older than any hostile object and
// Kong's global names (consumer usernames, custom_ids, credential values, CA certificate ids)
// stay theirs: the oldest holder wins. hostileGuard (soak_guard_test.go) checks that the
// victims translate as if the tenant did not exist.

// The victim's values of Kong's global names, which the hostile tenant reuses. The random world
// draws its own from other pools (alice…dave, c1/c2, k0…k3, u1/u2), so nothing but the hostile
// tenant ever collides with them.
const (
	victimUser  = "victim-user"
	victimCID   = "victim-cid"
	victimKey   = "victim-key"
	victimBasic = "victim-basic"
)

// hostileTenant is the hostile namespace and what it aims at.
type hostileTenant struct {
	ns       string // watched by kongsync, never written by the random world
	victimNS string // the world's first namespace, where the victim's stable objects live
	caID     string // the victim CA certificate's id, which the tenant's CA Secret reuses
	victimCA []byte // PEM CA certificates, generated once per run
	evilCA   []byte
}

func newHostileTenant(prefix, victimNS string, victimCA, evilCA []byte) *hostileTenant {
	return &hostileTenant{ns: prefix + "-evil", victimNS: victimNS, victimCA: victimCA, evilCA: evilCA,
		caID: uuid.NewSHA1(uuid.NameSpaceURL, []byte("kongsync-soak/"+prefix)).String()}
}

// attack is one class of issue 20's hostile input: the objects one change applies (or deletes).
type attack struct {
	name   string
	weight int
	gen    func(w *world, r *rand.Rand) []map[string]any
}

// attacks are the classes of issue 20 the tenant applies. The two heavy ones (a ~200 KB
// Secret, a ~250 KiB annotation) are rarer, to keep etcd's history small in long runs.
func attacks() []attack {
	return []attack{
		{"alias bomb", 1, (*world).aliasBombAttack},
		{"host aliases", 1, (*world).hostAliasAttack},
		{"credential reuse", 2, (*world).credentialAttack},
		{"CA id reuse", 2, (*world).caAttack},
		{"PCRE regexes", 2, (*world).regexAttack},
		{"weights", 2, (*world).weightAttack},
		{"control characters", 2, (*world).controlAttack},
		{"deep config", 1, (*world).deepAttack},
	}
}

// pickAttack draws an attack and turns it into changes: its objects applied, or (one in four)
// deleted, so that the tenant's objects come and go.
func (w *world) pickAttack(r *rand.Rand) (string, []change) {
	as := attacks()
	total := 0
	for _, a := range as {
		total += a.weight
	}
	n, a := r.IntN(total), as[0]
	for _, x := range as {
		if n < x.weight {
			a = x
			break
		}
		n -= x.weight
	}
	del := r.IntN(4) == 0
	var out []change
	for _, o := range a.gen(w, r) {
		c := change{op: "apply", kind: w.kindFor(o["kind"].(string)), ns: w.evil.ns, name: objName(o), obj: o}
		if del {
			c.op, c.obj = "delete", nil
		}
		out = append(out, c)
	}
	return a.name, out
}

func objName(o map[string]any) string { return o["metadata"].(map[string]any)["name"].(string) }

// kindFor is the soak kind of a kind name (its API resource; the generator is not used).
func (w *world) kindFor(kind string) *soakKind {
	for _, ks := range [][]soakKind{w.kinds, w.later} {
		for i := range ks {
			if ks[i].kind == kind {
				return &ks[i]
			}
		}
	}
	panic("soak: no kind " + kind)
}

func (w *world) evilObj(kind, group, version, name string) map[string]any {
	return w.meta(kind, group, version, w.evil.ns, name)
}

// evilHost is a host of the tenant's own: its routes never share a host with anyone's.
func (w *world) evilHost(name string) string {
	return fmt.Sprintf("%s.%s-evil.example.com", name, w.prefix)
}

// evilIngress routes evilHost(name) to the tenant's Service app, with the given paths (or /).
func (w *world) evilIngress(name string, paths ...map[string]any) map[string]any {
	o := w.evilObj("Ingress", "networking.k8s.io", "v1", name)
	if len(paths) == 0 {
		paths = append(paths, evilPath("/", "Prefix"))
	}
	var ps []any
	for _, p := range paths {
		ps = append(ps, p)
	}
	o["spec"] = map[string]any{"ingressClassName": w.class,
		"rules": []any{map[string]any{"host": w.evilHost(name), "http": map[string]any{"paths": ps}}}}
	return o
}

func evilPath(path, typ string) map[string]any { return pathTo(path, typ, "app", 80) }

func pathTo(path, typ, svc string, port int) map[string]any {
	return map[string]any{"path": path, "pathType": typ,
		"backend": map[string]any{"service": map[string]any{"name": svc, "port": map[string]any{"number": port}}}}
}

// evilRoute is an HTTPRoute of the tenant's Gateway for evilHost(name) with one rule.
func (w *world) evilRoute(name string, rule map[string]any) map[string]any {
	o := w.evilObj("HTTPRoute", "gateway.networking.k8s.io", "v1", name)
	o["spec"] = map[string]any{"parentRefs": []any{map[string]any{"name": "gw"}},
		"hostnames": []any{w.evilHost(name)}, "rules": []any{rule}}
	return o
}

func evilBackend(name string, weight int) map[string]any {
	return map[string]any{"name": name, "port": 80, "weight": weight}
}

// attack applies one of the hostile tenant's attacks, drawn from r.
func (s *soak) attack(ctx context.Context, writer string, r *rand.Rand) {
	name, cs := s.world.pickAttack(r)
	s.count("hostile " + name)
	for _, c := range cs {
		if s.apply(ctx, writer, c) == nil {
			s.count("hostile changes written")
		}
	}
}
