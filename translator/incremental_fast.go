package translator

import (
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// maxFastChanges bounds the changed objects the fast path handles; beyond it a (cached) full
// translation is as cheap.
const maxFastChanges = 64

// lastBuild is what Cache keeps of its previous result to patch it: the snapshot's sorted
// object lists, the Kong services with their routes, and where each entity sits in the output.
type lastBuild struct {
	views     map[store.Kind][]store.Object
	services  map[string]*kongService // by Kong service name, after the default backend
	defaultKS string                  // Kong service holding the default backend route
	doc       *document.Document
	problems  []Problem
	svcAt     map[string]int         // Kong service name → index in doc.Services
	upAt      map[string]int         // upstream name → index in doc.Upstreams
	bySvc     map[[2]string][]string // Kubernetes Service → its Kong services' names
	// byPolicy indexes Kong services by the KongUpstreamPolicy (namespace, name) their Service
	// names, so a policy change rebuilds exactly their upstreams.
	byPolicy map[[2]string][]string
	// claims counts, per match key of dropAmbiguousPaths, the rule-route paths of each Kong
	// service that claim it, before drops; dropped marks the services that lost paths.
	claims  map[matchKey][]svcCount
	dropped map[int]bool
}

// svcCount is how many paths of one Kong service claim a match key.
type svcCount struct {
	svc string
	n   int
}

// remember keeps the state of a full translation for patching by the fast path.
func (c *Cache) remember(t *translation, res Result) {
	lb := &lastBuild{
		views: map[store.Kind][]store.Object{}, services: t.services, defaultKS: t.defaultKS,
		doc: res.Document, problems: res.Problems,
		svcAt: make(map[string]int, len(res.Document.Services)),
		upAt:  make(map[string]int, len(res.Document.Upstreams)),
		bySvc: make(map[[2]string][]string, len(t.services)), byPolicy: map[[2]string][]string{},
	}
	for _, k := range store.Kinds {
		lb.views[k] = t.snap.Objects(k)
	}
	for i, s := range res.Document.Services {
		lb.svcAt[*s.Name] = i
	}
	for i, u := range res.Document.Upstreams {
		lb.upAt[*u.Name] = i
	}
	for _, ks := range t.services {
		key := [2]string{ks.svc.Namespace, ks.svc.Name}
		lb.bySvc[key] = append(lb.bySvc[key], ks.name)
		if pol, ok := ks.svc.Annotations[annUpstreamPolicy]; ok {
			pk := [2]string{ks.svc.Namespace, pol}
			lb.byPolicy[pk] = append(lb.byPolicy[pk], ks.name)
		}
	}
	lb.claims, lb.dropped = make(map[matchKey][]svcCount, len(t.preDrop)), map[int]bool{}
	for i, s := range t.preDrop {
		if i < len(res.Document.Services) && res.Document.Services[i] != s {
			lb.dropped[i] = true
		}
		for _, r := range s.Routes {
			if r != t.defaultRoute {
				lb.claim(*s.Name, r, 1)
			}
		}
	}
	c.last = lb
}

// claim adds (delta 1) or removes (-1) a rule route's paths from the claims, and reports
// whether any of its match keys is also claimed by another Kong service: then the route takes
// part in dropAmbiguousPaths' decision, which only a full translation makes.
func (lb *lastBuild) claim(svc string, r *document.Route, delta int) bool {
	shared := false
	var kb [4]matchKey
	for _, p := range r.Paths {
		if p == nil {
			continue
		}
		for _, k := range matchKeys(r, *p, kb[:0]) {
			list := lb.claims[k]
			found := false
			for i := range list {
				if list[i].svc == svc {
					list[i].n += delta
					found = true
				} else if list[i].n > 0 {
					shared = true
				}
			}
			if !found {
				list = append(list, svcCount{svc: svc, n: delta})
			}
			lb.claims[k] = list
		}
	}
	return shared
}

// sameSlice reports whether two object lists are the same list: snapshots share the lists of
// kinds that did not change.
func sameSlice(a, b []store.Object) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// objectChange is one object that differs between two snapshots (nil: absent).
type objectChange struct{ old, cur store.Object }

// diffSorted lists the objects that differ between two lists sorted by namespace/name, or
// false when more than limit do.
func diffSorted(a, b []store.Object, limit int) ([]objectChange, bool) {
	var out []objectChange
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if i < len(a) && j < len(b) && a[i] == b[j] {
			i, j = i+1, j+1
			continue
		}
		var ch objectChange
		switch cmp := compareRefs(a, b, i, j); {
		case cmp == 0:
			ch, i, j = objectChange{a[i], b[j]}, i+1, j+1
		case cmp < 0:
			ch, i = objectChange{old: a[i]}, i+1
		default:
			ch, j = objectChange{cur: b[j]}, j+1
		}
		if out = append(out, ch); len(out) > limit {
			return nil, false
		}
	}
	return out, true
}

