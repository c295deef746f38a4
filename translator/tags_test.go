package translator

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/store"
)

func TestRefFromTags(t *testing.T) {
	for _, c := range []struct {
		tags []string
		want store.Ref
		ok   bool
	}{
		{[]string{"k8s-name:app", "k8s-namespace:default", "k8s-kind:Ingress", "k8s-group:networking.k8s.io", "k8s-version:v1"},
			store.Ref{Kind: store.KindIngress, Namespace: "default", Name: "app"}, true},
		{[]string{"k8s-name:kong", "k8s-kind:IngressClass", "k8s-group:networking.k8s.io"}, store.Ref{Kind: store.KindIngressClass, Name: "kong"}, true},
		{[]string{"k8s-name:app", "k8s-kind:Ingress"}, store.Ref{}, false}, // namespaced kind without namespace
		{[]string{"k8s-name:global-auth", "k8s-kind:KongClusterPlugin", "k8s-group:configuration.konghq.com"},
			store.Ref{Kind: "KongClusterPlugin", Name: "global-auth"}, true},
		{[]string{"k8s-name:app", "k8s-namespace:x", "k8s-kind:Service", "k8s-group:example.com"}, store.Ref{}, false},
		{[]string{"managed-by-kongsync"}, store.Ref{}, false},
	} {
		got, ok := RefFromTags(c.tags)
		if got != c.want || ok != c.ok {
			t.Errorf("RefFromTags(%v) = %v, %v; want %v, %v", c.tags, got, ok, c.want, c.ok)
		}
	}
}

// TestTagsRoundTrip: what objectTags writes for an object of every stored kind, RefFromTags
// (the sync loop's reader of Kong's errors) reads back as that object; tagObject agrees.
func TestTagsRoundTrip(t *testing.T) {
	for _, k := range store.Kinds {
		meta := metav1.ObjectMeta{Name: "obj", Namespace: "ns", UID: "5f0c2b7e-7f4e-4c49-9d0a-2a4c3b9f61d1",
			Annotations: map[string]string{annTags: "team-a,k8s-name:spoof"}}
		want := store.Ref{Kind: k, Namespace: "ns", Name: "obj"}
		if k == store.KindIngressClass || k == store.KindKongClusterPlugin {
			meta.Namespace, want.Namespace = "", ""
		}
		ptrs := objectTags(k, &meta)
		tags := make([]string, len(ptrs))
		for i, p := range ptrs {
			tags[i] = *p
		}
		if got, ok := RefFromTags(tags); !ok || got != want {
			t.Errorf("%s: RefFromTags(%q) = %v, %v; want %v", k, tags, got, ok, want)
		}
		if ns, name, ok := tagObject(ptrs); k != store.KindIngressClass && k != store.KindKongClusterPlugin &&
			(!ok || ns != want.Namespace || name != want.Name) {
			t.Errorf("%s: tagObject = %q %q %v", k, ns, name, ok)
		}
	}
}
