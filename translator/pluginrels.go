package translator

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/document"
	kic "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// Who asks for which plugin, gathered from every family in one place: the Kong services of
// annotated Services, the routes of annotated Ingresses, stream and Gateway API routes, the
// annotated consumers and consumer groups. Attachment (pluginattach.go) turns these relations
// into plugin entities.

// pluginServices are the Services with konghq.com/plugins: a piece of the whole kind, reused
// while no Service changed.
func (t *pluginStageBuild) pluginServices() map[[2]string]*corev1.Service {
	return piece(t.translation, t.memos.pluginServices, struct{}{}, func() map[[2]string]*corev1.Service {
		annotated := map[[2]string]*corev1.Service{}
		for _, o := range t.snap.Objects(store.KindService) {
			if svc, ok := o.(*corev1.Service); ok && svc.Annotations[annPlugins] != "" {
				annotated[[2]string{svc.Namespace, svc.Name}] = svc
			}
		}
		return annotated
	})
}

// pluginFacades are the KongServiceFacades whose Kong services take konghq.com/plugins (their
// own, or their Service's): a piece of the whole kind, reused while no facade (nor a Service
// one reads) changed. Empty with the gate off, when no facade has a Kong service.
func (t *pluginStageBuild) pluginFacades() map[[2]string]facadePlugins {
	if !t.opts.Features.KongServiceFacade {
		return nil
	}
	return piece(t.translation, t.memos.pluginFacades, struct{}{}, func() map[[2]string]facadePlugins {
		out := map[[2]string]facadePlugins{}
		for _, o := range t.snap.Objects(store.KindKongServiceFacade) {
			fc, ok := o.(*kic.KongServiceFacade)
			if !ok {
				continue
			}
			v, own := fc.Annotations[annPlugins]
			if !own {
				if svc, ok := t.snap.Service(fc.Namespace, fc.Spec.Backend.Name); ok {
					v = svc.Annotations[annPlugins]
				}
			}
			if v != "" {
				out[[2]string{fc.Namespace, fc.Name}] = facadePlugins{
					ref: store.Ref{Kind: store.KindKongServiceFacade, Namespace: fc.Namespace, Name: fc.Name}, value: v}
			}
		}
		return out
	})
}

// collectServiceRels adds the Kong services whose Kubernetes Service has konghq.com/plugins.
// Output services are scanned only when some Service has the annotation.
func (t *pluginStageBuild) collectServiceRels(doc *document.Document, rels map[pluginRef]*pluginRels) {
	annotated, facades := t.pluginServices(), t.pluginFacades()
	if len(annotated) == 0 && len(facades) == 0 {
		return
	}
	for _, s := range doc.Services {
		ns, name, ok := tagObject(s.Tags)
		if ok && len(facades) > 0 && firstTag(s.Tags, TagKind) == string(store.KindKongServiceFacade) {
			if f, ok := facades[[2]string{ns, name}]; ok {
				for _, r := range parsePluginRefs(f.value, ns) {
					t.addRel(rels, r, relService, pluginTarget{name: *s.Name, referrer: f.ref})
				}
			}
			continue
		}
		svc := annotated[[2]string{ns, name}]
		if !ok || svc == nil {
			continue
		}
		target := pluginTarget{name: *s.Name, referrer: serviceRef(svc)}
		for _, r := range parsePluginRefs(svc.Annotations[annPlugins], ns) {
			t.addRel(rels, r, relService, target)
		}
	}
}

