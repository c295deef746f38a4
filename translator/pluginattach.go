package translator

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// pluginTarget is one Kong entity a plugin reference attaches to, with the object that asked.
type pluginTarget struct {
	name     string // Kong service or route name, consumer username
	referrer store.Ref
}

// pluginRels are the entities referencing one KongPlugin name in one namespace: KIC's
// "foreign relations", combined into plugin entities by combinations.
type pluginRels struct {
	services, routes, consumers []pluginTarget
}

// pluginCombo is one plugin entity's attachment: at most one of service and route, and a
// consumer or not.
type pluginCombo struct{ service, route, consumer string }

// buildPlugins translates konghq.com/plugins on the Ingresses (each of their routes), Services
// (each Kong service made from them) and KongConsumers of the final document, then the global
// KongClusterPlugins, into KIC's top-level plugin list. It reads only doc, ings and the
// snapshot, so it is recomputed whole on every translation, cached or not.
func (t *translation) buildPlugins(doc *document.Document, ings []*networkingv1.Ingress) []*document.Plugin {
	rels := map[pluginRef]*pluginRels{}
	t.collectServiceRels(doc, rels)
	t.collectRouteRels(doc, ings, rels)
	t.collectConsumerRels(doc, rels)
	keys := make([]pluginRef, 0, len(rels))
	for k := range rels {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b pluginRef) int {
		return strings.Compare(nsNameKey(a.namespace, a.name), nsNameKey(b.namespace, b.name))
	})
	var out []*document.Plugin
	owner := map[string]store.Ref{} // plugin id (and instance_name) → the source that took it first
	for _, k := range keys {
		out = t.attachPlugin(k, rels[k], owner, out)
	}
	out = append(out, t.globalPlugins(owner)...)
	sortPlugins(out)
	return out
}

// addRel records that referrer asks for plugin item r on an entity. A "namespace:name" item
// needs a ReferenceGrant in KIC; kongsync reads none, so it is refused as KIC refuses it
// without one.
func (t *translation) addRel(rels map[pluginRef]*pluginRels, r pluginRef, referrer store.Ref, add func(*pluginRels)) {
	if r.remote {
		t.problem(referrer, annotationField(annPlugins),
			"no ReferenceGrant allows the reference to KongPlugin %s in another namespace (kongsync reads no ReferenceGrants); reference ignored",
			quoteShort(r.namespace+":"+r.name))
		return
	}
	key := pluginRef{namespace: r.namespace, name: r.name}
	pr := rels[key]
	if pr == nil {
		pr = &pluginRels{}
		rels[key] = pr
	}
	add(pr)
}

// collectServiceRels adds the Kong services whose Kubernetes Service has konghq.com/plugins.
// Output services are scanned only when some Service has the annotation.
func (t *translation) collectServiceRels(doc *document.Document, rels map[pluginRef]*pluginRels) {
	annotated := map[[2]string]*corev1.Service{}
	for _, o := range t.snap.Objects(store.KindService) {
		if svc, ok := o.(*corev1.Service); ok && svc.Annotations[annPlugins] != "" {
			annotated[[2]string{svc.Namespace, svc.Name}] = svc
		}
	}
	if len(annotated) == 0 {
		return
	}
	for _, s := range doc.Services {
		ns, name, ok := tagObject(s.Tags)
		svc := annotated[[2]string{ns, name}]
		if !ok || svc == nil {
			continue
		}
		target := pluginTarget{name: *s.Name, referrer: serviceRef(svc)}
		for _, r := range parsePluginRefs(svc.Annotations[annPlugins], ns) {
			t.addRel(rels, r, target.referrer, func(p *pluginRels) { p.services = append(p.services, target) })
		}
	}
}

// collectRouteRels adds every route of each served Ingress with konghq.com/plugins.
func (t *translation) collectRouteRels(doc *document.Document, ings []*networkingv1.Ingress, rels map[pluginRef]*pluginRels) {
	annotated := map[[2]string]*networkingv1.Ingress{}
	for _, ing := range ings {
		if ing.Annotations[annPlugins] != "" {
			annotated[[2]string{ing.Namespace, ing.Name}] = ing
		}
	}
	if len(annotated) == 0 {
		return
	}
	for _, s := range doc.Services {
		for _, r := range s.Routes {
			ns, name, ok := tagObject(r.Tags)
			ing := annotated[[2]string{ns, name}]
			if !ok || ing == nil {
				continue
			}
			target := pluginTarget{name: *r.Name, referrer: ingressRef(ing)}
			for _, pr := range parsePluginRefs(ing.Annotations[annPlugins], ns) {
				t.addRel(rels, pr, target.referrer, func(p *pluginRels) { p.routes = append(p.routes, target) })
			}
		}
	}
}