// compareRefs orders a[i] and b[j] by namespace, then name; a missing element sorts last.
func compareRefs(a, b []store.Object, i, j int) int {
	switch {
	case i >= len(a):
		return 1
	case j >= len(b):
		return -1
	}
	x, y := a[i], b[j]
	if x.GetNamespace() != y.GetNamespace() {
		if x.GetNamespace() < y.GetNamespace() {
			return -1
		}
		return 1
	}
	switch {
	case x.GetName() < y.GetName():
		return -1
	case x.GetName() > y.GetName():
		return 1
	}
	return 0
}

// fastPatch is the fast path's work in progress: copies of the output lists and Kong services
// being changed, committed only when every change could be applied.
type fastPatch struct {
	t        *translation
	lb       *lastBuild
	services []*document.Service
	ups      []*document.Upstream
	changed  map[string]*kongService // Kong services whose routes change, by name
	dropRefs map[store.Ref]bool      // Ingresses whose problems are replaced (true: but not TLS ones)
	problems []Problem
	forget   []*networkingv1.Ingress // old versions whose memos go once the patch is committed
	upsCopy  bool                    // ups is a copy, writable
	plugins  bool                    // a changed Ingress has konghq.com/plugins: rebuild plugins
}

// fastTranslate patches the previous result when only Ingresses, EndpointSlices and
// KongUpstreamPolicies changed, few of them, and in ways that cannot move a decision across
// objects: no TLS or default backend on either version of a changed Ingress, no Kong service
// appearing or disappearing. A changed policy rebuilds the upstreams of the Kong services of
// the Services naming it (lastBuild.byPolicy), nothing else.
// Plugins (and their problems) are kept when no version of a changed Ingress has
// konghq.com/plugins, or both versions have the same annotation and route names: plugins
// attach by name to routes of Ingresses with the annotation, to Kong services (none appears,
// disappears or is dropped) and to consumers (unchanged), and read no other kind the fast path
// accepts changes of. Otherwise they are rebuilt from the patched document, with their problems.
// It returns false, having changed nothing, when the change needs a full translation.
func (c *Cache) fastTranslate(snap *store.Snapshot) (Result, bool) {
	lb := c.last
	if lb == nil {
		return Result{}, false
	}
	for _, k := range store.Kinds {
		if k != store.KindIngress && k != store.KindEndpointSlice && k != store.KindKongUpstreamPolicy &&
			!sameSlice(lb.views[k], snap.Objects(k)) {
			return Result{}, false
		}
	}
	ingChanges, ok := diffSorted(lb.views[store.KindIngress], snap.Objects(store.KindIngress), maxFastChanges)
	if !ok {
		return Result{}, false
	}
	esChanges, ok := diffSorted(lb.views[store.KindEndpointSlice], snap.Objects(store.KindEndpointSlice), maxFastChanges)
	if !ok {
		return Result{}, false
	}
	polChanges, ok := diffSorted(lb.views[store.KindKongUpstreamPolicy], snap.Objects(store.KindKongUpstreamPolicy), maxFastChanges)
	if !ok {
		return Result{}, false
	}
	p := c.newPatch(snap)
	for _, ch := range ingChanges {
		if !p.ingress(ch) {
			return Result{}, false
		}
	}
	if !p.rebuildServices() {
		return Result{}, false
	}
	for _, ch := range esChanges {
		if !p.endpointSlice(ch) {
			return Result{}, false
		}
	}
	for _, ch := range polChanges {
		if !p.upstreamPolicy(ch) {
			return Result{}, false
		}
	}
	return p.commit(snap), true
}

