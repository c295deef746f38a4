package translator

import (
	"reflect"
	"slices"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// pluginKinds are the kinds plugin attachment reads besides the Ingresses, KongConsumers and
// Secrets: plugin sources, consumer groups, annotated Services, our IngressClass, the
// ReferenceGrants that open other namespaces' KongPlugins, and the KongCustomEntities, for which
// the stage keeps its relations (only while there are some). KongConsumers reach plugins only as
// the consumer stage's list of annotated consumers, compared whole; Secrets only through the
// plugin pieces (configFrom, configPatches), whose reads the stage keeps (pluginMask), so that
// a certificate or credential Secret changing does not rebuild every plugin.
var pluginKinds = kindBit(store.KindKongPlugin) | kindBit(store.KindKongClusterPlugin) |
	kindBit(store.KindService) | kindBit(store.KindKongServiceFacade) |
	kindBit(store.KindIngressClass) | kindBit(store.KindReferenceGrant) |
	kindBit(store.KindTCPIngress) | kindBit(store.KindUDPIngress) |
	kindBit(store.KindKongConsumerGroup) | kindBit(store.KindKongCustomEntity)

// plugins is buildPlugins, or the last build's plugins and problems when nothing they are made
// of changed: no kind in pluginKinds, the same annotated consumers, the same annotated Ingresses
// (served.plugins), the same Kong services (the emit stage patched, nothing dropped either
// time), and the changed pieces' routes of the same names where their Ingress is annotated.
// It also returns who asks for which plugin (the relations the plugins were made from), which
// the custom entity stage reads; reused with the plugins, as they are made of the same.
func (t *pluginStageBuild) plugins(doc *document.Document, in *pluginInputs) ([]*document.Plugin, map[pluginRef]*pluginRels) {
	st := &t.memos.pluginStage
	if t.keep && st.pluginsGen == t.gen-1 && t.emitted && !t.dropped && in.prevServed != nil &&
		sameMap(in.served.plugins, in.prevServed.plugins) &&
		t.kinds.unchangedSince(pluginKinds|st.pluginMask, st.pluginsGen) &&
		samePluginRoutes(in.served, in.prevPS, in.ps, t.changed) &&
		slices.Equal(st.routePieces, in.routePieces) && slices.Equal(st.consumerPlugins, in.consumers.plugins) {
		t.problems = append(t.problems, st.pluginProblems...)
		st.pluginsGen = t.gen
		return st.plugins, st.rels
	}
	before := len(t.problems)
	t.pluginBuild.memos.plugins.takeMask()
	out, rels := t.buildPlugins(doc, in)
	if t.keep {
		st.pluginMask = t.pluginBuild.memos.plugins.takeMask()
		st.plugins, st.pluginProblems, st.rels = out, slices.Clone(t.problems[before:]), nil
		if len(t.snap.Objects(store.KindKongCustomEntity)) > 0 {
			st.rels = rels // the custom entity stage reads them; otherwise not worth keeping
		}
		st.routePieces = slices.Clone(in.routePieces)
		st.consumerPlugins = in.consumers.plugins
		st.pluginsGen = 0
		if !t.dropped {
			st.pluginsGen = t.gen
		}
	}
	return out, rels
}

// samePluginRoutes reports whether the pieces at the changed positions make routes of the same
// names as the old ones, where their Ingress carries konghq.com/plugins (served is this build's
// and already equal to the last one's in its annotated Ingresses).
func samePluginRoutes(served *servedIngresses, old, cur []*ingressPiece, changed []int) bool {
	if len(old) != len(cur) {
		return false
	}
	for _, i := range changed {
		ing := served.list[i]
		if _, annotated := served.plugins[[2]string{ing.Namespace, ing.Name}]; !annotated {
			continue
		}
		a, b := old[i].uses, cur[i].uses
		if len(a) != len(b) {
			return false
		}
		for j := range a {
			if *a[j].route.Name != *b[j].route.Name {
				return false
			}
		}
	}
	return true
}

// sameMap reports whether two maps are the same map (not merely equal).
func sameMap[K comparable, V any](a, b map[K]V) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
