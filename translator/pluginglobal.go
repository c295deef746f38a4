package translator

import (
	"slices"

	"github.com/kong/go-kong/kong"

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

// claimInstanceName records that src's plugin uses instance_name name, which Kong keeps unique
// across all plugins. Two KongPlugins with one instance_name on one entity (or a global one
// repeating another's) would collide, and KIC sends both: the later is reported and left out.
func claimInstanceName(t *pluginStageBuild, owner map[string]store.Ref, src pluginSource, name string) bool {
	key := instanceKey(name)
	if prev, taken := owner[key]; taken && prev != src.ref {
		t.problem(src.ref, "instance_name", "instance_name %s is already used by %s; plugin not attached there",
			quoteShort(name), prev)
		return false
	}
	owner[key] = src.ref
	return true
}