// collectConsumerRels adds the Kong consumers whose KongConsumer has konghq.com/plugins.
func (t *translation) collectConsumerRels(doc *document.Document, rels map[pluginRef]*pluginRels) {
	for _, c := range doc.Consumers {
		ns, name, ok := tagObject(c.Tags)
		if !ok {
			continue
		}
		o, ok := t.snap.Get(store.Ref{Kind: store.KindKongConsumer, Namespace: ns, Name: name})
		kc, isConsumer := o.(*configurationv1.KongConsumer)
		if !ok || !isConsumer || kc.Annotations[annPlugins] == "" {
			continue
		}
		referrer := store.Ref{Kind: store.KindKongConsumer, Namespace: ns, Name: name}
		if c.Username == nil {
			t.problem(referrer, annotationField(annPlugins), "a consumer without username can carry no plugins "+
				"in a declarative config (Kong resolves a plugin's consumer by username or id, and only "+
				"consumers with a username get an id); references ignored")
			continue
		}
		target := pluginTarget{name: *c.Username, referrer: referrer}
		for _, r := range parsePluginRefs(kc.Annotations[annPlugins], ns) {
			t.addRel(rels, r, target.referrer, func(p *pluginRels) { p.consumers = append(p.consumers, target) })
		}
	}
}

// tagObject reads the namespace and name of the object an entity came from out of its
// k8s-namespace and k8s-name tags, the first of each (KIC's fixed tags precede user tags).
func tagObject(tags []*string) (ns, name string, ok bool) {
	var haveNS, haveName bool
	for _, tp := range tags {
		if tp == nil {
			continue
		}
		switch tag := *tp; {
		case !haveName && strings.HasPrefix(tag, tagName):
			name, haveName = tag[len(tagName):], true
		case !haveNS && strings.HasPrefix(tag, tagNamespace):
			ns, haveNS = tag[len(tagNamespace):], true
		}
	}
	return ns, name, haveNS && haveName
}

// attachPlugin resolves one referenced plugin and appends a Kong plugin per combination of the
// entities referencing it. A missing plugin is a problem on every referrer; a plugin that
// cannot be built, one on the plugin.
func (t *translation) attachPlugin(k pluginRef, rels *pluginRels, owner map[string]store.Ref, out []*document.Plugin) []*document.Plugin {
	src, found := t.lookupPlugin(k.namespace, k.name)
	if !found {
		for _, list := range [][]pluginTarget{rels.services, rels.routes, rels.consumers} {
			for _, tg := range list {
				t.problem(tg.referrer, annotationField(annPlugins),
					"referenced KongPlugin or KongClusterPlugin %s does not exist in namespace %s; reference ignored",
					quoteShort(k.name), k.namespace)
			}
		}
		return out
	}
	tmpl, ok := t.pluginTemplate(src)
	if !ok {
		return out
	}
	used := map[string]bool{}
	for _, c := range rels.combinations() {
		p := &document.Plugin{Plugin: tmpl}
		p.Tags = slices.Clone(tmpl.Tags)
		p.ID = kong.String(pluginID(*tmpl.Name, c))
		if prev, taken := owner[*p.ID]; taken {
			t.problem(src.ref, "plugin", "plugin %s is already configured by %s on %s; not attached there",
				*tmpl.Name, prev, c.describe())
			continue
		}
		if tmpl.InstanceName != nil {
			p.InstanceName = kong.String(suffixedInstanceName(*tmpl.InstanceName, c, used))
			if !claimInstanceName(t, owner, src, *p.InstanceName) {
				continue
			}
		}
		owner[*p.ID] = src.ref
		c.setRefs(&p.Plugin)
		out = append(out, p)
	}
	return out
}

