//go:build integration

package integration

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
	kongsync "github.com/kongsync/kongsync/sync"
)

// KIC's FallbackConfiguration gate, on the real apiserver: a Service Kong rejects takes the
// Ingress routing to it out of the configuration while the rest goes out (an app created
// meanwhile too, after the Service's retry), /debug/config/fallback lists both in KIC's shape
// (the Ingress caused by the Service), every KIC metric has a series, the fallback ones
// included, and the Service's next version (another configuration, which Kong takes) brings
// both back.
func TestFallbackGate(t *testing.T) {
	ns := newNamespace(t)
	kong := newDouble(t)
	app{ns: ns, name: "ok", host: "ok.example.com"}.create(t)
	diag, metricsAddr, obs := freeAddr(t), freeAddr(t), newObserver()
	startKongsync(t, "fallback", ns, []*kongdouble.Server{kong}, func(c *runner.Config) {
		c.DumpConfig, c.DiagnosticsBindAddress, c.FallbackConfiguration = true, diag, true
		c.MetricsBindAddress, c.Hooks.Observe = metricsAddr, obs.observe
	})
	waitDouble(t, kong, "ok's route", func() bool { return hasHost(kong, "ok.example.com") })

	// Kong refuses every configuration holding the Service, as it would a bad one.
	kong.RefuseObjects(kongdouble.TaggedObject{Name: "shared", Namespace: ns, Kind: "Service", Version: "v1"})
	app{ns: ns, name: "shared", host: "shared.example.com"}.create(t)
	fallback := "http://" + diag + "/debug/config/fallback"
	cause := `"causingObjects":["core/Service:` + ns + `/shared"]`
	waitDouble(t, kong, "the fallback", func() bool {
		_, body := get(t, fallback)
		return strings.Contains(body, `"kind":"Ingress","version":"v1","namespace":"`+ns+`","name":"shared"`) &&
			strings.Contains(body, cause)
	})
	if !slices.ContainsFunc(kong.Posts(), func(r kongdouble.Request) bool { return r.Status == 400 }) {
		t.Fatal("no rejected push")
	}
	_, body := get(t, fallback)
	if !strings.Contains(body, `"status":"triggered","brokenObjects":[{"group":"","kind":"Service","namespace":"`+ns+`","name":"shared"`) {
		t.Errorf("/debug/config/fallback = %s", body)
	}
	// A fallback configuration to push: the change in its namespace gives the Service another
	// chance first (Kong refuses it again).
	app{ns: ns, name: "more", host: "more.example.com"}.create(t)
	waitDouble(t, kong, "more's route", func() bool { return hasHost(kong, "more.example.com") })
	if hasHost(kong, "shared.example.com") || !hasHost(kong, "ok.example.com") {
		t.Errorf("Kong holds %v: want ok's and more's routes, not shared's", routeHosts(kong))
	}
	// Kong holds the fallback configuration once it took the POST; kongsync records the push's
	// metrics when it reads the answer, before the push's event.
	held, accepted := kong.Hash(), isPush(kongsync.ResultAccepted)
	obs.wait(t, "the fallback push's answer", 0, 1, func(e kongsync.Event) bool { return accepted(e) && e.Hash == held })
	checkKICMetrics(t, metricsAddr, kong.URL(), true)

	ctx := ctxT(t)
	svc, err := admin.CoreV1().Services(ns).Get(ctx, "shared", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The Service fixed: Kong takes it now, and its new version, another configuration (the one
	// Kong refused is never posted again), brings both back.
	kong.RefuseObjects()
	svc.Annotations = map[string]string{"konghq.com/read-timeout": "5000"}
	if _, err := admin.CoreV1().Services(ns).Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "shared's route back", func() bool { return hasHost(kong, "shared.example.com") })
	if _, body := get(t, fallback); strings.TrimSpace(body) != `{"status":"not-triggered"}` {
		t.Errorf("after the fix, /debug/config/fallback = %s", body)
	}
}
