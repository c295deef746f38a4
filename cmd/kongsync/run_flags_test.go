package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRunFlagsEnvAndCommandLine(t *testing.T) {
	env := map[string]string{
		"CONTROLLER_KONG_ADMIN_URL":       "http://a:8001,http://b:8001",
		"CONTROLLER_INGRESS_CLASS":        "internal",
		"CONTROLLER_UPDATE_STATUS":        "false",
		"CONTROLLER_SYNC_WINDOW":          "50ms",
		"CONTROLLER_WATCH_NAMESPACE":      "env-ns",
		"CONTROLLER_METRICS_BIND_ADDRESS": ":9999",
	}
	f, _, err := parseRunFlags([]string{"--watch-namespace", "x", "--watch-namespace=y", "--ingress-class", "cli", "--profiling"},
		func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	c := f.cfg
	if !reflect.DeepEqual(c.KongAdminURLs, []string{"http://a:8001", "http://b:8001"}) {
		t.Errorf("admin URLs from env = %v", c.KongAdminURLs)
	}
	if !reflect.DeepEqual(c.WatchNamespaces, []string{"x", "y"}) {
		t.Errorf("command line must replace the env list, got %v", c.WatchNamespaces)
	}
	if c.IngressClass != "cli" || c.UpdateStatus || c.SyncWindow != 50*time.Millisecond || c.MetricsBindAddress != ":9999" || !c.Profiling {
		t.Errorf("unexpected config %+v", c)
	}
}

func TestRunFlagsDefaults(t *testing.T) {
	f, _, err := parseRunFlags(nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c := f.cfg
	if !reflect.DeepEqual(c.KongAdminURLs, []string{"http://localhost:8001"}) || c.IngressClass != "kong" ||
		!c.UpdateStatus || c.ElectionID != "5b374a9e.konghq.com" ||
		!strings.HasPrefix(c.MetricsBindAddress, "127.0.0.1:") || !strings.HasPrefix(c.HealthProbeBindAddress, "127.0.0.1:") ||
		c.SyncWindow != 100*time.Millisecond || c.SyncMaxDelay != 500*time.Millisecond || c.Profiling ||
		!reflect.DeepEqual(c.KongAdminSvcPortNames, []string{"admin-tls", "kong-admin-tls"}) ||
		c.APIServerQPS != 100 || c.APIServerBurst != 300 {
		t.Errorf("defaults differ: %+v", c)
	}
	f, _, err = parseRunFlags([]string{"--kong-admin-url", "http://kong:8001"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.cfg.KongAdminURLs, []string{"http://kong:8001"}) {
		t.Errorf("a flag must replace the default URL, got %v", f.cfg.KongAdminURLs)
	}
}

// --apiserver-qps and --apiserver-burst (KIC's names) set the client rate limit, from the
// command line or the environment; a non-positive QPS is refused rather than meaning "none".
func TestAPIServerRateFlags(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"CONTROLLER_APISERVER_BURST": "40"}[k]
	}
	f, _, err := parseRunFlags([]string{"--apiserver-qps", "20.5"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if f.cfg.APIServerQPS != 20.5 || f.cfg.APIServerBurst != 40 {
		t.Errorf("qps %v burst %d, want 20.5 and 40", f.cfg.APIServerQPS, f.cfg.APIServerBurst)
	}
	for _, bad := range []string{"0", "-1", "fast"} {
		_, _, err := parseRunFlags([]string{"--apiserver-qps", bad}, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), "apiserver-qps") {
			t.Errorf("--apiserver-qps %s: err = %v", bad, err)
		}
	}
}

func TestRunFlagsErrors(t *testing.T) {
	if _, _, err := parseRunFlags([]string{"--nope"}, func(string) string { return "" }); err == nil {
		t.Error("unknown flag accepted")
	}
	if _, _, err := parseRunFlags(nil, func(k string) string {
		if k == "CONTROLLER_SYNC_WINDOW" {
			return "soon"
		}
		return ""
	}); err == nil || !strings.Contains(err.Error(), "CONTROLLER_SYNC_WINDOW") {
		t.Errorf("bad env value: err = %v", err)
	}
}

func TestLoggerFormatsAndLevels(t *testing.T) {
	var buf bytes.Buffer
	log, err := newLogger(&buf, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	log.Info("hello", "object", "Ingress a/b")
	log.V(1).Info("hidden")
	if !strings.Contains(buf.String(), `"msg":"hello"`) || strings.Contains(buf.String(), "hidden") {
		t.Errorf("json/info output: %s", buf.String())
	}
	buf.Reset()
	log, _ = newLogger(&buf, "error", "text")
	log.Info("dropped")
	log.Error(nil, "kept")
	if strings.Contains(buf.String(), "dropped") || !strings.Contains(buf.String(), "kept") {
		t.Errorf("error level output: %s", buf.String())
	}
	if _, err := newLogger(&buf, "loud", "text"); err == nil {
		t.Error("bad level accepted")
	}
}

func TestClientGoDefaults(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "false"},
		{map[string]string{watchListEnv: "true"}, "true"},
		{map[string]string{watchListEnv: "false"}, "false"},
	} {
		env := map[string]string{}
		for k, v := range tc.env {
			env[k] = v
		}
		err := clientGoDefaults(func(k string) (string, bool) { v, ok := env[k]; return v, ok },
			func(k, v string) error { env[k] = v; return nil })
		if err != nil || env[watchListEnv] != tc.want {
			t.Errorf("env %v: %s = %q (%v), want %q", tc.env, watchListEnv, env[watchListEnv], err, tc.want)
		}
	}
}
