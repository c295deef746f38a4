package controller

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"

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
	c, st, n := startControllerHandle(t, cs)
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

// startControllerHandle is startController returning the controller, for tests that feed a
// handler directly (the fake clients have no Kong CRDs to watch).
func startControllerHandle(t *testing.T, cs clients) (*Controller, *store.Store, *countingNotifier) {
	t.Helper()
	watching := make(chan struct{}, 64)
	count := func(k8stesting.Action) (bool, watch.Interface, error) {
		watching <- struct{}{}
		return false, nil, nil
	}
	cs.typed.PrependWatchReactor("*", count)
	cs.meta.PrependWatchReactor("*", count)
	st := store.New()
	n := &countingNotifier{ch: make(chan struct{}, 1)}
	c, err := New(cs.typed, st, n, logr.Discard(), Options{Metadata: cs.meta})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); c.Shutdown() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1+7; i++ { // as startController: every watch started before mutating
		select {
		case <-watching:
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d watches started", i)
		}
	}
	return c, st, n
}
