package translator

import (
	"slices"
	"strings"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// globalLabel marks a KongClusterPlugin that applies to every request.
const globalLabel = "global"

// globalPlugins are the served KongClusterPlugins labelled global: "true", attached to nothing.
// Two valid ones for the same plugin cancel each other out, as in KIC (a problem on each here;
// KIC only logs); one that cannot be built does not count. They keep their instance_name.
func (t *pluginStageBuild) globalPlugins(pass *pluginPass) []*pluginEntity {
	byName := map[string][]*configurationv1.KongClusterPlugin{}
	var names []string
	for _, o := range t.snap.Objects(store.KindKongClusterPlugin) {
		p, ok := o.(*configurationv1.KongClusterPlugin)
		if !ok || p.Labels[globalLabel] != "true" || !t.servesClusterPlugin(p) {
			continue
		}
		if p.PluginName == "" {
			t.problem(clusterPluginSource(p).ref, "plugin", "plugin name is empty; global KongClusterPlugin skipped")
			continue
		}
		if byName[p.PluginName] == nil {
			names = append(names, p.PluginName)
		}
		byName[p.PluginName] = append(byName[p.PluginName], p)
	}
	slices.Sort(names)
	var out []*pluginEntity
	for _, name := range names {
		var valid []*kong.Plugin
		var srcs []pluginSource
		for _, kcp := range byName[name] {
			if tmpl, ok := t.templateFor(clusterPluginSource(kcp)); ok {
				valid = append(valid, tmpl)
				srcs = append(srcs, clusterPluginSource(kcp))
			}
		}
		if len(valid) > 1 {
			for _, src := range srcs {
				t.problem(src.ref, "metadata.labels[global]",
					"%d global KongClusterPlugins configure plugin %s; none of them is applied", len(valid), name)
			}
			continue
		}
		for i := range valid {
			instance := deref(valid[i].InstanceName)
			if valid[i].InstanceName != nil && !claimInstanceName(t, pass.owner, srcs[i], instance) {
				continue
			}
			out = append(out, pass.entity(valid[i], pluginCombo{}, pluginIDInput(name, pluginCombo{}), instance))
		}
	}
	return out
}

// sortPlugins orders plugins as KIC's deckgen does: by plugin name followed by the names of
// its consumer, route and service (the entity's sortKey), descending; ties (which KIC leaves to
// map order) by id.
func sortPlugins(es []*pluginEntity) []*document.Plugin {
	slices.SortStableFunc(es, func(a, b *pluginEntity) int {
		if c := strings.Compare(b.sortKey, a.sortKey); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	if len(es) == 0 {
		return nil
	}
	out := make([]*document.Plugin, len(es))
	for i, e := range es {
		out[i] = &e.Plugin
	}
	return out
}
