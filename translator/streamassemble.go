package translator

import (
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kongsync/kongsync/document"
	kv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// servedStream is a TCPIngress or UDPIngress of our class.
type servedStream struct {
	ref store.Ref
	obj store.Object
}

// streamKinds are the stream ingress kinds, in the order KIC merges their rules (TCP first).
var streamKinds = []store.Kind{store.KindTCPIngress, store.KindUDPIngress}

// selectStreams returns the served TCPIngresses, then the served UDPIngresses, each oldest first
// (ties by "namespace/name"), KIC's order. KIC serves them by the kubernetes.io/ingress.class
// annotation alone: our class, or none when our IngressClass is the cluster default.
func (t *streamBuild) selectStreams() []servedStream {
	var out []servedStream
	for _, k := range streamKinds {
		start := len(out)
		for _, o := range t.snap.Objects(k) {
			if t.servesClassAnnotation(o) {
				out = append(out, servedStream{ref: store.Ref{Kind: k, Namespace: o.GetNamespace(), Name: o.GetName()}, obj: o})
			}
		}
		part := out[start:]
		sort.SliceStable(part, func(i, j int) bool {
			a, b := part[i].obj.GetCreationTimestamp(), part[j].obj.GetCreationTimestamp()
			if !a.Equal(&b) {
				return a.Before(&b)
			}
			return nsNameKey(part[i].ref.Namespace, part[i].ref.Name) < nsNameKey(part[j].ref.Namespace, part[j].ref.Name)
		})
	}
	return out
}

// streamTLS claims the TLS hosts of the served TCPIngresses, after the Ingresses' claims and in
// TCPIngress order, as KIC merges them: certificates are shared with Ingresses.
func (t *streamBuild) streamTLS(streams []servedStream) {
	for _, st := range streams {
		ti, ok := st.obj.(*kv1beta1.TCPIngress)
		if !ok {
			continue
		}
		for i, tl := range ti.Spec.TLS {
			t.tls.claimTLS(st.ref, ti.Namespace, tl.Hosts, tl.SecretName, "spec.tls["+strconv.Itoa(i)+"]",
				"an Ingress or an older TCPIngress")
		}
	}
}

// streamKept is what streamPart keeps between builds: its last entities by name, which replace
// equal new ones so that the encoder reuses their bytes.
type streamKept struct {
	svcs map[string]*document.Service
	ups  map[string]*document.Upstream
}

// streamGroup is one Kong service of stream routes: the first rule naming it, and every route.
type streamGroup struct {
	rule   *streamRule
	routes []*document.Route
}

// streamPart is assemble's part for TCPIngresses and UDPIngresses: the pieces of the served
// ones, their routes grouped into Kong services by name, merged into the lists (by name,
// descending). A TCPIngress Kong service has the name an Ingress gives the Kong service of the
// same Service port number; as in KIC, the TCPIngress's replaces it, and the Ingress routes it
// held are reported. Upstreams of the same name (a Service port used by Ingress, TCPIngress and
// UDPIngress) are made from the same Service port and are equal: one is kept.
func (t *streamBuild) streamPart(streams []servedStream, svcs []*document.Service, ups []*document.Upstream) ([]*document.Service, []*document.Upstream) {
	t.streamPlugins = nil
	groups := map[string]*streamGroup{}
	var names []string
	for _, st := range streams {
		p := piece(t.translation, t.memos.streams, st.obj, func() *streamPiece { return t.streamPieceFor(st.obj, &t.match) })
		t.streamPlugins = append(t.streamPlugins, p.plugins...)
		for i := range p.rules {
			r := &p.rules[i]
			g := groups[*r.svc.Name]
			if g == nil {
				g = &streamGroup{rule: r}
				groups[*r.svc.Name] = g
				names = append(names, *r.svc.Name)
			}
			g.routes = append(g.routes, r.route)
		}
	}
	kept := t.keptStreams(len(names) > 0)
	if len(names) == 0 {
		return svcs, ups
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	own := make([]*document.Service, 0, len(names))
	var ownUps []*document.Upstream
	seen := map[string]bool{}
	for _, n := range names {
		own = append(own, t.streamServiceEntity(groups[n], kept))
		u := groups[n].rule.up
		if !seen[*u.Name] && !hasName(ups, *u.Name, upstreamEntityName) {
			seen[*u.Name] = true
			u = keepEqual(kept.ups, u, upstreamEntityName)
			if t.keep {
				t.memos.streamKept.ups[*u.Name] = u
			}
			ownUps = append(ownUps, u)
		}
	}
	slices.SortFunc(ownUps, func(a, b *document.Upstream) int { return strings.Compare(*b.Name, *a.Name) })
	svcs = t.replaceIngressServices(svcs, groups)
	return mergeDesc(svcs, own, serviceName), mergeDesc(ups, ownUps, upstreamEntityName)
}

func serviceName(s *document.Service) string         { return *s.Name }
func upstreamEntityName(u *document.Upstream) string { return *u.Name }

// hasName reports whether list (by name, descending) holds an item named n.
func hasName[T any](list []T, n string, name func(T) string) bool {
	_, found := slices.BinarySearchFunc(list, n, func(x T, n string) int { return strings.Compare(n, name(x)) })
	return found
}

// keptStreams returns the last build's stream entities and starts this build's.
func (t *streamBuild) keptStreams(any bool) *streamKept {
	if !t.keep {
		return &streamKept{}
	}
	k := &t.memos.streamKept
	last := *k
	*k = streamKept{}
	if any {
		k.svcs, k.ups = map[string]*document.Service{}, map[string]*document.Upstream{}
	}
	return &streamKept{svcs: last.svcs, ups: last.ups}
}

// keepEqual returns the last build's entity of the same name when equal to e.
func keepEqual[T any](last map[string]T, e T, name func(T) string) T {
	if last == nil {
		return e
	}
	if old, ok := last[name(e)]; ok && reflect.DeepEqual(old, e) {
		return old
	}
	return e
}

// streamServiceEntity is a group's Kong service: the first rule's, with every route (sorted)
// and the certificates its Service's annotations name resolved (such a service is never kept:
// its certificate id is set by assemble).
func (t *streamBuild) streamServiceEntity(g *streamGroup, kept *streamKept) *document.Service {
	s := *g.rule.svc
	s.Routes = slices.Clone(g.routes)
	sortRoutes(s.Routes)
	info := g.rule.info
	if info.claimsCerts() {
		t.tls.resolveServiceCerts(g.rule.k8s, info, &s.Service)
		return &s
	}
	e := keepEqual(kept.svcs, &s, serviceName)
	if t.keep {
		t.memos.streamKept.svcs[*e.Name] = e
	}
	return e
}

// replaceIngressServices drops the Kong services the stream groups replace (an Ingress's Kong
// service of the same name), with a problem on each Ingress whose routes it held.
func (t *streamBuild) replaceIngressServices(svcs []*document.Service, groups map[string]*streamGroup) []*document.Service {
	var out []*document.Service
	for i, s := range svcs {
		g := groups[*s.Name]
		if g == nil {
			if out != nil {
				out = append(out, s)
			}
			continue
		}
		if out == nil {
			out = slices.Clone(svcs[:i])
		}
		ns, name, _ := tagObject(g.routes[0].Tags)
		for _, r := range s.Routes {
			if ins, iname, ok := routeIngress(r); ok {
				t.problem(store.Ref{Kind: store.KindIngress, Namespace: ins, Name: iname}, "spec",
					"route %s goes to Kong service %s, which TCPIngress %s/%s also makes (same Service port); as in KIC, the TCPIngress's Kong service is kept and this route dropped",
					*r.Name, *s.Name, ns, name)
			}
		}
	}
	if out == nil {
		return svcs
	}
	return out
}

// streamBuild is the stream family's view of one build: the build context and the memos the
// family keeps, which assemble hands it.
type streamBuild struct {
	*translation
	memos *streamMemos
	tls   *certBuilder // the certificates this build claims (certtls.go)
	match routeMatch   // the routes' match descriptions (routematch.go)
}

// streamMemos are what the TCPIngress and UDPIngress family keeps between builds.
type streamMemos struct {
	streams    *memo[store.Object, *streamPiece]
	streamKept streamKept // streamPart's entities
}
