package workload

import (
	"encoding/hex"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
)

// credentialSecret is consumer i's key-auth credential: labelled konghq.com/credential as KIC 3
// requires, with a deterministic random key.
func (g *gen) credentialSecret(i int) *corev1.Secret {
	key := make([]byte, 16)
	_, _ = g.rng("key-auth", i).Read(key) // ChaCha8.Read never fails
	meta := g.meta("Secret", g.ns(i), g.name("consumer", i)+"-key-auth", i)
	meta.Labels = map[string]string{"konghq.com/credential": "key-auth"}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: meta,
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"key": []byte(hex.EncodeToString(key))},
	}
}

// consumer is KongConsumer i of class kong, listing its credential Secret.
func (g *gen) consumer(i int) *configurationv1.KongConsumer {
	name := g.name("consumer", i)
	meta := g.meta("KongConsumer", g.ns(i), name, i)
	meta.Annotations = map[string]string{"kubernetes.io/ingress.class": ClassName}
	return &configurationv1.KongConsumer{
		TypeMeta:       metav1.TypeMeta{APIVersion: "configuration.konghq.com/v1", Kind: "KongConsumer"},
		ObjectMeta:     meta,
		Username:       name,
		Credentials:    []string{name + "-key-auth"},
		ConsumerGroups: g.consumerGroupsOf(i),
	}
}

// consumerGroupsOf is the group consumer i joins: group i mod G, which lives in the consumer's
// namespace as G is a multiple of the namespace count.
func (g *gen) consumerGroupsOf(i int) []string {
	if g.c.ConsumerGroups == 0 {
		return nil
	}
	return []string{g.name("group", i%g.c.ConsumerGroups)}
}

// consumerGroup is KongConsumerGroup j of class kong, in namespace j mod Namespaces.
func (g *gen) consumerGroup(j int) *configurationv1beta1.KongConsumerGroup {
	name := g.name("group", j)
	meta := g.meta("KongConsumerGroup", g.ns(j), name, j)
	meta.Annotations = map[string]string{"kubernetes.io/ingress.class": ClassName}
	return &configurationv1beta1.KongConsumerGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: "configuration.konghq.com/v1beta1", Kind: "KongConsumerGroup"},
		ObjectMeta: meta,
	}
}

// pluginName is the KongPlugin Ingress i references.
func (g *gen) pluginName(i int) string { return g.name("plugin", i%g.c.Plugins) }

// plugin is KongPlugin i mod K in namespace i mod Namespaces (each namespace holds all K, so
// every Ingress finds its plugin next to it): rate-limiting with a limit of its own.
func (g *gen) plugin(i int) *configurationv1.KongPlugin {
	j, ns := i/g.c.Namespaces, g.ns(i)
	name := g.name("plugin", j)
	config, _ := json.Marshal(map[string]any{"minute": 1000 + j, "policy": "local"})
	return &configurationv1.KongPlugin{
		TypeMeta:   metav1.TypeMeta{APIVersion: "configuration.konghq.com/v1", Kind: "KongPlugin"},
		ObjectMeta: g.meta("KongPlugin", ns, name, j),
		PluginFields: configurationv1.PluginFields{
			PluginName: "rate-limiting",
			Config:     config,
		},
	}
}
