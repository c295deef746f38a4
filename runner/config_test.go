package runner

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/kongsync/kongsync/metrics"
	"github.com/kongsync/kongsync/store"
)

// The client rate limit comes from the config's --apiserver-qps/--apiserver-burst; a config
// without them (zero) keeps what an explicit rest.Config says, else KIC's defaults.
func TestRestConfigRateLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		qps   float32
		burst int
	}{
		{"defaults", Config{RestConfig: &rest.Config{}, APIServerQPS: 100, APIServerBurst: 300}, 100, 300},
		{"flags win over rest.Config", Config{RestConfig: &rest.Config{QPS: 5, Burst: 6}, APIServerQPS: 20, APIServerBurst: 40}, 20, 40},
		{"rest.Config kept without flags", Config{RestConfig: &rest.Config{QPS: -1}}, -1, 0},
		{"unset everywhere", Config{RestConfig: &rest.Config{}}, 100, 300},
		{"burst at least 1", Config{RestConfig: &rest.Config{}, APIServerQPS: 3}, 3, 1},
	} {
		rc, err := restConfig(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rc.QPS != tc.qps || rc.Burst != tc.burst {
			t.Errorf("%s: qps %v burst %d, want %v %d", tc.name, rc.QPS, rc.Burst, tc.qps, tc.burst)
		}
	}
}

// --apiserver-host replaces the server of whichever config is used, keeping its credentials.
func TestAPIServerHost(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://from-kubeconfig:6443"}}]
users: [{name: u, user: {token: tok}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		cfg       Config
		host, tok string
	}{
		{"kubeconfig", Config{Kubeconfig: kubeconfig}, "https://from-kubeconfig:6443", "tok"},
		{"kubeconfig and host", Config{Kubeconfig: kubeconfig, APIServerHost: "https://other:6443"}, "https://other:6443", "tok"},
		{"rest.Config and host", Config{RestConfig: &rest.Config{Host: "https://a", BearerToken: "t"}, APIServerHost: "https://b"}, "https://b", "t"},
	} {
		rc, err := restConfig(tc.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if rc.Host != tc.host || rc.BearerToken != tc.tok {
			t.Errorf("%s: host %q token %q, want %q %q", tc.name, rc.Host, rc.BearerToken, tc.host, tc.tok)
		}
	}
}

// KIC's defaults where they differ from a zero Config: bind addresses on every interface.
func TestDefaultsAsKIC(t *testing.T) {
	d := Defaults()
	if d.MetricsBindAddress != ":10255" || d.HealthProbeBindAddress != ":10254" || !d.EmitKubernetesEvents ||
		d.KongAdminInitRetries != 60 || d.KongAdminInitRetryDelay != time.Second || d.KongAdminTimeout != 30*time.Second ||
		d.ClusterDomain != "" {
		t.Errorf("defaults differ from KIC v3.5.13's: %+v", d)
	}
}

// The replica client settings follow --proxy-timeout-seconds and --kong-admin-header; status
// probes keep their 2 s bound unless the timeout is shorter.
func TestLoopReplicaOptions(t *testing.T) {
	for _, tc := range []struct {
		timeout, wantProbe time.Duration
	}{{30 * time.Second, 2 * time.Second}, {500 * time.Millisecond, 500 * time.Millisecond}} {
		cfg := Defaults()
		cfg.KongAdminTimeout = tc.timeout
		cfg.KongAdminHeaders = http.Header{"X-A": {"b"}}
		loop, err := newLoop(cfg, store.New(), nil, nil, nil, nil, logr.Discard())
		if err != nil {
			t.Fatal(err)
		}
		o := loop.ReplicaOptions()
		if o.Timeout != tc.timeout || o.ProbeTimeout != tc.wantProbe || o.Headers.Get("X-A") != "b" {
			t.Errorf("timeout %v: replica options timeout %v probe %v headers %v", tc.timeout, o.Timeout, o.ProbeTimeout, o.Headers)
		}
	}
}

// --emit-kubernetes-events=false drops Events (they are still logged by the reporter).
func TestEventRecorderSwitch(t *testing.T) {
	cfg := Defaults()
	cfg.EmitKubernetesEvents = false
	rec, stop := eventRecorder(context.Background(), cfg, fake.NewClientset())
	defer stop()
	if _, ok := rec.(metrics.NoEvents); !ok {
		t.Errorf("recorder with events off = %T", rec)
	}
	cfg.EmitKubernetesEvents = true
	rec, stop2 := eventRecorder(context.Background(), cfg, fake.NewClientset())
	defer stop2()
	if _, ok := rec.(metrics.NoEvents); ok {
		t.Error("events on, but the recorder drops them")
	}
}
