package informer

import (
	"sort"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// pluginSecrets lists the Secrets a KongPlugin reads (configFrom and configPatches), all in its
// own namespace, sorted and deduplicated: the translator reads their data, so they are kept.
func pluginSecrets(p *configurationv1.KongPlugin) []store.Ref {
	var names []string
	for _, ref := range pluginSecretValues(&p.PluginFields) {
		names = append(names, ref.Secret)
	}
	return secretRefList(p.Namespace, names)
}

// clusterPluginSecrets lists the Secrets a KongClusterPlugin reads, in the namespaces its
// references name, sorted and deduplicated.
func clusterPluginSecrets(p *configurationv1.KongClusterPlugin) []store.Ref {
	seen := map[store.Ref]bool{}
	var out []store.Ref
	for _, ref := range pluginSecretValues(&p.PluginFields) {
		r := store.Ref{Kind: store.KindSecret, Namespace: ref.Namespace, Name: ref.Secret}
		if ref.Secret == "" || ref.Namespace == "" || seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func pluginSecretValues(f *configurationv1.PluginFields) []configurationv1.SecretValueFromSource {
	var out []configurationv1.SecretValueFromSource
	if f.ConfigFrom != nil {
		out = append(out, f.ConfigFrom.SecretValue)
	}
	for _, p := range f.ConfigPatches {
		out = append(out, p.ValueFrom.SecretValue)
	}
	return out
}
