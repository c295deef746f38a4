//go:build integration

package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	gosync "sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/metrics"
	"github.com/kongsync/kongsync/runner"
)

// lines collects a process's log lines; wait re-checks a condition at each new line.
type lines struct {
	mu      gosync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newLines() *lines { return &lines{changed: make(chan struct{})} }

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

// find returns the first JSON line whose "msg" contains msg.
func (l *lines) find(msg string) map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(l.buf.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && strings.Contains(m["msg"].(string), msg) {
			return m
		}
	}
	return nil
}

func (l *lines) wait(t *testing.T, msg string, exited <-chan error) map[string]any {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		l.mu.Lock()
		ch := l.changed
		l.mu.Unlock()
		if m := l.find(msg); m != nil {
			return m
		}
		select {
		case <-ch:
		case err := <-exited:
			t.Fatalf("kongsync exited (%v) before logging %q:\n%s", err, msg, l.String())
		case <-deadline:
			t.Fatalf("no log line %q:\n%s", msg, l.String())
		}
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// The binary as KIC's chart runs it: no subcommand, KIC flags and CONTROLLER_* variables. It
// warns about the unknown variable and the inert flag, logs string levels, logs Kong's
// rejection at error, exposes KIC's metric names, and stops cleanly on SIGTERM.
func TestBinaryAsKICWithoutSubcommand(t *testing.T) {
	ns := newNamespace(t)
	kong := newDouble(t)
	metricsAddr := freeAddr(t)
	cmd := exec.Command(kongsyncBinary(t), "--kubeconfig="+plane.Kubeconfig, "--kong-admin-url="+kong.URL(),
		"--metrics-bind-address="+metricsAddr, "--health-probe-bind-address=0", "--anonymous-reports=false",
		"--proxy-sync-seconds=0.2", "--feature-gates=GatewayAlpha=false")
	cmd.Env = append(os.Environ(), "CONTROLLER_WATCH_NAMESPACE="+ns, "CONTROLLER_UPDATE_STATUS=false",
		"CONTROLLER_LOG_FORMAT=json", "CONTROLLER_ELECTION_NAMESPACE="+ns, "CONTROLLER_NOT_A_FLAG=1")
	logs := newLines()
	cmd.Stderr = logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})

	for msg, want := range map[string]string{"unknown environment variable": "CONTROLLER_NOT_A_FLAG",
		"KIC flags without effect": "--anonymous-reports=false"} {
		m := logs.wait(t, msg, exited)
		if b, _ := json.Marshal(m); m["level"] != "warn" || !strings.Contains(string(b), want) {
			t.Errorf("warning %s", b)
		}
	}
	app{ns: ns, name: "good", host: "good.example.com"}.create(t)
	if m := logs.wait(t, "every Kong replica holds a configuration", exited); m["level"] != "info" {
		t.Errorf("ready line %v", m)
	}
	bad := app{ns: ns, name: "bad", host: "bad.example.com"}
	rejectNextPost(kong, ns, "bad")
	if _, err := admin.CoreV1().Services(ns).Create(ctxT(t), bad.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctxT(t), bad.ingress(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if m := logs.wait(t, "Kong rejected the configuration", exited); m["level"] != "error" || m["error"] == nil {
		t.Errorf("rejection logged as %v, want level error with the error", m)
	}
	checkKICMetrics(t, metricsAddr, kong.URL(), false)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(waitTimeout):
		t.Fatal("kongsync did not stop on SIGTERM")
	}
}

// checkKICMetrics scrapes /metrics for every KIC v3.5.13 metric kongsync exposes (all but
// metrics.KICNotExposed), with the Kong replica as dataplane where KIC has that label; the
// fallback ones only when a fallback configuration was built and pushed (fallback).
func checkKICMetrics(t *testing.T, addr, replica string, fallback bool) {
	t.Helper()
	code, body := get(t, "http://"+addr+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics = %d", code)
	}
	f, err := os.Open("../../metrics/testdata/kic-v3.5.13-metrics.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	checked := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, labels, _ := strings.Cut(line, "\t")
		if metrics.KICNotExposed[name] != "" || !fallback && strings.HasPrefix(name, "ingress_controller_fallback_") {
			continue
		}
		checked++
		found := false
		for _, l := range strings.Split(body, "\n") {
			series, _, _ := strings.Cut(l, "{")
			if series != name && series != name+"_count" {
				continue
			}
			found = !strings.Contains(labels, "dataplane") || strings.Contains(l, `dataplane="`+replica+`"`)
			if found {
				break
			}
		}
		if !found {
			t.Errorf("/metrics lacks a %s series (for dataplane %s)", name, replica)
		}
	}
	if want := map[bool]int{false: 8, true: 17}[fallback]; checked != want {
		t.Errorf("%d KIC metrics checked, want %d", checked, want)
	}
	// controller-runtime's client-go metrics, which KIC's registry serves too: the informers'
	// LISTs succeeded, and the Secret work queue exists.
	for _, want := range []string{`rest_client_requests_total{code="200",`,
		`workqueue_depth{controller="kongsync-secrets",name="kongsync-secrets",priority=""}`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// KIC's startup check: a --kong-admin-url that never answers stops kongsync after
// --kong-admin-init-retries attempts, with the reason, instead of a controller that never
// configures anything.
func TestInitRetriesUnreachableKong(t *testing.T) {
	ns := newNamespace(t)
	kong := newDouble(t)
	kong.Stop()
	cfg := runner.Defaults()
	cfg.RestConfig = plane.RestConfig()
	cfg.KongAdminURLs, cfg.WatchNamespaces, cfg.UpdateStatus = []string{kong.URL()}, []string{ns}, false
	cfg.MetricsBindAddress, cfg.HealthProbeBindAddress = "0", "0"
	cfg.KongAdminInitRetries, cfg.KongAdminInitRetryDelay = 3, 10*time.Millisecond
	done := make(chan error, 1)
	go func() { done <- runner.Run(ctxT(t), cfg, logr.Discard()) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), kong.URL()) || !strings.Contains(err.Error(), "3 attempts") {
			t.Errorf("Run = %v, want the unreachable URL and the attempts named", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("kongsync kept running without a reachable Kong")
	}
}
