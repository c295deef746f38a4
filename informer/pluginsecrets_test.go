package informer

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

func TestPluginSecretRefs(t *testing.T) {
	ref := func(ns, name string) store.Ref { return store.Ref{Kind: store.KindSecret, Namespace: ns, Name: name} }
	src := func(ns, name string) configurationv1.SecretValueFromSource {
		return configurationv1.SecretValueFromSource{Namespace: ns, Secret: name, Key: "k"}
	}
	fields := configurationv1.PluginFields{
		ConfigFrom: &configurationv1.ConfigSource{SecretValue: src("x", "from")},
		ConfigPatches: []configurationv1.ConfigPatch{
			{Path: "/a", ValueFrom: configurationv1.ConfigSource{SecretValue: src("y", "patch")}},
			{Path: "/b", ValueFrom: configurationv1.ConfigSource{SecretValue: src("x", "from")}},
			{Path: "/c", ValueFrom: configurationv1.ConfigSource{SecretValue: src("", "no-namespace")}},
		},
	}
	kp := &configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Namespace: "own", Name: "p"}, PluginFields: fields}
	if got, want := pluginSecrets(kp), []store.Ref{ref("own", "from"), ref("own", "no-namespace"), ref("own", "patch")}; !reflect.DeepEqual(got, want) {
		t.Errorf("KongPlugin: %v, want %v (its own namespace, whatever the reference says)", got, want)
	}
	kcp := &configurationv1.KongClusterPlugin{ObjectMeta: metav1.ObjectMeta{Name: "p"}, PluginFields: fields}
	if got, want := clusterPluginSecrets(kcp), []store.Ref{ref("x", "from"), ref("y", "patch")}; !reflect.DeepEqual(got, want) {
		t.Errorf("KongClusterPlugin: %v, want %v", got, want)
	}
	if got := pluginSecrets(&configurationv1.KongPlugin{}); len(got) != 0 {
		t.Errorf("plugin without Secrets: %v", got)
	}
}

// TestPluginKeepsItsSecret: an Opaque Secret a KongPlugin's configFrom names is fetched into
// the store while the KongPlugin exists and dropped when it goes.
func TestPluginKeepsItsSecret(t *testing.T) {
	cs := newClients(secret("a", "conf", corev1.SecretTypeOpaque, nil))
	c, st, n, _ := startControllerWith(t, cs, Options{})
	if _, ok := storedSecret(st, "a", "conf"); ok {
		t.Fatal("unreferenced Opaque Secret is in the store")
	}
	kp := &configurationv1.KongPlugin{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p"},
		PluginFields: configurationv1.PluginFields{PluginName: "acl",
			ConfigFrom: &configurationv1.ConfigSource{SecretValue: configurationv1.SecretValueFromSource{Secret: "conf", Key: "k"}}}}
	h := &handler{c: c, kind: store.KindKongPlugin}
	h.upsert(kp)
	waitFor(t, n, func() bool { _, ok := storedSecret(st, "a", "conf"); return ok }, "configFrom Secret fetched")
	h.delete(kp)
	waitFor(t, n, func() bool { _, ok := storedSecret(st, "a", "conf"); return !ok }, "Secret dropped with its KongPlugin")
}
