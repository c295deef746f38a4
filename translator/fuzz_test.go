package translator

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// FuzzAnnotationsAndPaths sets every annotation the translator reads, on an Ingress and on its
// Service, to the same arbitrary value, and uses arbitrary path and host strings: translation
// must never panic and must give the same bytes twice.
func FuzzAnnotationsAndPaths(f *testing.F) {
	for _, seed := range [][3]string{
		{"true", "/foo", "example.com"}, {"", "", ""}, {",,,", "//", "*"}, {"-1", "/~/(.*)$", "a.b"},
		{"grpc,http", "/#/x", "*.example.com"}, {"99999999999999999999", "\x00/\xff", "ü"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	keys := []string{annStripPath, annPreserveHost, annProtocols, annRedirectCode, annRegexPriority,
		annMethods, annSNIs, annHostAliases, annHeadersPrefix + "x", annHeadersSeparator, annPathHandling,
		annRequestBuffering, annResponseBuffering, annRegexPrefix, annTags, annPlugins, annForceSSLRedirect,
		annProtocol, annPath, annConnectTimeout, annReadTimeout, annWriteTimeout, annRetries, annHostHeader,
		annTLSVerify, annTLSVerifyDepth, annClientCert, annCACertSecrets, annServiceUpstream}
	f.Fuzz(func(t *testing.T, value, path, host string) {
		anns := map[string]string{}
		for _, k := range keys {
			anns[k] = value
		}
		class := "kong"
		prefix := networkingv1.PathTypePrefix
		backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
			Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}
		objs := []store.Object{
			&networkingv1.Ingress{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fuzz", Annotations: anns},
				Spec: networkingv1.IngressSpec{
					IngressClassName: &class, DefaultBackend: &backend,
					TLS: []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: value}},
					Rules: []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{
						HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
							{Path: path, PathType: &prefix, Backend: backend},
							{Path: path, Backend: backend},
						}}}}},
				},
			},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", Annotations: anns},
				Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		}
		a, _ := document.JSON(translateObjects(t, objs).Document)
		b, _ := document.JSON(translateObjects(t, objs).Document)
		if !bytes.Equal(a, b) {
			t.Fatal("two translations of the same objects differ")
		}
	})
}
