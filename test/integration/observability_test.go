//go:build integration

package integration

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	gosync "sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
)

func freeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// /healthz, /readyz and /metrics answer on their addresses; the admin token and Secret data
// never reach the logs, even at trace level.
func TestDiagnosticsAndNoSecretsInLogs(t *testing.T) {
	ns := newNamespace(t)
	const token = "kong-admin-token-5f1b2c"
	kong := kongdouble.New(kongdouble.Options{Token: token})
	t.Cleanup(kong.Close)
	metricsAddr, healthAddr := freeAddr(t), freeAddr(t)
	var mu gosync.Mutex
	var logs bytes.Buffer
	crt, key := selfSigned(t, "diag.example.com")
	if _, err := admin.CoreV1().Secrets(ns).Create(ctxT(t), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "diag-tls"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": crt, "tls.key": key}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	in := startKongsyncWithLogger(t, "diag", ns, []*kongdouble.Server{kong}, func(c *runner.Config) {
		c.KongAdminToken = token
		c.MetricsBindAddress, c.HealthProbeBindAddress = metricsAddr, healthAddr
	}, funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		logs.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{Verbosity: 10}))
	web := app{ns: ns, name: "web", host: "diag.example.com"}
	web.create(t)
	waitDouble(t, kong, "config with the admin token", func() bool { return hasHost(kong, "diag.example.com") })
	in.waitReady(t)

	if code, _ := get(t, "http://"+healthAddr+"/healthz"); code != 200 {
		t.Errorf("/healthz = %d", code)
	}
	if code, _ := get(t, "http://"+healthAddr+"/readyz"); code != 200 {
		t.Errorf("/readyz after the first accepted push = %d", code)
	}
	if code, _ := get(t, "http://"+metricsAddr+"/debug/pprof/heap"); code != 404 {
		t.Errorf("/debug/pprof/heap without --profiling = %d, want 404", code)
	}
	code, body := get(t, "http://"+metricsAddr+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics = %d", code)
	}
	for _, want := range []string{`kongsync_pushes_total{replica="` + kong.URL() + `",result="accepted"}`,
		"kongsync_translation_duration_seconds_count", "kongsync_config_bytes", "kongsync_translation_objects"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	in.stop()
	mu.Lock()
	defer mu.Unlock()
	if logs.Len() == 0 {
		t.Fatal("no logs captured: the check below would pass vacuously")
	}
	keyLine := strings.Split(strings.TrimSpace(string(key)), "\n")[1]
	for name, secret := range map[string]string{"admin token": token, "private key": keyLine} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the %s appears in the logs", name)
		}
	}
}

// --profiling serves net/http/pprof on the diagnostics server, as KIC; not beside /metrics.
func TestProfilingFlag(t *testing.T) {
	ns := newNamespace(t)
	kong := newDouble(t)
	metricsAddr, diagAddr := freeAddr(t), freeAddr(t)
	in := startKongsync(t, "prof", ns, []*kongdouble.Server{kong}, func(c *runner.Config) {
		c.MetricsBindAddress, c.HealthProbeBindAddress, c.Profiling, c.DiagnosticsBindAddress = metricsAddr, "0", true, diagAddr
	})
	in.waitReady(t)
	if code, body := get(t, "http://"+diagAddr+"/debug/pprof/heap?debug=1"); code != 200 || !strings.Contains(body, "heap profile") {
		t.Errorf("/debug/pprof/heap with --profiling = %d", code)
	}
	if code, _ := get(t, "http://"+diagAddr+"/debug/config/successful"); code != 404 {
		t.Errorf("/debug/config without --dump-config = %d, want 404", code)
	}
	if code, _ := get(t, "http://"+metricsAddr+"/debug/pprof/heap"); code != 404 {
		t.Errorf("/debug/pprof on the metrics server = %d, want 404", code)
	}
	if code, _ := get(t, "http://"+metricsAddr+"/metrics"); code != 200 {
		t.Errorf("/metrics with --profiling = %d", code)
	}
}