func (c *Cache) newPatch(snap *store.Snapshot) *fastPatch {
	lb := c.last
	t := &translation{
		cache: c, snap: snap, opts: c.opts, defaultClass: snap.IsDefaultClass(c.opts.IngressClass),
		defaults: c.defaults, services: map[string]*kongService{}, svcInfo: map[*corev1.Service]*serviceInfo{},
		certs: map[string]*certEntry{}, sniOwner: map[string]*certEntry{}, caCertIDs: map[string]bool{},
	}
	t.ids.services, t.ids.routes = newIDSpace("services"), newIDSpace("routes")
	return &fastPatch{t: t, lb: lb, services: lb.doc.Services, ups: lb.doc.Upstreams,
		changed: map[string]*kongService{}, dropRefs: map[store.Ref]bool{}}
}

// ingress replaces the routes and problems of one changed Ingress. An Ingress with TLS entries
// is patched only when both versions are served with the same entries and creation time: then
// its TLS host claims, certificates and TLS problems are what they were.
func (p *fastPatch) ingress(ch objectChange) bool {
	c := p.t.cache
	old, _ := ch.old.(*networkingv1.Ingress)
	cur, _ := ch.cur.(*networkingv1.Ingress)
	var oldMemo *rulesMemo
	if m, ok := c.rules[old]; ok && old != nil && m.gen == c.gen {
		oldMemo = m
	}
	served := cur != nil && p.t.servesIngress(cur)
	keepTLS := false
	for _, ing := range []*networkingv1.Ingress{old, cur} {
		if ing == nil {
			continue
		}
		if ing.Spec.DefaultBackend != nil {
			return false
		}
		if len(ing.Spec.TLS) > 0 {
			if !sameTLS(old, cur) || oldMemo == nil || !served {
				return false
			}
			keepTLS = true
		}
		p.dropRefs[ingressRef(ing)] = keepTLS
	}
	if oldMemo != nil {
		if !p.detach(oldMemo) {
			return false
		}
		p.forget = append(p.forget, old)
	}
	if !served {
		p.plugins = p.plugins || p.pluginsChange(old, cur, oldMemo, false)
		return true
	}
	before := len(p.t.problems)
	rs := p.t.routeSettingsFor(cur)
	p.t.rulesFor(cur, rs)
	p.problems = append(p.problems, p.t.problems[before:]...)
	for _, u := range c.rules[cur].uses {
		ks := p.kongService(u)
		if ks == nil || p.lb.claim(u.name, u.route, 1) {
			return false
		}
		ks.routes = append(ks.routes, u.route)
	}
	p.plugins = p.plugins || p.pluginsChange(old, cur, oldMemo, true)
	return true
}

// pluginsChange reports whether replacing old by cur can change the plugins or their problems:
// when either version has konghq.com/plugins, unless both are served with the same annotation
// and make routes of the same names (a plugin names its route; nothing else of the Ingress
// reaches it).
func (p *fastPatch) pluginsChange(old, cur *networkingv1.Ingress, oldMemo *rulesMemo, served bool) bool {
	a, b := "", ""
	if old != nil {
		a = old.Annotations[annPlugins]
	}
	if cur != nil {
		b = cur.Annotations[annPlugins]
	}
	if a == "" && b == "" {
		return false
	}
	newMemo := p.t.cache.rules[cur]
	if a != b || oldMemo == nil || !served || newMemo == nil || len(newMemo.uses) != len(oldMemo.uses) {
		return true
	}
	return !slices.Equal(routeNames(oldMemo.uses), routeNames(newMemo.uses))
}

func routeNames(uses []ruleUse) []string {
	out := make([]string, len(uses))
	for i, u := range uses {
		out[i] = *u.route.Name
	}
	slices.Sort(out)
	return out
}

// sameTLS reports whether two versions of an Ingress make the same TLS host claims.
func sameTLS(a, b *networkingv1.Ingress) bool {
	return a != nil && b != nil && a.CreationTimestamp.Equal(&b.CreationTimestamp) &&
		reflect.DeepEqual(a.Spec.TLS, b.Spec.TLS)
}

// kongService returns the copy being patched of a use's Kong service, or nil when the use does
// not match the existing Kong service (a new one, or a different Service or port).
func (p *fastPatch) kongService(u ruleUse) *kongService {
	if ks, ok := p.changed[u.name]; ok {
		return ks
	}
	old, ok := p.lb.services[u.name]
	if !ok || old.svc != u.svc || old.port != u.port || u.name == p.lb.defaultKS || len(old.routes) == 0 {
		return nil
	}
	ks := *old
	ks.routes = slices.Clone(old.routes)
	p.changed[u.name] = &ks
	return &ks
}

