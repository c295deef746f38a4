package informer

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// decodeU decodes an unstructured object as the API server's JSON of it would be.
func decodeU(t *testing.T, r crdResource, u *unstructured.Unstructured) runtime.Object {
	t.Helper()
	b, err := u.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return decodeCustom(r, b)
}

func TestDecodeCustom(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1", "kind": "KongPlugin",
		"metadata": map[string]any{"name": "p", "namespace": "a", "uid": "u1", "resourceVersion": "7",
			"annotations":   map[string]any{lastAppliedAnnotation: "{}", "keep": "me"},
			"managedFields": []any{map[string]any{"manager": "kubectl"}}},
		"plugin": "correlation-id",
		"config": map[string]any{"header_name": "X-Request-ID"},
	}}
	out := decodeU(t, mustResource(t, store.KindKongPlugin), u)
	kp, ok := out.(*configurationv1.KongPlugin)
	if !ok {
		t.Fatalf("decode returned %T", out)
	}
	if kp.PluginName != "correlation-id" || string(kp.Config) != `{"header_name":"X-Request-ID"}` ||
		kp.Namespace != "a" || kp.UID != "u1" || kp.ResourceVersion != "7" {
		t.Errorf("converted plugin = %+v (config %s)", kp, kp.Config)
	}
	if _, ok := kp.Annotations[lastAppliedAnnotation]; ok || kp.Annotations["keep"] != "me" || len(kp.ManagedFields) != 0 {
		t.Errorf("metadata not trimmed: %+v", kp.ObjectMeta)
	}
}

func TestDecodeCustomUpstreamPolicy(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1beta1", "kind": "KongUpstreamPolicy",
		"metadata": map[string]any{"name": "p", "namespace": "a"},
		"spec": map[string]any{"algorithm": "consistent-hashing", "slots": int64(100),
			"hashOn":       map[string]any{"header": "x-user"},
			"healthchecks": map[string]any{"threshold": int64(20)}},
		"status": map[string]any{"ancestors": []any{}},
	}}
	kr := mustResource(t, store.KindKongUpstreamPolicy)
	if kr.group != configurationv1beta1.SchemeGroupVersion.Group || kr.resource != "kongupstreampolicies" || !kr.namespaced {
		t.Fatalf("KongUpstreamPolicy resource = %+v", kr)
	}
	out := decodeU(t, kr, u)
	p, ok := out.(*configurationv1beta1.KongUpstreamPolicy)
	if !ok {
		t.Fatalf("decode returned %T", out)
	}
	if *p.Spec.Algorithm != "consistent-hashing" || *p.Spec.Slots != 100 || *p.Spec.HashOn.Header != "x-user" ||
		*p.Spec.Healthchecks.Threshold != 20 || p.Namespace != "a" {
		t.Errorf("converted policy = %+v", p)
	}
}

func mustResource(t testing.TB, k store.Kind) crdResource {
	t.Helper()
	r, ok := crdResourceOf(k)
	if !ok {
		t.Fatalf("no custom resource of kind %s", k)
	}
	return r
}

// served builds a servedSet from "group/version/resource" strings (group "" meaning the Gateway
// API's, to keep the cases short).
func served(gvrs ...string) servedSet {
	s := servedSet{}
	for _, x := range gvrs {
		parts := strings.Split(x, "/")
		if len(parts) == 2 {
			parts = append([]string{store.GatewayGroup}, parts...)
		}
		s[schema.GroupVersionResource{Group: parts[0], Version: parts[1], Resource: parts[2]}] = true
	}
	return s
}

