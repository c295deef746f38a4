package translator

import (
	"slices"
	"strings"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// buildPlugins translates konghq.com/plugins on the served Ingresses (each of their routes),
// Services (each Kong service made from them), KongConsumers and KongConsumerGroups of the final
// document, then the
// global KongClusterPlugins, into KIC's top-level plugin list. It is part of assemble and runs
// whole on every build, from doc and the pieces (templates, the objects with the annotation). It
// also returns the relations it attached them by.
func (t *pluginStageBuild) buildPlugins(doc *document.Document, in *pluginInputs) ([]*document.Plugin, map[pluginRef]*pluginRels) {
	rels := map[pluginRef]*pluginRels{}
	t.collectServiceRels(doc, rels)
	t.collectRouteRels(doc, rels, in.routePieces, in.served)
	t.collectConsumerRels(rels, in.consumers)
	t.collectGroupRels(rels, in.groups)
	keys := make([]pluginRef, 0, len(rels))
	for k := range rels {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b pluginRef) int {
		return strings.Compare(nsNameKey(a.namespace, a.name), nsNameKey(b.namespace, b.name))
	})
	pass := &pluginPass{ids: t.ids.plugins, owner: map[string]store.Ref{}, idOwner: map[string]store.Ref{}}
	if t.keep {
		pass.prev, pass.next = t.memos.pluginEntities, make(map[pluginMemoKey]*pluginEntity, len(t.memos.pluginEntities))
	}
	var out []*pluginEntity
	for _, k := range keys {
		out = t.attachPlugin(k, rels[k], pass, out)
	}
	out = append(out, t.globalPlugins(pass)...)
	if t.keep {
		t.memos.pluginEntities = pass.next
	}
	return sortPlugins(out), rels
}

// attachPlugin resolves one referenced plugin and appends a Kong plugin per combination of the
// entities referencing it. A missing plugin is a problem on every referrer; a plugin that
// cannot be built, one on the plugin.
func (t *pluginStageBuild) attachPlugin(k pluginRef, rels *pluginRels, pass *pluginPass, out []*pluginEntity) []*pluginEntity {
	src, found := t.lookupPlugin(k.namespace, k.name)
	if !found {
		for _, list := range [][]pluginTarget{rels.services, rels.routes, rels.consumers, rels.groups} {
			for _, tg := range list {
				t.missingRef(tg.referrer, annotationField(annPlugins),
					"referenced KongPlugin or KongClusterPlugin %s does not exist in namespace %s; reference ignored",
					quoteShort(k.name), k.namespace)
			}
		}
		return out
	}
	tmpl, ok := t.templateFor(src)
	if !ok {
		return out
	}
	t.ignoredGroupRels(src, rels)
	used := map[string]bool{}
	for _, c := range rels.combinations() {
		in := pluginIDInput(*tmpl.Name, c)
		if prev, taken := pass.idOwner[in]; taken {
			t.problem(src.ref, "plugin", "plugin %s is already configured by %s on %s; not attached there",
				*tmpl.Name, prev, c.describe())
			continue
		}
		var instance string
		if tmpl.InstanceName != nil {
			instance = suffixedInstanceName(*tmpl.InstanceName, c, used)
			if prev, taken := pass.owner[instanceKey(instance)]; taken && prev != src.ref {
				// Another source's short form: 36 bits, which a tenant can search for to
				// collide with another namespace's plugin and have it left out. The full
				// digest cannot be searched for.
				instance = *tmpl.InstanceName + "-" + attachmentDigest(c)
			}
			if !claimInstanceName(t, pass.owner, src, instance) {
				continue
			}
		}
		pass.idOwner[in] = src.ref
		out = append(out, pass.entity(tmpl, c, in, instance))
	}
	return out
}
