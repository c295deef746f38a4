package informer

import (
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"

	"github.com/kongsync/kongsync/store"
)

// With the GatewayAlpha gate off (KIC's default), a served TCPRoute CRD is not watched (its
// objects stay out of the store) and, like the KIC kinds kongsync never reads, is reported
// once when present at start and once more when it goes; an unread CRD installed later (here
// KongCustomEntity, its gate turned off) is reported when it appears. HTTPRoutes are watched as
// ever.
func TestGatedAndUnreadKinds(t *testing.T) {
	disc := &fakeLister{}
	disc.set("gateway.networking.k8s.io/v1", "httproutes")
	disc.set("gateway.networking.k8s.io/v1alpha2", "tcproutes")
	var mu sync.Mutex
	got := map[string]int{} // kind -> +1 per appearance, +100 per disappearance
	heard := make(chan struct{}, 10)
	opts := Options{DisableKongCustomEntity: true, Unread: func(k store.UnreadKind, crd metav1.Object) {
		mu.Lock()
		if crd == nil {
			got[k.Kind] += 100
		} else {
			got[k.Kind]++
		}
		mu.Unlock()
		heard <- struct{}{}
	}}
	f := startCRDFixtureWith(t, opts, disc, []runtime.Object{route("v1", "HTTPRoute", "a", "h", "1"), route("v1alpha2", "TCPRoute", "a", "t", "1")},
		crdMeta("httproutes.gateway.networking.k8s.io", "1"), crdMeta("tcproutes.gateway.networking.k8s.io", "1"))
	if !f.has(store.KindHTTPRoute, "a", "h") || f.has(store.KindTCPRoute, "a", "t") {
		t.Fatalf("HTTPRoute in store %v (want true), TCPRoute %v (want false)", f.has(store.KindHTTPRoute, "a", "h"), f.has(store.KindTCPRoute, "a", "t"))
	}
	wait := func(want map[string]int) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			mu.Lock()
			ok := len(got) == len(want)
			for k, v := range want {
				ok = ok && got[k] == v
			}
			mu.Unlock()
			if ok {
				return
			}
			select {
			case <-heard:
			case <-deadline:
				t.Fatalf("reported %v, want %v", got, want)
			}
		}
	}
	wait(map[string]int{"TCPRoute": 1})
	f.setCRD(t, "kongcustomentities.configuration.konghq.com", "1")
	wait(map[string]int{"TCPRoute": 1, "KongCustomEntity": 1})
	f.setCRD(t, "kongcustomentities.configuration.konghq.com", "2") // a change is no new appearance
	if err := f.cs.meta.Tracker().Delete(crdGVR, "", "tcproutes.gateway.networking.k8s.io"); err != nil {
		t.Fatal(err)
	}
	disc.set("gateway.networking.k8s.io/v1alpha2")
	wait(map[string]int{"TCPRoute": 101, "KongCustomEntity": 1})
}

func TestServedReadable(t *testing.T) {
	s := servedSet{gatewayGVR("v1alpha2", "tcproutes"): true, gatewayGVR("v1", "tlsroutes"): true, gatewayGVR("v1", "httproutes"): true}
	r := s.readable(store.GatewayAlphaKinds())
	if len(r) != 1 || !r[gatewayGVR("v1", "httproutes")] || len(s) != 3 {
		t.Errorf("readable = %v (served %v)", r, s)
	}
	if got := s.readable(nil); len(got) != 3 {
		t.Errorf("readable(nil) = %v", got)
	}
}

// TestCustomEntityGate: with the KongCustomEntity gate on (KIC's default) a served
// kongcustomentities CRD is watched, its objects decoded into the store and nothing reported;
// with it off, the objects stay out and the kind is reported as not read.
func TestCustomEntityGate(t *testing.T) {
	for _, off := range []bool{false, true} {
		disc := &fakeLister{}
		disc.set("configuration.konghq.com/v1alpha1", "kongcustomentities")
		reported := make(chan string, 4)
		opts := Options{DisableKongCustomEntity: off, Unread: func(k store.UnreadKind, crd metav1.Object) {
			if crd != nil {
				reported <- k.Kind
			}
		}}
		ce := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "configuration.konghq.com/v1alpha1", "kind": "KongCustomEntity",
			"metadata": map[string]any{"name": "ce", "namespace": "a", "resourceVersion": "1", "uid": "uid-ce"},
			"spec": map[string]any{"type": "degraphql_routes", "controllerName": "kong",
				"fields": map[string]any{"uri": "/a", "query": "q"}},
		}}
		f := startCRDFixtureWith(t, opts, disc, []runtime.Object{ce}, crdMeta("kongcustomentities.configuration.konghq.com", "1"))
		o, ok := f.st.Get(store.Ref{Kind: store.KindKongCustomEntity, Namespace: "a", Name: "ce"})
		if ok == off {
			t.Fatalf("gate off=%v: in store %v", off, ok)
		}
		if !off {
			got := o.(*configurationv1alpha1.KongCustomEntity)
			if got.Spec.EntityType != "degraphql_routes" || string(got.Spec.Fields) != `{"query":"q","uri":"/a"}` {
				t.Errorf("decoded spec %+v", got.Spec)
			}
			continue
		}
		select {
		case k := <-reported:
			if k != "KongCustomEntity" {
				t.Errorf("reported %s", k)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("KongCustomEntity never reported as not read")
		}
	}
}
