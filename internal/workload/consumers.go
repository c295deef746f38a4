package workload

import (
	"encoding/hex"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
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
		TypeMeta:    metav1.TypeMeta{APIVersion: "configuration.konghq.com/v1", Kind: "KongConsumer"},
		ObjectMeta:  meta,
		Username:    name,
		Credentials: []string{name + "-key-auth"},
	}
}
