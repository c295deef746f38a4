package informer

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/kongsync/kongsync/store"
)

// writeSecret creates or updates s in both fakes, as one API write is seen by both kinds of
// watch.
func writeSecret(t *testing.T, cs clients, s *corev1.Secret, create bool) {
	t.Helper()
	ctx := context.Background()
	var err error
	if create {
		_, err = cs.typed.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{})
		if err == nil {
			err = cs.meta.Tracker().Create(secretGVR(), secretMeta(s), s.Namespace)
		}
	} else {
		_, err = cs.typed.CoreV1().Secrets(s.Namespace).Update(ctx, s, metav1.UpdateOptions{})
		if err == nil {
			err = cs.meta.Tracker().Update(secretGVR(), secretMeta(s), s.Namespace)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

func deleteSecret(t *testing.T, cs clients, ns, name string) {
	t.Helper()
	if err := cs.typed.CoreV1().Secrets(ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.meta.Tracker().Delete(secretGVR(), ns, name); err != nil {
		t.Fatal(err)
	}
}

// secretGets lists the names of the Secrets GOT one by one.
func secretGets(cs clients) []string {
	var names []string
	for _, a := range cs.typed.Actions() {
		if g, ok := a.(k8stesting.GetAction); ok && a.GetVerb() == "get" && a.GetResource().Resource == "secrets" {
			names = append(names, g.GetName())
		}
	}
	return names
}

func storedSecret(st *store.Store, ns, name string) (*corev1.Secret, bool) {
	o, ok := st.Get(store.Ref{Kind: store.KindSecret, Namespace: ns, Name: name})
	if !ok {
		return nil, false
	}
	return o.(*corev1.Secret), true
}

func TestSecretPolicy(t *testing.T) {
	tlsCA := secret("a", "tls-ca", corev1.SecretTypeTLS, map[string]string{CACertLabel: "true"})
	cs := newClients(
		secret("a", "tls", corev1.SecretTypeTLS, nil),
		tlsCA, // seen by two full informers
		secret("a", "ca", corev1.SecretTypeOpaque, map[string]string{CACertLabel: "true"}),
		secret("a", "opaque-referenced", corev1.SecretTypeOpaque, nil),
		secret("a", "credential", corev1.SecretTypeOpaque, map[string]string{CredentialLabel: "key-auth"}),
		secret("a", "empty-credential", corev1.SecretTypeOpaque, map[string]string{CredentialLabel: ""}),
		secret("a", "unrelated", corev1.SecretTypeOpaque, nil),
		tlsIngress("a", "ing", "opaque-referenced"),
		tlsIngress("a", "ing2", "tls"),
	)
	st, _, _ := startController(t, cs, Options{})
	for _, name := range []string{"tls", "tls-ca", "ca", "opaque-referenced", "credential"} {
		s, ok := storedSecret(st, "a", name)
		if !ok {
			t.Errorf("Secret a/%s missing from the store", name)
			continue
		}
		if string(s.Data["tls.key"]) != "key" {
			t.Errorf("Secret a/%s lost its data: %v", name, s.Data)
		}
		if _, ok := s.Annotations[lastAppliedAnnotation]; ok {
			t.Errorf("Secret a/%s kept the last-applied annotation (it holds the data in clear)", name)
		}
	}
	for _, name := range []string{"unrelated", "empty-credential"} {
		if _, ok := storedSecret(st, "a", name); ok {
			t.Errorf("Secret a/%s entered the store", name)
		}
	}
	// Only the referenced Secret no full informer covers is GOT; the fake clientset ignores
	// field selectors, so that unrelated data is never listed is proven on a real API server
	// (test/integration TestUnrelatedSecretDataNeverTransferred).
	if got := secretGets(cs); len(got) != 1 || got[0] != "opaque-referenced" {
		t.Errorf("Secrets GOT = %v, want [opaque-referenced]", got)
	}
}

func TestSecretBecomesReferencedLater(t *testing.T) {
	cs := newClients(secret("a", "opaque", corev1.SecretTypeOpaque, nil))
	st, n, _ := startController(t, cs, Options{})
	if _, ok := storedSecret(st, "a", "opaque"); ok {
		t.Fatal("unreferenced Opaque Secret is in the store")
	}
	ctx := context.Background()
	ing, err := cs.typed.NetworkingV1().Ingresses("a").Create(ctx, tlsIngress("a", "ing", "opaque"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, n, func() bool { _, ok := storedSecret(st, "a", "opaque"); return ok }, "referenced Secret fetched into the store")
	ing = ing.DeepCopy()
	ing.Spec.TLS = nil
	ing.ResourceVersion = "2"
	if _, err := cs.typed.NetworkingV1().Ingresses("a").Update(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, n, func() bool { _, ok := storedSecret(st, "a", "opaque"); return !ok }, "Secret dropped once no longer referenced")
}

// A referenced Opaque Secret that appears after its Ingress is GOT, GOT again when it changes
// and dropped when deleted.
func TestReferencedSecretLifecycle(t *testing.T) {
	cs := newClients(tlsIngress("a", "ing", "late"))
	st, n, _ := startController(t, cs, Options{})
	waitFor(t, n, func() bool {
		_, ok := st.Get(store.Ref{Kind: store.KindIngress, Namespace: "a", Name: "ing"})
		return ok
	}, "Ingress in the store")
	if _, ok := storedSecret(st, "a", "late"); ok {
		t.Fatal("missing Secret in the store")
	}
	s := secret("a", "late", corev1.SecretTypeOpaque, nil)
	writeSecret(t, cs, s, true)
	waitFor(t, n, func() bool { _, ok := storedSecret(st, "a", "late"); return ok }, "Secret GOT once created")
	s = s.DeepCopy()
	s.ResourceVersion = "2"
	s.Data["tls.key"] = []byte("key2")
	writeSecret(t, cs, s, false)
	waitFor(t, n, func() bool {
		got, ok := storedSecret(st, "a", "late")
		return ok && string(got.Data["tls.key"]) == "key2"
	}, "changed Secret GOT again")
	deleteSecret(t, cs, "a", "late")
	waitFor(t, n, func() bool { _, ok := storedSecret(st, "a", "late"); return !ok }, "deleted Secret leaves the store")
}

// A Secret whose labels change moves between the full informers and the metadata-only one.
func TestSecretLabelMoves(t *testing.T) {
	cs := newClients(secret("a", "x", corev1.SecretTypeOpaque, nil),
		secret("a", "y", corev1.SecretTypeOpaque, map[string]string{CredentialLabel: "basic-auth"}),
		tlsIngress("a", "ing", "y"))
	st, n, _ := startController(t, cs, Options{})
	if _, ok := storedSecret(st, "a", "y"); !ok {
		t.Fatal("labelled Secret a/y missing")
	}
	x := secret("a", "x", corev1.SecretTypeOpaque, map[string]string{CACertLabel: "true"})
	x.ResourceVersion = "2"
	writeSecret(t, cs, x, false)
	waitFor(t, n, func() bool { _, ok := storedSecret(st, "a", "x"); return ok }, "Secret labelled ca-cert enters the store")
	x = x.DeepCopy()
	x.Labels = nil
	x.ResourceVersion = "3"
	writeSecret(t, cs, x, false)
	waitFor(t, n, func() bool { _, ok := storedSecret(st, "a", "x"); return !ok }, "unlabelled unreferenced Secret leaves")
	y := secret("a", "y", corev1.SecretTypeOpaque, nil)
	y.ResourceVersion = "3"
	writeSecret(t, cs, y, false)
	waitFor(t, n, func() bool {
		got, ok := storedSecret(st, "a", "y")
		return ok && got.ResourceVersion == "3"
	}, "referenced Secret stays, at its new version, after losing its label")
}

// bareSources are informers that are never run: tests fill their caches directly.
func bareSources() *secretSources {
	bare := func() cache.SharedIndexInformer {
		return cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.Secret{}, 0, cache.Indexers{})
	}
	return &secretSources{full: []cache.SharedIndexInformer{bare(), bare(), bare()},
		meta: cache.NewSharedIndexInformer(&cache.ListWatch{}, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})}
}

func TestFullSecretNewestWins(t *testing.T) {
	ref := store.Ref{Kind: store.KindSecret, Namespace: "a", Name: "s"}
	at := func(rv string, labels map[string]string) *corev1.Secret {
		s := secret("a", "s", corev1.SecretTypeOpaque, labels)
		s.ResourceVersion = rv
		return s
	}
	ca := map[string]string{CACertLabel: "true"}
	cred := map[string]string{CredentialLabel: "key-auth"}
	for _, tc := range []struct {
		name     string
		in       map[int]*corev1.Secret
		wantRV   string
		wantNone bool
	}{
		{"one informer", map[int]*corev1.Secret{1: at("5", ca)}, "5", false},
		{"newer in the later informer", map[int]*corev1.Secret{1: at("5", ca), 2: at("7", cred)}, "7", false},
		{"newer in the earlier informer", map[int]*corev1.Secret{1: at("9", ca), 2: at("7", cred)}, "9", false},
		{"not kept is ignored", map[int]*corev1.Secret{0: at("9", nil), 2: at("7", cred)}, "7", false},
		{"none", map[int]*corev1.Secret{0: at("9", nil)}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := bareSources()
			for i, s := range tc.in {
				if err := src.full[i].GetIndexer().Add(s); err != nil {
					t.Fatal(err)
				}
			}
			got := src.fullSecret(ref)
			if tc.wantNone != (got == nil) || (got != nil && got.ResourceVersion != tc.wantRV) {
				t.Errorf("fullSecret = %v, want rv %q (none: %v)", got, tc.wantRV, tc.wantNone)
			}
		})
	}
}

// A tombstone (the watch missed the delete) removes the Secret by key.
func TestSecretTombstone(t *testing.T) {
	st := store.New()
	n := &countingNotifier{ch: make(chan struct{}, 1)}
	c := &Controller{store: st, notifier: n, log: logr.Discard(), refs: newSecretRefs(),
		secrets: map[string]*secretSources{"": bareSources()}}
	s := secret("a", "s", corev1.SecretTypeTLS, nil)
	c.put(s)
	ref, ok := c.secretRef(cacheTombstone("a/s", s))
	if !ok {
		t.Fatal("tombstone key not understood")
	}
	if err := c.reconcileSecret(context.Background(), ref); err != nil {
		t.Fatal(err)
	}
	if _, ok := storedSecret(st, "a", "s"); ok {
		t.Fatal("tombstone did not remove the Secret")
	}
	if _, ok := c.secretRef(cacheTombstone("a/b/c", nil)); ok {
		t.Error("bad tombstone key accepted")
	}
}