// detach removes an old Ingress version's routes from their Kong services.
func (p *fastPatch) detach(m *rulesMemo) bool {
	for _, u := range m.uses {
		ks := p.kongService(u)
		if ks == nil {
			return false
		}
		i := slices.Index(ks.routes, u.route)
		if i < 0 || p.lb.claim(u.name, u.route, -1) {
			return false
		}
		ks.routes = slices.Delete(ks.routes, i, i+1)
	}
	return true
}

// rebuildServices rebuilds the Kong services whose routes changed, in place in the output.
func (p *fastPatch) rebuildServices() bool {
	if len(p.changed) == 0 {
		return true
	}
	p.services = slices.Clone(p.services)
	for name, ks := range p.changed {
		if len(ks.routes) == 0 || readsOthers(ks.svc) {
			return false
		}
		m, ok := p.t.cache.svcInfo[ks.svc]
		at, found := p.lb.svcAt[name]
		if !ok || !found || p.lb.dropped[at] {
			return false
		}
		p.services[at] = p.t.serviceFor(ks, m.info)
	}
	return true
}

// endpointSlice rebuilds the upstreams of the Service an EndpointSlice (old or new) belongs to.
func (p *fastPatch) endpointSlice(ch objectChange) bool {
	for _, o := range []store.Object{ch.old, ch.cur} {
		if o == nil {
			continue
		}
		es := o.(*discoveryv1.EndpointSlice)
		if !p.rebuildUpstreams(p.lb.bySvc[[2]string{es.Namespace, es.Labels[discoveryv1.LabelServiceName]}]) {
			return false
		}
	}
	return true
}

// upstreamPolicy rebuilds the upstreams of the Kong services whose Service names a changed
// (added, updated or deleted) KongUpstreamPolicy, found through the byPolicy index.
func (p *fastPatch) upstreamPolicy(ch objectChange) bool {
	o := ch.cur
	if o == nil {
		o = ch.old
	}
	return p.rebuildUpstreams(p.lb.byPolicy[[2]string{o.GetNamespace(), o.GetName()}])
}

// rebuildUpstreams rebuilds, in place in the output, the upstreams of the named Kong services.
// Upstreams with problems (on EndpointSlices, Services, policies), before or after, need a full
// pass: only it replaces their problems.
func (p *fastPatch) rebuildUpstreams(names []string) bool {
	for _, name := range names {
		ks := p.lb.services[name]
		at, ok := p.lb.upAt[ks.host]
		if !ok {
			continue // no routes: not in the output
		}
		m, known := p.t.cache.svcInfo[ks.svc]
		if !known {
			return false
		}
		if old := p.t.cache.upstreams[name]; old == nil || len(old.problems) > 0 {
			return false
		}
		if !p.upsCopy {
			p.ups, p.upsCopy = slices.Clone(p.ups), true
		}
		p.ups[at] = p.t.upstreamFor(ks, m.info)
		if len(p.t.cache.upstreams[name].problems) > 0 {
			return false
		}
	}
	return true
}

// commit makes the patched result the cache's last build and returns it.
func (p *fastPatch) commit(snap *store.Snapshot) Result {
	c, lb := p.t.cache, p.lb
	doc := *lb.doc
	doc.Services, doc.Upstreams = p.services, p.ups
	var pluginProblems []Problem
	if p.plugins {
		before := len(p.t.problems)
		doc.Plugins = p.t.buildPlugins(&doc)
		pluginProblems = p.t.problems[before:]
	}
	problems := make([]Problem, 0, len(lb.problems)+len(p.problems)+len(pluginProblems))
	for _, pr := range lb.problems {
		if isPluginProblem(pr) {
			if !p.plugins {
				problems = append(problems, pr) // plugins unchanged: so are their problems
			}
			continue // else replaced by pluginProblems
		}
		keepTLS, changed := p.dropRefs[pr.Object]
		if !changed || keepTLS && strings.HasPrefix(pr.Field, "spec.tls") {
			problems = append(problems, pr)
		}
	}
	problems = finishProblems(append(append(problems, p.problems...), pluginProblems...))
	for name, ks := range p.changed {
		lb.services[name] = ks
	}
	for _, old := range p.forget {
		delete(c.rules, old)
		delete(c.settings, old)
	}
	for _, k := range store.Kinds {
		lb.views[k] = snap.Objects(k)
	}
	lb.doc, lb.problems = &doc, problems
	return Result{Document: &doc, Problems: problems}
}
