//go:build integration

package integration

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/internal/apis/kongcrds"
	"github.com/kongsync/kongsync/internal/kongdouble"
)

// installStreamCRDs installs Kong's published TCPIngress and UDPIngress CRDs (schemas, defaults
// and all), the files KIC users have installed.
func installStreamCRDs(t *testing.T) {
	t.Helper()
	files, err := kongcrds.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasSuffix(base, "_tcpingresses.yaml") || strings.HasSuffix(base, "_udpingresses.yaml") {
			kubectl(t, "apply", "--server-side", "--force-conflicts", "-f", f)
			kubectl(t, "wait", "--for=condition=established", "--timeout=30s", "-f", f)
		}
	}
}

// A TCPIngress on Kong's published CRD reaches the Kong double as a stream route on its
// Service's Kong service, a change to it follows, and the leader writes its
// status.loadBalancer with the published addresses.
func TestTCPIngressLiveAndStatus(t *testing.T) {
	installStreamCRDs(t)
	ns := newNamespace(t)
	a := app{ns: ns, name: "db", host: "unused.example.com"}
	if _, err := admin.CoreV1().Services(ns).Create(ctxT(t), a.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(plane.RestConfig())
	tcps := dyn.Resource(configurationv1beta1.SchemeGroupVersion.WithResource("tcpingresses")).Namespace(ns)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1beta1", "kind": "TCPIngress",
		"metadata": map[string]any{"name": "db", "namespace": ns,
			"annotations": map[string]any{"kubernetes.io/ingress.class": "kong"}},
		"spec": map[string]any{"rules": []any{map[string]any{"port": int64(9000),
			"backend": map[string]any{"serviceName": "db", "servicePort": int64(80)}}}},
	}}
	if _, err := tcps.Create(ctxT(t), obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kong := newDouble(t)
	in := startKongsync(t, "tcp", ns, []*kongdouble.Server{kong}, statusConfig)
	svc, route := ns+".db.80", ns+".db.0"
	waitDouble(t, kong, "the TCPIngress's stream route", func() bool { return streamPort(kong, svc, route) == 9000 })
	waitStatus(t, in, ns+"/db")
	got, err := tcps.Get(ctxT(t), "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lb, _, _ := unstructured.NestedSlice(got.Object, "status", "loadBalancer", "ingress")
	if b, _ := json.Marshal(lb); string(b) != `[{"ip":"127.0.0.2"},{"hostname":"kong.example.net"}]` {
		t.Fatalf("status.loadBalancer.ingress = %s", b)
	}

	_ = unstructured.SetNestedSlice(got.Object, []any{map[string]any{"port": int64(9001),
		"backend": map[string]any{"serviceName": "db", "servicePort": int64(80)}}}, "spec", "rules")
	start := time.Now()
	if _, err := tcps.Update(ctxT(t), got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the changed listener port", func() bool { return streamPort(kong, svc, route) == 9001 })
	t.Logf("TCPIngress change reached the Kong double in %v", time.Since(start))
}

// streamPort is the first destination port of route on Kong service svc in the double's
// config (0: absent).
func streamPort(d *kongdouble.Server, svc, route string) float64 {
	var cfg struct {
		Services []struct {
			Name   string `json:"name"`
			Routes []struct {
				Name         string `json:"name"`
				Destinations []struct {
					Port float64 `json:"port"`
				} `json:"destinations"`
			} `json:"routes"`
		} `json:"services"`
	}
	if err := json.Unmarshal([]byte(d.Config()), &cfg); err != nil {
		return 0
	}
	for _, s := range cfg.Services {
		for _, r := range s.Routes {
			if s.Name == svc && r.Name == route && len(r.Destinations) > 0 {
				return r.Destinations[0].Port
			}
		}
	}
	return 0
}
