package translator

import (
	"strconv"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// Reasons of the Gateway API's route conditions (Accepted, ResolvedRefs) that problems cite and
// statuses carry.
const (
	ReasonAccepted               = "Accepted"
	ReasonResolvedRefs           = "ResolvedRefs"
	ReasonInvalidKind            = "InvalidKind"
	ReasonBackendNotFound        = "BackendNotFound"
	ReasonRefNotPermitted        = "RefNotPermitted"
	ReasonNotAllowedByListeners  = "NotAllowedByListeners"
	ReasonNoMatchingListenerHost = "NoMatchingListenerHostname"
	ReasonNoMatchingParent       = "NoMatchingParent"
	ReasonUnsupportedValue       = "UnsupportedValue"
)

// routeRef is the ref of a route object of kind.
func routeRef(kind store.Kind, obj store.Object) store.Ref {
	return store.Ref{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// resolveBackendRefs resolves a rule's n backendRefs (refAt gives each) as KIC does, keeping
// spec order; the first few live in ar, when given. A ref
// without a kind (an API server defaults it to Service; only manifests lack it), of a kind or
// group other than core Service, to a missing Service, or into another namespace that no
// ReferenceGrant opens is skipped with a problem on the route. A ref whose port is missing or
// not declared by the Service stays (its Service's tags and annotations count) without targets.
// It returns the ResolvedRefs reason and message of the first skipped ref ("" when all
// resolved).
func (t *translation) resolveBackendRefs(ref store.Ref, n int, refAt func(int) *gatewayv1.BackendRef, field string,
	ar *routeArena) ([]gwBackend, refsVerdict) {
	var out []gwBackend
	if n > 0 && ar.take(takenBackends) {
		out = ar.bes[:0]
	}
	var v refsVerdict
	fail := func(r string) {
		if v.reason == "" {
			p := t.problems[len(t.problems)-1]
			v = refsVerdict{reason: r, message: p.Field + ": " + p.Reason}
		}
	}
	for i := range n {
		br := refAt(i)
		f := field + ".backendRefs[" + strconv.Itoa(i) + "]"
		ns := ref.Namespace
		if br.Namespace != nil && *br.Namespace != "" {
			ns = string(*br.Namespace)
		}
		switch {
		case br.Kind == nil:
			t.problem(ref, f+".kind", "not set (an API server defaults it to Service; this manifest was not defaulted); backend skipped, as KIC skips it")
			fail(ReasonInvalidKind)
			continue
		case *br.Kind != "Service" || (br.Group != nil && *br.Group != "" && *br.Group != "core"):
			t.problem(ref, f+".kind", "%s is not supported, only core Service; backend skipped", groupKind(br.Group, *br.Kind))
			fail(ReasonInvalidKind)
			continue
		}
		svc, ok := t.snap.Service(ns, string(br.Name))
		if !ok {
			t.missingRef(ref, f+".name", "Service %s/%s not found; backend skipped", ns, br.Name)
			fail(ReasonBackendNotFound)
			continue
		}
		if ns != ref.Namespace && !t.grantAllows(ref, ns, "", "Service", string(br.Name)) {
			t.missingRef(ref, f+".namespace", "no ReferenceGrant in namespace %s allows %s from namespace %s to Service %s; backend skipped",
				ns, ref.Kind, ref.Namespace, br.Name)
			fail(ReasonRefNotPermitted)
			continue
		}
		b := gwBackend{svc: svc, weight: br.Weight}
		switch {
		case br.Port == nil:
			t.problem(ref, f+".port", "not set; a Service backend needs a port: its Kong service gets no targets from it")
			fail(ReasonBackendNotFound)
		default:
			if b.port = servicePortByNumber(svc, int32(*br.Port)); b.port == nil {
				t.problem(ref, f+".port", "Service %s/%s has no port %d; its Kong service gets no targets from it", ns, br.Name, *br.Port)
				fail(ReasonBackendNotFound)
			}
		}
		out = append(out, b)
	}
	return out, v
}

// unservedRefs resolves the backendRefs of a route no parent accepted, for its ResolvedRefs
// condition alone (KIC writes it on every parent, accepted or not, from the spec): the route is
// not translated, so the problems resolving them reports are dropped. rules are each rule's
// backendRefs in spec order; the verdict is the first that does not resolve.
func (t *translation) unservedRefs(ref store.Ref, rules [][]gatewayv1.BackendRef) refsVerdict {
	n := len(t.problems)
	defer func() { t.problems = t.problems[:n] }()
	for i, refs := range rules {
		if _, v := t.resolveBackendRefs(ref, len(refs), func(k int) *gatewayv1.BackendRef { return &refs[k] },
			"spec.rules["+strconv.Itoa(i)+"]", nil); v.reason != "" {
			return v
		}
	}
	return refsVerdict{}
}

// refsVerdict is how a route's backendRefs resolved: the ResolvedRefs reason and message of
// the first that did not ("" when all did).
type refsVerdict struct{ reason, message string }

func groupKind(g *gatewayv1.Group, k gatewayv1.Kind) string {
	if g == nil || *g == "" {
		return string(k)
	}
	return string(k) + "." + string(*g)
}

// buildRouteService makes the Kong service and upstream of rs for route obj of kind, in the
// piece's arena when it has one. It makes none when the Services behind it disagree on
// konghq.com/ annotations (problems on them).
func (t *translation) buildRouteService(p *routePiece, kind store.Kind, obj store.Object, rs *routeService) {
	var buf [2]*corev1.Service
	svcs := distinctServices(rs.backends, buf[:0])
	if !t.consistentAnnotations(rs.name, svcs) {
		return
	}
	ar := p.arena
	inArena := ar.take(takenService)
	var a *routeServiceAlloc
	var info *serviceInfo
	if inArena {
		a, info = &ar.svc, &ar.info
	} else {
		a, info = new(routeServiceAlloc), new(serviceInfo)
	}
	pack := ar.strings(0)
	var tags []*string
	switch len(svcs) {
	case 0:
		tags = unknownServiceTags()
	case 1:
		tags = objectTagsPacked(store.KindService, svcs[0], &info.tagData, &t.nsTag, pack)
	default:
		tags = p.objTags(t, kind, obj)
	}
	if len(svcs) > 0 && hasKeyPrefix(svcs[0].Annotations, annPrefix) {
		t.parseServiceOptions(svcs[0], info)
	}
	a.name, a.protocol = rs.name, rs.protocol
	if pack != nil {
		a.id = pack.addID(t.ids.services, rs.name)
	} else {
		var own strPack
		own.grow(36)
		a.id = own.addID(t.ids.services, rs.name)
	}
	s := t.routeServiceEntity(a, rs, tags, info)
	if len(svcs) > 0 && info.claimsCerts() {
		p.certs = append(p.certs, routeCertUse{pos: len(p.services), svc: svcs[0], info: info})
	}
	var u *document.Upstream
	if inArena {
		p.services, p.upstreams = ar.svcs[:0], ar.ups[:0]
		u = &ar.up
	}
	p.services = append(p.services, s)
	p.upstreams = append(p.upstreams, t.routeUpstream(u, rs, svcs, tags, info, ar, inArena))
}

// routeServiceEntity is the Kong service of rs in a, with its routes.
func (t *translation) routeServiceEntity(a *routeServiceAlloc, rs *routeService, tags []*string, info *serviceInfo) *document.Service {
	s := &a.s
	s.Service = kong.Service{
		ID:             &a.id,
		Name:           &a.name,
		Host:           &a.name,
		Protocol:       &a.protocol,
		ConnectTimeout: t.defaults.timeout,
		ReadTimeout:    t.defaults.timeout,
		WriteTimeout:   t.defaults.timeout,
		Retries:        t.defaults.retries,
		Tags:           tags,
	}
	if rs.timeout > 0 {
		a.timeout = rs.timeout
		s.ConnectTimeout, s.ReadTimeout, s.WriteTimeout = &a.timeout, &a.timeout, &a.timeout
	}
	for _, b := range rs.backends {
		if b.port != nil {
			s.Port = t.defaults.port(b.port.Port) // the last backend's port wins, as in KIC
		}
	}
	info.apply(&s.Service)
	if len(rs.backends) == 0 && rs.refs > 0 && (rs.protocol == "http" || rs.protocol == "https" || rs.protocol == "grpc" || rs.protocol == "grpcs") {
		s.Plugins = []*kong.Plugin{{Name: kong.String("request-termination"), Config: kong.Configuration{
			"status_code": 500, "message": "no existing backendRef provided"}}}
	}
	sortRoutes(rs.routes)
	s.Routes = rs.routes
	return s
}

// distinctServices appends to out the Services of backends, each once, in order.
func distinctServices(bs []gwBackend, out []*corev1.Service) []*corev1.Service {
	for _, b := range bs {
		dup := false
		for _, s := range out {
			dup = dup || s == b.svc
		}
		if !dup {
			out = append(out, b.svc)
		}
	}
	return out
}

// unknownServiceTags are the tags KIC gives a Kong service no Kubernetes Service backs.
func unknownServiceTags() []*string {
	return kong.StringSlice(TagName+"UNKNOWN", TagNamespace+"UNKNOWN", TagKind+"Service",
		TagUID+"00000000-0000-0000-0000-000000000000", TagGroup+"core", TagVersion+"v1")
}

// routeUpstream is the upstream of a route's Kong service (in u, when given): every backend's
// targets, a backend's weight split evenly over its targets (at least 1 each unless the weight
// is 0), targets shared by backends merged with their weights summed (an unset weight counts as
// Kong's 100), and the KongUpstreamPolicy of the (first) Service applied. The first backend's
// targets live in the arena's, when inArena.
func (t *translation) routeUpstream(u *document.Upstream, rs *routeService, svcs []*corev1.Service, tags []*string, info *serviceInfo,
	ar *routeArena, inArena bool) *document.Upstream {
	if u == nil {
		u = &document.Upstream{}
	}
	u.Upstream = kong.Upstream{
		Name:       &rs.name,
		Algorithm:  t.defaults.roundRobin,
		HostHeader: info.hostHeader,
		Tags:       tags,
	}
	var ts []*kong.Target
	for _, b := range rs.backends {
		if b.port == nil {
			continue
		}
		var small *smallTargets
		var ws []int
		if inArena {
			small, ws, inArena = &ar.targets, ar.weights[:], false
		}
		ts = mergeTargets(ts, weighted(t.serviceTargetsIn(b.svc, b.port, small, ar.strings(0)), b.weight, ws))
	}
	scaleWeights(ts)
	sortTargets(ts)
	u.Targets = ts
	if len(svcs) > 0 {
		t.applyUpstreamPolicy(&u.Upstream, t.upstreamPolicy(svcs[0]).policy, svcs)
	}
	t.overrideOnGatewayBackend(svcs)
	return u
}

// weighted sets a backend's weight on its targets, KIC's way: split over the targets that do
// not drain (weight 0, --enable-drain-support), which keep their 0. The weights live in ws
// while it has room.
func weighted(ts []*kong.Target, w *int32, ws []int) []*kong.Target {
	if w == nil || len(ts) == 0 {
		return ts
	}
	live := 0
	for _, x := range ts {
		if x.Weight == nil || *x.Weight != 0 {
			live++
		}
	}
	each := int(*w)
	if each != 0 && live > 0 {
		each = max(each/live, 1)
	}
	for i, x := range ts {
		if x.Weight != nil && *x.Weight == 0 {
			continue
		}
		if i < len(ws) {
			ws[i] = each
			x.Weight = &ws[i]
		} else {
			x.Weight = kong.Int(each)
		}
	}
	return ts
}

// mergeTargets adds ts to acc; a target already there gets the sum of both weights. Each
// list is free of duplicates (endpointTargets), so the first backend's targets are taken as they
// are, and later ones are looked up through an index of acc.
func mergeTargets(acc, ts []*kong.Target) []*kong.Target {
	if len(acc) == 0 {
		return ts
	}
	at := make(map[string]*kong.Target, len(acc))
	for _, a := range acc {
		at[*a.Target] = a
	}
	for _, x := range ts {
		if a := at[*x.Target]; a != nil {
			a.Weight = kong.Int(weightOr100(a.Weight) + weightOr100(x.Weight))
			continue
		}
		acc = append(acc, x)
	}
	return acc
}

func weightOr100(w *int) int {
	if w == nil {
		return 100
	}
	return *w
}

// maxTargetWeight is the largest target weight Kong accepts.
const maxTargetWeight = 65535

// scaleWeights brings an upstream's target weights into Kong's 0-65535, keeping their
// proportions: when the largest (an unset weight is Kong's 100) is above the limit, each becomes
// round(w × 65535 / largest), at least 1 unless it was 0. Gateway API allows backendRef weights
// up to 1,000,000; KIC sends them as they are and Kong refuses the whole configuration.
func scaleWeights(ts []*kong.Target) {
	top := 0
	for _, x := range ts {
		top = max(top, weightOr100(x.Weight))
	}
	if top <= maxTargetWeight {
		return
	}
	for _, x := range ts {
		if w := weightOr100(x.Weight); w != 0 {
			x.Weight = kong.Int(max(int((int64(w)*maxTargetWeight+int64(top)/2)/int64(top)), 1))
		}
	}
}
