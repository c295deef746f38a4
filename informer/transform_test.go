package informer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTransformsTrimMetadata(t *testing.T) {
	annotations := func() map[string]string {
		return map[string]string{
			"konghq.com/strip-path":                    "true",
			"ingress.kubernetes.io/force-ssl-redirect": "true",
			"kubernetes.io/ingress.class":              "kong",
			lastAppliedAnnotation:                      "{}",
			"meta.helm.sh/release-name":                "web",
			"argocd.argoproj.io/tracking-id":           "x",
		}
	}
	wantAnn := map[string]string{"konghq.com/strip-path": "true",
		"ingress.kubernetes.io/force-ssl-redirect": "true", "kubernetes.io/ingress.class": "kong"}
	meta := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "a", Name: "x", Annotations: annotations(),
			Labels:        map[string]string{"app": "web", discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: "c"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}, Finalizers: []string{"f"},
			OwnerReferences: []metav1.OwnerReference{{Name: "o"}}}
	}
	for _, tc := range []struct {
		name       string
		obj        any
		get        func(any) *metav1.ObjectMeta
		wantLabels map[string]string
	}{
		{"Ingress", &networkingv1.Ingress{ObjectMeta: meta()}, func(o any) *metav1.ObjectMeta { return &o.(*networkingv1.Ingress).ObjectMeta }, nil},
		{"IngressClass", &networkingv1.IngressClass{ObjectMeta: meta()}, func(o any) *metav1.ObjectMeta { return &o.(*networkingv1.IngressClass).ObjectMeta }, nil},
		{"Service", &corev1.Service{ObjectMeta: meta()}, func(o any) *metav1.ObjectMeta { return &o.(*corev1.Service).ObjectMeta }, nil},
		{"EndpointSlice", &discoveryv1.EndpointSlice{ObjectMeta: meta()}, func(o any) *metav1.ObjectMeta { return &o.(*discoveryv1.EndpointSlice).ObjectMeta },
			map[string]string{discoveryv1.LabelServiceName: "web"}},
		{"Secret", &corev1.Secret{ObjectMeta: meta()}, func(o any) *metav1.ObjectMeta { return &o.(*corev1.Secret).ObjectMeta },
			meta().Labels}, // Secret labels select and classify Secrets: all kept
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out any
			var err error
			switch tc.name {
			case "Ingress":
				out, err = transformIngress(tc.obj)
			case "IngressClass":
				out, err = transformIngressClass(tc.obj)
			case "Service":
				out, err = transformService(tc.obj)
			case "EndpointSlice":
				out, err = transformEndpointSlice(tc.obj)
			case "Secret":
				out, err = transformSecret(tc.obj)
			}
			if err != nil {
				t.Fatal(err)
			}
			m := tc.get(out)
			if !reflect.DeepEqual(m.Annotations, wantAnn) {
				t.Errorf("annotations = %v, want %v", m.Annotations, wantAnn)
			}
			if !reflect.DeepEqual(m.Labels, tc.wantLabels) {
				t.Errorf("labels = %v, want %v", m.Labels, tc.wantLabels)
			}
			if m.ManagedFields != nil || m.Finalizers != nil || m.OwnerReferences != nil {
				t.Errorf("managedFields/finalizers/ownerReferences kept: %+v", m)
			}
		})
	}
}

// annotationLike matches string literals shaped like a Kubernetes annotation or label key, or a
// prefix of one ("example.com/name", "example.com/").
var annotationLike = regexp.MustCompile(`^[a-z0-9.-]+\.[a-z]+/[A-Za-z0-9._-]*$`)

// Every annotation-shaped key the translator, the store and the status writer mention must be
// kept by the transforms (or be one of the labels they keep), or live mode would silently
// translate differently from `kongsync dump`.
func TestKeptAnnotationsCoverReaders(t *testing.T) {
	labels := map[string]bool{CACertLabel: true, CredentialLabel: true, discoveryv1.LabelServiceName: true}
	found := 0
	for _, dir := range []string{"../translator", "../store", "../status"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no sources in %s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if _, ok := n.(*ast.ImportSpec); ok {
					return false
				}
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil || !annotationLike.MatchString(v) {
					return true
				}
				found++
				if !keptAnnotation(v) && !labels[v] {
					t.Errorf("%s mentions %q, which the informer transforms drop", f, v)
				}
				return true
			})
		}
	}
	if found < 5 {
		t.Fatalf("only %d annotation-like keys found: the scan is broken", found)
	}
}
