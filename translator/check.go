package translator

import (
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// PluginProblems are the problems of a KongPlugin's or KongClusterPlugin's own configuration in
// snap: its plugin name, config, configFrom and configPatches with the Secrets they read. A
// build reports them only once something attaches the plugin; the admission webhook checks a
// plugin before anything names it, as KIC does. A KongClusterPlugin of another class, or any
// other object, has none.
func PluginProblems(snap *store.Snapshot, obj store.Object, opts Options) []Problem {
	e := newEngine(opts)
	t := &pluginBuild{translation: e.newTranslation(snap), memos: &e.memos.pluginPieceMemos}
	var src pluginSource
	switch p := obj.(type) {
	case *configurationv1.KongPlugin:
		src = pluginSource{ref: store.Ref{Kind: store.KindKongPlugin, Namespace: p.Namespace, Name: p.Name},
			kind: store.KindKongPlugin, meta: p, fields: &p.PluginFields}
	case *configurationv1.KongClusterPlugin:
		if !t.servesClusterPlugin(p) {
			return nil
		}
		src = clusterPluginSource(p)
	default:
		return nil
	}
	t.pluginTemplate(src)
	return finishProblems(t.problems)
}

// PluginReadsSecret reports whether a KongPlugin or KongClusterPlugin reads the Secret
// namespace/name (configFrom, configPatches): a change of that Secret changes the plugin.
func PluginReadsSecret(obj store.Object, namespace, name string) bool {
	var fields *configurationv1.PluginFields
	ns, cluster := obj.GetNamespace(), false
	switch p := obj.(type) {
	case *configurationv1.KongPlugin:
		fields = &p.PluginFields
	case *configurationv1.KongClusterPlugin:
		fields, cluster = &p.PluginFields, true
	default:
		return false
	}
	reads := func(ref configurationv1.SecretValueFromSource) bool {
		refNS := ns
		if cluster {
			refNS = ref.Namespace
		}
		return refNS == namespace && ref.Secret == name
	}
	if fields.ConfigFrom != nil && reads(fields.ConfigFrom.SecretValue) {
		return true
	}
	for _, p := range fields.ConfigPatches {
		if reads(p.ValueFrom.SecretValue) {
			return true
		}
	}
	return false
}