func TestDesiredWatches(t *testing.T) {
	// What gateway-api v1.6.3's CRDs serve (config/crd/standard and experimental).
	standard := []string{"v1/gatewayclasses", "v1beta1/gatewayclasses", "v1/gateways", "v1beta1/gateways",
		"v1/httproutes", "v1beta1/httproutes", "v1/grpcroutes", "v1/tcproutes", "v1/udproutes", "v1/tlsroutes",
		"v1/referencegrants", "v1beta1/referencegrants"}
	experimental := append(slices.Clone(standard), "v1alpha2/tcproutes", "v1alpha2/udproutes", "v1alpha2/tlsroutes",
		"v1alpha3/tlsroutes")
	gatewayAll := []string{"GatewayClass v1", "Gateway v1 ", "HTTPRoute v1 ", "GRPCRoute v1 "}
	cases := []struct {
		name       string
		served     []string
		namespaces []string
		want       []string // "Kind version namespace[ name]"
	}{
		{"nothing", nil, []string{""}, nil},
		{"Kong v1 in two namespaces",
			[]string{"configuration.konghq.com/v1/kongplugins", "configuration.konghq.com/v1/kongconsumers",
				"configuration.konghq.com/v1/kongclusterplugins", "configuration.konghq.com/v1/kongupstreampolicies"},
			[]string{"a", "b"},
			[]string{"KongConsumer v1 a", "KongConsumer v1 b", "KongPlugin v1 a", "KongPlugin v1 b", "KongClusterPlugin v1"}},
		{"standard channel: L4 and TLS routes at v1, ReferenceGrant at v1beta1", standard, []string{""},
			append(slices.Clone(gatewayAll), "TCPRoute v1 ", "UDPRoute v1 ", "TLSRoute v1 ", "ReferenceGrant v1beta1 ", "Namespace v1 ")},
		{"experimental channel: KIC's v1alpha2", experimental, []string{""},
			append(slices.Clone(gatewayAll), "TCPRoute v1alpha2 ", "UDPRoute v1alpha2 ", "TLSRoute v1alpha2 ",
				"ReferenceGrant v1beta1 ", "Namespace v1 ")},
		{"older channels: only the fallbacks", []string{"v1beta1/gateways", "v1alpha2/grpcroutes", "v1alpha3/tlsroutes",
			"v1alpha2/referencegrants"}, []string{""},
			[]string{"Gateway v1beta1 ", "GRPCRoute v1alpha2 ", "TLSRoute v1alpha3 ", "ReferenceGrant v1alpha2 ", "Namespace v1 "}},
		{"watched namespaces: only their Namespace objects", []string{"v1/httproutes"}, []string{"a", "b"},
			[]string{"HTTPRoute v1 a", "HTTPRoute v1 b", "Namespace v1  a", "Namespace v1  b"}},
		{"a version kongsync does not read", []string{"v2/httproutes", "configuration.konghq.com/v1/kongupstreampolicies"},
			[]string{""}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, s := range desiredWatches(served(c.served...), c.namespaces) {
				g := string(s.kind) + " " + s.gvr.Version
				if s.kind != store.KindGatewayClass && s.kind != store.KindKongClusterPlugin {
					g += " " + s.namespace
				}
				if s.name != "" {
					g += " " + s.name
				}
				got = append(got, g)
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("watches\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// fakeLister answers discovery per group version; missing ones are NotFound.
type fakeLister struct {
	mu    sync.Mutex
	lists map[string][]string
	err   map[string]error
}

func (f *fakeLister) ServerResourcesForGroupVersion(gv string) (*metav1.APIResourceList, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.err[gv]; err != nil {
		return nil, err
	}
	names, ok := f.lists[gv]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{}, gv)
	}
	l := &metav1.APIResourceList{GroupVersion: gv}
	for _, n := range names {
		l.APIResources = append(l.APIResources, metav1.APIResource{Name: n})
	}
	return l, nil
}

func (f *fakeLister) set(gv string, resources ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lists == nil {
		f.lists = map[string][]string{}
	}
	if len(resources) == 0 {
		delete(f.lists, gv)
		return
	}
	f.lists[gv] = resources
}

// TestDiscoverServed: a group version the server does not know serves nothing; any other error
// fails discovery rather than make a served kind look removed.
func TestDiscoverServed(t *testing.T) {
	f := &fakeLister{}
	f.set("gateway.networking.k8s.io/v1", "httproutes", "gateways", "listenersets")
	f.set("configuration.konghq.com/v1", "kongplugins")
	s, err := discoverServed(f)
	if err != nil || len(s) != 4 || !s[schema.GroupVersionResource{Group: store.GatewayGroup, Version: "v1", Resource: "httproutes"}] {
		t.Fatalf("served %v, %v", s, err)
	}
	f.err = map[string]error{"gateway.networking.k8s.io/v1alpha2": errors.New("connection refused")}
	if s, err := discoverServed(f); err == nil || !strings.Contains(err.Error(), "v1alpha2") {
		t.Fatalf("a failing group version: %v, %v", s, err)
	}
}

// TestTypedTransformGatewayVersions: an object of every Gateway API kind, at every version
// kongsync reads it, decodes into the v1 type with its spec.
func TestTypedTransformGatewayVersions(t *testing.T) {
	for _, r := range crdResources {
		if r.group != store.GatewayGroup {
			continue
		}
		for _, v := range r.versions {
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": r.group + "/" + v, "kind": string(r.kind),
				"metadata": map[string]any{"name": "x", "namespace": "a", "resourceVersion": "3",
					"managedFields": []any{map[string]any{"manager": "kubectl"}}},
				"spec": map[string]any{"parentRefs": []any{map[string]any{"name": "kong"}},
					"hostnames": []any{"a.example"}, "controllerName": "konghq.com/kic-gateway-controller",
					"gatewayClassName": "kong", "from": []any{map[string]any{"group": "", "kind": "Service", "namespace": "b"}}},
			}}
			out := decodeU(t, r, u)
			o, ok := out.(store.Object)
			if k, _ := store.KindOf(o); !ok || k != r.kind || o.GetName() != "x" || o.GetResourceVersion() != "3" || o.GetManagedFields() != nil {
				t.Errorf("%s %s: decode returned %T %+v", r.kind, v, out, out)
				continue
			}
			specOf := func(o store.Object) string {
				b, _ := json.Marshal(reflect.ValueOf(o).Elem().FieldByName("Spec").Interface())
				return string(b)
			}
			if spec := specOf(o); spec == specOf(r.newObj()) {
				t.Errorf("%s %s: spec lost: %s", r.kind, v, spec)
			}
		}
	}
}

// TestDecodeCustomUndecodable: an object that does not decode stays out of the informer's
// error path (which would fail its whole list) and reaches the handler as undecodable.
func TestDecodeCustomUndecodable(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
		"metadata": map[string]any{"name": "bad", "namespace": "a"},
		"spec":     map[string]any{"hostnames": "not-a-list"},
	}}
	out := decodeU(t, mustResource(t, store.KindHTTPRoute), u)
	bad, ok := out.(*undecodable)
	if !ok || !strings.Contains(bad.err.Error(), "HTTPRoute a/bad") || bad.GetName() != "bad" {
		t.Fatalf("decode = %T %v", out, out)
	}
}

