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
func (t *translation) globalPlugins(pass *pluginPass) []*document.Plugin {
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
	var out []*document.Plugin
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
			out = append(out, pass.entity(srcs[i], valid[i], pluginCombo{}, pluginID(pass.ids, name, pluginCombo{}), instance))
		}
	}
	return out
}

// sortPlugins orders plugins as KIC's deckgen does: by plugin name followed by the names of
// its consumer, route and service, descending; ties (which KIC leaves to map order) by id.
func sortPlugins(ps []*document.Plugin) {
	type keyed struct {
		key string
		p   *document.Plugin
	}
	list := make([]keyed, len(ps))
	for i, p := range ps {
		parts := [4]string{deref(p.Name)}
		if p.Consumer != nil {
			parts[1] = deref(p.Consumer.ID)
		}
		if p.Route != nil {
			parts[2] = deref(p.Route.Name)
		}
		if p.Service != nil {
			parts[3] = deref(p.Service.Name)
		}
		list[i] = keyed{strings.Join(parts[:], ""), p}
	}
	slices.SortStableFunc(list, func(a, b keyed) int {
		if c := strings.Compare(b.key, a.key); c != 0 {
			return c
		}
		return strings.Compare(deref(b.p.ID), deref(a.p.ID))
	})
	for i := range list {
		ps[i] = list[i].p
	}
}