// claimInstanceName records that src's plugin uses instance_name name, which Kong keeps unique
// across all plugins. Two KongPlugins with one instance_name on one entity (or a global one
// repeating another's) would collide, and KIC sends both: the later is reported and left out.
func claimInstanceName(t *translation, owner map[string]store.Ref, src pluginSource, name string) bool {
	key := "instance_name\x00" + name
	if prev, taken := owner[key]; taken && prev != src.ref {
		t.problem(src.ref, "instance_name", "instance_name %s is already used by %s; plugin not attached there",
			quoteShort(name), prev)
		return false
	}
	owner[key] = src.ref
	return true
}

// combinations are KIC's plugin relations: with consumers, one plugin per consumer and service
// or route (per consumer alone when there are none); without, one per service and per route.
// Entities are taken by name, each once, so a repeated reference makes no duplicate entity.
func (r *pluginRels) combinations() []pluginCombo {
	services, routes, consumers := uniqueTargets(r.services), uniqueTargets(r.routes), uniqueTargets(r.consumers)
	var out []pluginCombo
	if len(consumers) == 0 {
		consumers = []pluginTarget{{}}
	}
	for _, c := range consumers {
		base := pluginCombo{consumer: c.name}
		if len(services)+len(routes) == 0 {
			out = append(out, base)
		}
		for _, s := range services {
			combo := base
			combo.service = s.name
			out = append(out, combo)
		}
		for _, rt := range routes {
			combo := base
			combo.route = rt.name
			out = append(out, combo)
		}
	}
	return out
}

// uniqueTargets sorts targets by name and keeps the first of each name.
func uniqueTargets(ts []pluginTarget) []pluginTarget {
	out := slices.Clone(ts)
	slices.SortStableFunc(out, func(a, b pluginTarget) int { return strings.Compare(a.name, b.name) })
	return slices.CompactFunc(out, func(a, b pluginTarget) bool { return a.name == b.name })
}

// setRefs points the plugin at its entities by name (the document writes the names). The
// consumer's username goes in ID, as in KIC.
func (c pluginCombo) setRefs(p *kong.Plugin) {
	if c.service != "" {
		p.Service = &kong.Service{Name: kong.String(c.service)}
	}
	if c.route != "" {
		p.Route = &kong.Route{Name: kong.String(c.route)}
	}
	if c.consumer != "" {
		p.Consumer = &kong.Consumer{ID: kong.String(c.consumer)}
	}
}

func (c pluginCombo) describe() string {
	var parts []string
	for _, f := range [...]struct{ kind, name string }{{"service", c.service}, {"route", c.route}, {"consumer", c.consumer}} {
		if f.name != "" {
			parts = append(parts, f.kind+" "+f.name)
		}
	}
	if len(parts) == 0 {
		return "every request"
	}
	return strings.Join(parts, " and ")
}

// pluginID is go-kong's FillID for a plugin: the UUIDv5 of its name and the names of its
// service, route and consumer, in that order.
func pluginID(name string, c pluginCombo) string {
	var b strings.Builder
	b.WriteString(name)
	if c.service != "" {
		b.WriteString(":service/" + c.service)
	}
	if c.route != "" {
		b.WriteString(":route/" + c.route)
	}
	if c.consumer != "" {
		b.WriteString(":consumer/" + c.consumer)
	}
	return newIDSpace("plugins").id(b.String())
}

// suffixedInstanceName keeps instance_name unique across the entities one KongPlugin attaches
// to, as KIC does: "-" and the first 9 hex digits of the SHA-256 of the attachment
// ("_service-<name>", "_route-<name>", "_consumer-<name>"), or all 64 should the short form
// repeat within the plugin.
func suffixedInstanceName(base string, c pluginCombo, used map[string]bool) string {
	var h strings.Builder
	if c.service != "" {
		h.WriteString("_service-" + c.service)
	}
	if c.route != "" {
		h.WriteString("_route-" + c.route)
	}
	if c.consumer != "" {
		h.WriteString("_consumer-" + c.consumer)
	}
	sum := sha256.Sum256([]byte(h.String()))
	full := hex.EncodeToString(sum[:])
	name := base + "-" + full[:9]
	if used[name] {
		name = base + "-" + full
	}
	used[name] = true
	return name
}