// collectRouteRels adds the routes of the Gateway API and stream routes with konghq.com/plugins,
// and every route of each served Ingress with it (served: its references parsed once).
func (t *pluginStageBuild) collectRouteRels(doc *document.Document, rels map[pluginRef]*pluginRels, routePieces []*routePiece, served *servedIngresses) {
	for _, p := range routePieces {
		for _, pr := range p.plugins {
			t.addRel(rels, pr.plugin, relRoute, pluginTarget{name: pr.route, referrer: pr.referrer})
		}
	}
	for _, pr := range t.streamPlugins {
		t.addRel(rels, pr.plugin, relRoute, pluginTarget{name: pr.route, referrer: pr.referrer})
	}
	annotated := served.plugins
	if len(annotated) == 0 {
		return
	}
	for _, s := range doc.Services {
		for _, r := range s.Routes {
			ns, name, ok := routeIngress(r)
			ing := annotated[[2]string{ns, name}]
			if !ok || ing == nil {
				continue
			}
			for _, pr := range ing.refs {
				t.addRel(rels, pr, relRoute, pluginTarget{name: *r.Name, referrer: ing.ref})
			}
		}
	}
}

// collectConsumerRels adds the Kong consumers whose KongConsumer has konghq.com/plugins (listed
// by translateConsumers, so that the consumers without are not visited).
func (t *pluginStageBuild) collectConsumerRels(rels map[pluginRef]*pluginRels, consumers consumerList) {
	for _, e := range consumers.plugins {
		if e.out.Username == nil {
			t.problem(e.ref, annotationField(annPlugins), "a consumer without username can carry no plugins "+
				"in a declarative config (Kong resolves a plugin's consumer by username or id, and only "+
				"consumers with a username get an id); references ignored")
			continue
		}
		target := pluginTarget{name: *e.out.Username, referrer: e.ref}
		for _, r := range parsePluginRefs(e.obj.Annotations[annPlugins], e.obj.Namespace) {
			t.addRel(rels, r, relConsumer, target)
		}
	}
}

// collectGroupRels adds the served consumer groups with konghq.com/plugins.
func (t *pluginStageBuild) collectGroupRels(rels map[pluginRef]*pluginRels, groups *consumerGroupSet) {
	if groups == nil {
		return
	}
	for _, e := range groups.plugins {
		target := pluginTarget{name: e.obj.Name, referrer: e.ref}
		for _, r := range parsePluginRefs(e.obj.Annotations[annPlugins], e.obj.Namespace) {
			t.addRel(rels, r, relConsumerGroup, target)
		}
	}
}

// ignoredGroupRels reports the consumer groups whose reference to src makes nothing because
// KongConsumers reference it too: KIC then combines the plugin with the consumers only and
// drops the groups' references without a word.
func (t *pluginStageBuild) ignoredGroupRels(src pluginSource, rels *pluginRels) {
	if len(rels.consumers) == 0 {
		return
	}
	for _, g := range rels.groups {
		t.problem(g.referrer, annotationField(annPlugins), "%s is also referenced by KongConsumers, and a "+
			"plugin is scoped either to consumers or to consumer groups (as in KIC, the consumers win); "+
			"reference ignored", src.ref)
	}
}

// addRel records that referrer asks for plugin item r on an entity of kind relService,
// relRoute, relConsumer or relConsumerGroup. A "namespace:name" item needs a ReferenceGrant in KIC; kongsync reads
// none, so it is refused as KIC refuses it without one.
func (t *pluginStageBuild) addRel(rels map[pluginRef]*pluginRels, r pluginRef, kind int, target pluginTarget) {
	if r.remote && t.grantAllows(target.referrer, r.namespace, "configuration.konghq.com", "KongPlugin", r.name) {
		r.remote = false // a ReferenceGrant in the plugin's namespace opens it to the referrer
	}
	if r.remote {
		t.missingRef(target.referrer, annotationField(annPlugins),
			"no ReferenceGrant allows the reference to KongPlugin %s in another namespace; reference ignored",
			quoteShort(r.namespace+":"+r.name))
		return
	}
	pr := rels[r]
	if pr == nil {
		pr = &pluginRels{}
		rels[r] = pr
	}
	switch kind {
	case relService:
		pr.services = append(pr.services, target)
	case relRoute:
		pr.routes = append(pr.routes, target)
	case relConsumerGroup:
		pr.groups = append(pr.groups, target)
	default:
		pr.consumers = append(pr.consumers, target)
	}
}
