//go:build integration

package integration

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
	kongsync "github.com/kongsync/kongsync/sync"
)

// --dump-config: the diagnostics server shows the configuration Kong took (its private key
// redacted), then the one Kong refused and Kong's answer, and the Ingress left out.
func TestConfigDumpEndpoints(t *testing.T) {
	ns := newNamespace(t)
	kong := newDouble(t)
	ctx := ctxT(t)
	certPEM, keyPEM := selfSigned(t, "tls.example.com")
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tls"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM}}
	if _, err := admin.CoreV1().Secrets(ns).Create(ctx, sec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	web := app{ns: ns, name: "web", host: "tls.example.com"}
	ing := web.ingress()
	ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{web.host}, SecretName: "tls"}}
	if _, err := admin.CoreV1().Services(ns).Create(ctx, web.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	diag := freeAddr(t)
	obs := newObserver()
	startKongsync(t, "dump", ns, []*kongdouble.Server{kong}, func(c *runner.Config) {
		c.DumpConfig, c.DiagnosticsBindAddress, c.Hooks.Observe = true, diag, obs.observe
	})
	// The push's event comes after its dump is kept.
	obs.wait(t, "the first push", 0, 1, isPush(kongsync.ResultAccepted))
	base := "http://" + diag + "/debug/config"
	var resp struct {
		Hash    string         `json:"hash"`
		Config  map[string]any `json:"config"`
		Replica string         `json:"replica"`
	}
	code, body := get(t, base+"/successful")
	if err := json.Unmarshal([]byte(body), &resp); err != nil || code != 200 {
		t.Fatalf("/successful = %d %.200s (%v)", code, body, err)
	}
	keyLine := strings.Split(string(keyPEM), "\n")[1]
	if resp.Hash != kong.Hash() || resp.Replica != kong.URL() || strings.Contains(body, keyLine) ||
		!strings.Contains(body, `"key":"{vault://redacted-value}"`) {
		t.Errorf("/successful: hash %s (Kong's %s), replica %s, body %.300s", resp.Hash, kong.Hash(), resp.Replica, body)
	}
	if code, _ := get(t, base+"/failed"); code != 204 {
		t.Errorf("/failed before any failure = %d", code)
	}

	rejectNextPost(kong, ns, "bad")
	from := obs.len()
	app{ns: ns, name: "bad", host: "bad.example.com"}.create(t)
	obs.wait(t, "the refused push", from, 1, isPush(kongsync.ResultRejected))
	obs.wait(t, "the build without the refused Ingress", from, 1, func(e kongsync.Event) bool {
		return e.Type == kongsync.EventBuild && e.Build != nil && e.Build.Excluded == 1
	})
	if code, body := get(t, base+"/failed"); code != 200 || !strings.Contains(body, "bad.example.com") || strings.Contains(body, keyLine) {
		t.Errorf("/failed = %d %.300s", code, body)
	}
	if code, body := get(t, base+"/raw-error"); code != 200 || !strings.Contains(body, "invalid regex") {
		t.Errorf("/raw-error = %d %s", code, body)
	}
	if _, body := get(t, base+"/fallback"); !strings.Contains(body, `"status":"triggered"`) || !strings.Contains(body, `"name":"bad"`) {
		t.Errorf("/fallback = %s", body)
	}
}