// TestCRDVersionsDecodeOffline: every version the informers read is one the manifest reader
// accepts, so live and offline translation see the same objects.
func TestCRDVersionsDecodeOffline(t *testing.T) {
	for _, r := range crdResources {
		for _, v := range r.versions {
			doc := fmt.Sprintf("apiVersion: %s/%s\nkind: %s\nmetadata: {name: x, namespace: a}\n", r.group, v, r.kind)
			objs, notes, err := store.DecodeManifests("x.yaml", strings.NewReader(doc))
			if err != nil || len(notes) != 0 || len(objs) != 1 {
				t.Errorf("%s %s: %v %v", r.kind, v, notes, err)
				continue
			}
			if got, _ := store.KindOf(objs[0]); reflect.TypeOf(objs[0]) != reflect.TypeOf(r.newObj()) || got != r.kind {
				t.Errorf("%s %s: manifest reader made %T", r.kind, v, objs[0])
			}
		}
	}
}

func TestTransformNamespace(t *testing.T) {
	p := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "team-a", UID: "u", ResourceVersion: "9",
		Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"big": "x"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}}
	out, _ := transformNamespace(p)
	ns, ok := out.(*corev1.Namespace)
	if !ok || ns.Name != "team-a" || ns.UID != "u" || ns.ResourceVersion != "9" || ns.Labels["team"] != "a" ||
		ns.Annotations != nil || ns.ManagedFields != nil {
		t.Fatalf("namespace = %#v", out)
	}
	if ref, err := store.RefOf(ns); err != nil || ref.String() != "Namespace team-a" {
		t.Fatalf("ref %v, %v", ref, err)
	}
}

func TestScopeCovers(t *testing.T) {
	cases := []struct {
		s        scope
		ns, name string
		want     bool
	}{
		{scope{store.KindHTTPRoute, "", ""}, "a", "r", true},
		{scope{store.KindHTTPRoute, "a", ""}, "a", "r", true},
		{scope{store.KindHTTPRoute, "a", ""}, "b", "r", false},
		{scope{store.KindNamespace, "", "a"}, "", "a", true},
		{scope{store.KindNamespace, "", "a"}, "", "b", false},
	}
	for _, c := range cases {
		if got := c.s.covers(c.ns, c.name); got != c.want {
			t.Errorf("%+v covers %s/%s = %v", c.s, c.ns, c.name, got)
		}
	}
}
