package informer

import (
	"encoding/json"
	"fmt"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
)

// benchRoutes is the JSON list answer of n HTTPRoutes, each with two rules of two matches.
func benchRoutes(n int) []byte {
	items := make([]json.RawMessage, n)
	for i := range items {
		items[i] = json.RawMessage(fmt.Sprintf(`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute",
"metadata":{"name":"route-%d","namespace":"ns-%d","uid":"0b4e6f2a-%08d","resourceVersion":"%d","generation":1,
"creationTimestamp":"2026-12-01T00:00:00Z","annotations":{"konghq.com/strip-path":"true"},
"managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"gateway.networking.k8s.io/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]},
"spec":{"parentRefs":[{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"kong","namespace":"default"}],
"hostnames":["r%d.example.com"],"rules":[
{"matches":[{"path":{"type":"PathPrefix","value":"/a%d"}},{"path":{"type":"Exact","value":"/b"},"method":"GET"}],
"backendRefs":[{"group":"","kind":"Service","name":"svc-%d","port":80,"weight":1}]},
{"matches":[{"headers":[{"type":"Exact","name":"x-v","value":"2"}]}],
"backendRefs":[{"group":"","kind":"Service","name":"svc-%d","port":8080,"weight":1}]}]},
"status":{"parents":[{"parentRef":{"name":"kong"},"controllerName":"konghq.com/kic-gateway-controller","conditions":[]}]}}`,
			i, i%50, i, 1000+i, i, i, i, i))
	}
	b, _ := json.Marshal(map[string]any{"kind": "HTTPRouteList", "apiVersion": "gateway.networking.k8s.io/v1",
		"metadata": map[string]any{"resourceVersion": "99999"}, "items": items})
	return b
}

// BenchmarkCustomDecode compares a list of 1,000 HTTPRoutes decoded as the dynamic informer
// did (JSON into maps, the transform's map → JSON → typed struct) with the typed list/watch's
// one decode into the struct.
func BenchmarkCustomDecode(b *testing.B) {
	raw := benchRoutes(1000)
	r := mustResource(b, store.KindHTTPRoute)
	b.Run("dynamic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			obj, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			for _, u := range obj.(*unstructured.UnstructuredList).Items {
				j, err := json.Marshal(u.Object)
				if err != nil {
					b.Fatal(err)
				}
				out := &gatewayv1.HTTPRoute{}
				if err := json.Unmarshal(j, out); err != nil {
					b.Fatal(err)
				}
				trimObjectMeta(out)
			}
		}
	})
	b.Run("typed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l, err := decodeList(raw, func(j []byte) runtime.Object { return decodeCustom(r, j) })
			if err != nil || len(l.Items) != 1000 {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBuiltinDecode compares a list of 1,000 Ingresses decoded from JSON and from
// protobuf, the typed client's encodings before and after it asked for protobuf.
func BenchmarkBuiltinDecode(b *testing.B) {
	list := &networkingv1.IngressList{TypeMeta: metav1.TypeMeta{Kind: "IngressList", APIVersion: "networking.k8s.io/v1"}}
	pt := networkingv1.PathTypePrefix
	for i := range 1000 {
		list.Items = append(list.Items, networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("ing-%d", i), Namespace: fmt.Sprintf("ns-%d", i%50),
				ResourceVersion: fmt.Sprint(1000 + i), Annotations: map[string]string{"konghq.com/strip-path": "true"}},
			Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: fmt.Sprintf("h%d.example.com", i),
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
					Path: "/", PathType: &pt, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
						Name: fmt.Sprintf("svc-%d", i), Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}},
		})
	}
	gv := networkingv1.SchemeGroupVersion
	for _, ct := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
		info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), ct)
		if !ok {
			b.Fatalf("no serializer for %s", ct)
		}
		codec := scheme.Codecs.CodecForVersions(info.Serializer, info.Serializer, gv, gv)
		raw, err := runtime.Encode(codec, list)
		if err != nil {
			b.Fatal(err)
		}
		name := "json"
		if _, isProto := info.Serializer.(*protobuf.Serializer); isProto {
			name = "protobuf"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				out := &networkingv1.IngressList{}
				if _, _, err := codec.Decode(raw, nil, out); err != nil || len(out.Items) != 1000 {
					b.Fatal(err)
				}
			}
		})
	}
}
