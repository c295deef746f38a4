//go:build integration

package integration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	gatewayclient "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/internal/workload"
)

// The live-loop benchmarks (issue 4) run the real `kongsync run` binary as a child process
// against the package's kube-apiserver and an in-process Kong double, so RSS and CPU time read
// from /proc are the controller's alone. The cluster is loaded once per package run with
// KONGSYNC_BENCH_N objects of KONGSYNC_BENCH_KIND (Ingresses by default, or HTTPRoutes on one
// Gateway: see liveKind; default 10,000, each with its Service and EndpointSlice) and
// KONGSYNC_BENCH_SECRETS unrelated 256 KiB Opaque Secrets (default 2,000).

var (
	liveLoadOnce sync.Once
	liveLoadErr  error
	liveN        int
	liveWidth    int
	liveRoutes   liveKind
	liveBinOnce  sync.Once
	liveBin      string
	liveBinErr   error
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}

// liveCluster loads the workload into the apiserver once (several client goroutines, no client
// rate limit: kubectl apply of 30k objects takes minutes).
func liveCluster(b *testing.B) int {
	b.Helper()
	liveLoadOnce.Do(func() {
		liveN = envInt("KONGSYNC_BENCH_N", 10000)
		rc := plane.RestConfig()
		rc.QPS, rc.Burst = -1, 0 // no client-side rate limit
		if liveRoutes, liveLoadErr = newLiveKind(rc); liveLoadErr != nil {
			return
		}
		c := workload.Defaults(0)
		liveRoutes.configure(&c, liveN)
		c.UnrelatedSecrets = envInt("KONGSYNC_BENCH_SECRETS", 2000)
		c.UIDs = false
		liveWidth = max(len(strconv.Itoa(max(c.Ingresses, c.HTTPRoutes, c.UnrelatedSecrets)-1)), 5)
		t0 := time.Now()
		if liveLoadErr = liveRoutes.prepare(); liveLoadErr != nil {
			return
		}
		liveLoadErr = loadWorkload(rc, c)
		fmt.Fprintf(os.Stderr, "loaded %d Ingresses, %d HTTPRoutes (+Services, EndpointSlices) and %d x %d B Secrets in %s\n",
			c.Ingresses, c.HTTPRoutes, c.UnrelatedSecrets, c.SecretSize, time.Since(t0).Round(time.Millisecond))
	})
	if liveLoadErr != nil {
		b.Fatal(liveLoadErr)
	}
	return liveN
}

func loadWorkload(rc *rest.Config, c workload.Config) error {
	cs := kubernetes.NewForConfigOrDie(rc)
	gw := gatewayclient.NewForConfigOrDie(rc)
	objs := make(chan runtime.Object, 64)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range objs {
				if err := createObject(context.Background(), cs, gw, o); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	err := workload.Each(c, func(o runtime.Object) error {
		select {
		case err := <-errs:
			return err
		default:
		}
		objs <- o
		return nil
	})
	close(objs)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return err
}

func createObject(ctx context.Context, cs kubernetes.Interface, gw gatewayclient.Interface, o runtime.Object) error {
	var err error
	co := metav1.CreateOptions{}
	switch o := o.(type) {
	case *corev1.Namespace:
		_, err = cs.CoreV1().Namespaces().Create(ctx, o, co)
	case *networkingv1.IngressClass:
		_, err = cs.NetworkingV1().IngressClasses().Create(ctx, o, co)
	case *corev1.Secret:
		_, err = cs.CoreV1().Secrets(o.Namespace).Create(ctx, o, co)
	case *corev1.Service:
		// Headless: the harness's Service range is a /24 and the translator ignores ClusterIP.
		o.Spec.ClusterIP = corev1.ClusterIPNone
		_, err = cs.CoreV1().Services(o.Namespace).Create(ctx, o, co)
	case *discoveryv1.EndpointSlice:
		_, err = cs.DiscoveryV1().EndpointSlices(o.Namespace).Create(ctx, o, co)
	case *networkingv1.Ingress:
		_, err = cs.NetworkingV1().Ingresses(o.Namespace).Create(ctx, o, co)
	case *gatewayv1.GatewayClass:
		_, err = gw.GatewayV1().GatewayClasses().Create(ctx, o, co)
	case *gatewayv1.Gateway:
		_, err = gw.GatewayV1().Gateways(o.Namespace).Create(ctx, o, co)
	case *gatewayv1.HTTPRoute:
		_, err = gw.GatewayV1().HTTPRoutes(o.Namespace).Create(ctx, o, co)
	default:
		err = fmt.Errorf("unexpected %T", o)
	}
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// routeName is the generated name of route object i (and its Service) of the loaded kind, as
// internal/workload pads it.
func routeName(i int) string { return fmt.Sprintf("%s-%0*d", liveRoutes.prefix(), liveWidth, i) }

// liveBinary builds cmd/kongsync once per package run.
func liveBinary(b *testing.B) string {
	b.Helper()
	liveBinOnce.Do(func() {
		liveBin = filepath.Join(binDir, "kongsync-live")
		out, err := exec.Command("go", "build", "-o", liveBin, "github.com/kongsync/kongsync/cmd/kongsync").CombinedOutput()
		if err != nil {
			liveBinErr = fmt.Errorf("building kongsync: %v\n%s", err, out)
		}
	})
	if liveBinErr != nil {
		b.Fatal(liveBinErr)
	}
	return liveBin
}

// liveProc is one `kongsync run` child process pushing to one double.
type liveProc struct {
	cmd     *exec.Cmd
	started time.Time
	double  *kongdouble.Server
}

func startLive(b *testing.B, extra ...string) *liveProc {
	b.Helper()
	return startLiveWith(b, "", nil, extra...)
}

// startLiveWith runs bin ("" for the binary built from this tree) with env added to the
// environment.
func startLiveWith(b *testing.B, bin string, env []string, extra ...string) *liveProc {
	b.Helper()
	if bin == "" {
		bin = liveBinary(b)
	}
	// Kong as deploy/ configures it: admin body limit 64m (KONG_NGINX_ADMIN_CLIENT_MAX_BODY_SIZE).
	d := kongdouble.New(kongdouble.Options{MaxBodyBytes: 64 << 20})
	args := append([]string{"run", "--kubeconfig=" + plane.Kubeconfig, "--kong-admin-url=" + d.URL(),
		"--update-status=false", "--election-namespace=default", "--log-level=error",
		"--metrics-bind-address=0", "--health-probe-bind-address=0"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p := &liveProc{cmd: cmd, double: d}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		d.Close()
		b.Fatal(err)
	}
	b.Cleanup(p.stop)
	return p
}

func (p *liveProc) stop() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
	}
	p.double.Close()
}

// services counts the services in the double's loaded config and how many routes have a path
// starting with marker, as a prefix or a regex ("~/marker..."; marker "" counts none).
func services(d *kongdouble.Server, marker string) (n, marked int) {
	svcs, _ := d.Document()["services"].([]any)
	for _, s := range svcs {
		sm, _ := s.(map[string]any)
		routes, _ := sm["routes"].([]any)
		for _, r := range routes {
			rm, _ := r.(map[string]any)
			paths, _ := rm["paths"].([]any)
			for _, p := range paths {
				if ps, _ := p.(string); marker != "" && strings.HasPrefix(strings.TrimPrefix(ps, "~"), marker) {
					marked++
					break
				}
			}
		}
	}
	return len(svcs), marked
}

// waitComplete waits for a loaded config with every one of the n services.
func (p *liveProc) waitComplete(b *testing.B, n int) time.Duration {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	seen := 0
	err := p.double.WaitFor(ctx, func() bool {
		if c := len(p.double.Posts()); c != seen {
			seen = c
			got, _ := services(p.double, "")
			return got >= n
		}
		return false
	})
	if err != nil {
		b.Fatalf("no complete push of %d services: %v", n, err)
	}
	posts := p.double.Posts()
	return posts[len(posts)-1].End.Sub(p.started)
}

// procStats reads VmHWM, VmRSS (bytes) and utime+stime (seconds) of pid from /proc.
func procStats(pid int) (hwm, rss int64, cpu time.Duration, err error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "VmHWM:" || f[0] == "VmRSS:") {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			if f[0] == "VmHWM:" {
				hwm = kb << 10
			} else {
				rss = kb << 10
			}
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	s := string(stat)
	rest := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(rest) < 13 {
		return 0, 0, 0, errors.New("short /proc/pid/stat")
	}
	ut, _ := strconv.ParseInt(rest[11], 10, 64) // field 14
	st, _ := strconv.ParseInt(rest[12], 10, 64) // field 15
	const clkTck = 100                          // USER_HZ on Linux
	return hwm, rss, time.Duration(ut+st) * time.Second / clkTck, nil
}

// BenchmarkLiveStart10k measures exec → first complete push (the double answered a POST
// holding all N services), then the controller's peak RSS, the CPU it uses over 10 idle s and its
// RSS after them (steady).
//
// KONGSYNC_BENCH_VARIANTS runs several variants side by side on the one loaded cluster, as
// sub-benchmarks, interleaved per iteration: "name|binary|K=V K=V;name2|...", where an empty
// binary is the one built from this tree and the K=V pairs are added to the child's environment
// (e.g. "old|/tmp/kongsync-old|;new||GOGC=50"); a fourth field "noprofile" keeps
// KONGSYNC_BENCH_PPROF from a binary without --profiling. KONGSYNC_BENCH_ROUNDS sets the
// iterations (a benchmark with sub-benchmarks runs once).
func BenchmarkLiveStart10k(b *testing.B) {
	n := liveCluster(b)
	liveBinary(b)
	runVariants[liveStartResult](b, func(v liveVariant, round int) liveStartResult {
		return liveStartOnce(b, n, v, round)
	})
}

// liveResult is what runVariants accumulates per variant: *R adds one round's R and reports.
type liveResult[R any] interface {
	*R
	add(R)
	report(*testing.B)
}

// runVariants runs once for every variant (KONGSYNC_BENCH_VARIANTS) in every round
// (KONGSYNC_BENCH_ROUNDS), interleaved, then reports each variant's accumulated result: as the
// benchmark's own metrics with one variant, as sub-benchmarks named after them with several.
func runVariants[R any, P liveResult[R]](b *testing.B, once func(v liveVariant, round int) R) {
	variants := liveVariants()
	results := make([]R, len(variants))
	b.ResetTimer()
	for i := range max(b.N, envInt("KONGSYNC_BENCH_ROUNDS", 1)) {
		for v := range variants {
			P(&results[v]).add(once(variants[v], i))
		}
	}
	b.StopTimer()
	if len(variants) == 1 {
		P(&results[0]).report(b)
		return
	}
	for v := range variants {
		b.Run(variants[v].name, func(b *testing.B) { P(&results[v]).report(b) })
	}
}

// liveVariant is one kongsync binary and environment compared side by side.
type liveVariant struct {
	name, bin string
	env       []string
	noProfile bool
}

// liveVariants parses KONGSYNC_BENCH_VARIANTS (see BenchmarkLiveStart10k); without it, the one
// variant is the binary built from this tree.
func liveVariants() []liveVariant {
	var variants []liveVariant
	for _, v := range strings.Split(os.Getenv("KONGSYNC_BENCH_VARIANTS"), ";") {
		f := strings.SplitN(v, "|", 4)
		if len(f) >= 3 {
			variants = append(variants, liveVariant{name: f[0], bin: f[1], env: strings.Fields(f[2]),
				noProfile: len(f) == 4 && f[3] == "noprofile"})
		}
	}
	if len(variants) == 0 {
		variants = []liveVariant{{}}
	}
	return variants
}

// liveStartResult accumulates one variant's BenchmarkLiveStart10k runs.
type liveStartResult struct {
	starts, received []float64
	hwm, rss         int64
	idle             time.Duration
}

func (r *liveStartResult) add(o liveStartResult) {
	r.starts = append(r.starts, o.starts...)
	r.received = append(r.received, o.received...)
	r.hwm, r.rss, r.idle = max(r.hwm, o.hwm), max(r.rss, o.rss), max(r.idle, o.idle)
}

func (r *liveStartResult) report(b *testing.B) {
	b.ReportMetric(percentile(r.starts, 50), "start-p50-s")
	// The same, to the moment the double had the whole body: without its own validation.
	b.ReportMetric(percentile(r.received, 50), "start-received-p50-s")
	b.ReportMetric(float64(r.hwm)/(1<<20), "VmHWM-MiB")
	b.ReportMetric(float64(r.rss)/(1<<20), "steady-VmRSS-MiB") // after the 10 idle s
	b.ReportMetric(float64(r.idle.Milliseconds()), "idle-cpu-ms/10s")
	b.ReportMetric(0, "ns/op")
}

// liveStartOnce starts one kongsync, waits for its first complete push and measures it.
// KONGSYNC_BENCH_PPROF=dir adds --profiling and saves heap profiles (binary, and text with
// runtime.MemStats) right after that push; KONGSYNC_BENCH_LOG_LEVEL=debug logs the start
// phases with timestamps on stderr.
func liveStartOnce(b *testing.B, n int, v liveVariant, i int) liveStartResult {
	var extra []string
	var metricsAddr, diagAddr string
	pprofDir := os.Getenv("KONGSYNC_BENCH_PPROF")
	if v.noProfile {
		pprofDir = ""
	}
	if pprofDir != "" {
		metricsAddr, diagAddr = freeAddr(b), freeAddr(b)
		_, diagPort, _ := net.SplitHostPort(diagAddr)
		extra = []string{"--profiling", "--metrics-bind-address=" + metricsAddr, "--diagnostic-server-port=" + diagPort}
	}
	if lvl := os.Getenv("KONGSYNC_BENCH_LOG_LEVEL"); lvl != "" {
		extra = append(extra, "--log-level="+lvl)
	}
	p := startLiveWith(b, v.bin, v.env, extra...)
	var r liveStartResult
	r.starts = append(r.starts, p.waitComplete(b, n).Seconds())
	posts := p.double.Posts()
	last := posts[len(posts)-1]
	r.received = append(r.received, last.Received.Sub(p.started).Seconds())
	h, rss, c0, err := procStats(p.cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "%s: complete POST began %.2fs, body received %.2fs, answered %.2fs after exec (%d POSTs); VmHWM %.1f MiB\n",
		v.name, last.Start.Sub(p.started).Seconds(), last.Received.Sub(p.started).Seconds(), last.End.Sub(p.started).Seconds(),
		len(posts), float64(h)/(1<<20))
	if pprofDir != "" {
		saveHeapProfiles(b, []string{diagAddr, metricsAddr}, filepath.Join(pprofDir, fmt.Sprintf("heap-%s%d", v.name, i)))
	}
	idleWindow := time.NewTimer(10 * time.Second)
	<-idleWindow.C
	_, steady, c1, err := procStats(p.cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "%s: VmRSS %.1f MiB at the push, %.1f MiB after 10 idle s\n", v.name, float64(rss)/(1<<20), float64(steady)/(1<<20))
	r.hwm, r.rss, r.idle = h, steady, c1-c0
	p.stop()
	return r
}

// saveHeapProfiles writes prefix.pb.gz (for go tool pprof) and prefix.txt (debug=1: the
// allocation sites and runtime.MemStats) from a kongsync running with --profiling, each after a
// forced GC so that in-use means live. addrs are tried in order: kongsync serves pprof on its
// diagnostics server, binaries before it on the metrics server.
func saveHeapProfiles(b *testing.B, addrs []string, prefix string) {
	b.Helper()
	for suffix, query := range map[string]string{".pb.gz": "?gc=1", ".txt": "?gc=1&debug=1"} {
		var resp *http.Response
		var err error
		for _, addr := range addrs {
			if resp, err = http.Get("http://" + addr + "/debug/pprof/heap" + query); err == nil && resp.StatusCode == http.StatusOK {
				break
			}
			if err == nil {
				resp.Body.Close()
			}
		}
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("heap profile: %d %v", resp.StatusCode, err)
		}
		if err := os.WriteFile(prefix+suffix, body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// burstWriters is how many client goroutines write a burst (Updates of listed objects, no Get).
const burstWriters = 32

// BenchmarkLiveBurst writes 1,000 updates of the loaded kind's objects as fast as burstWriters
// client goroutines can and counts the POSTs until the double holds all of them.
func BenchmarkLiveBurst(b *testing.B) {
	n := liveCluster(b)
	const burst = 1000
	if n < burst {
		b.Skipf("needs N >= %d", burst)
	}
	p := startLive(b)
	p.waitComplete(b, n)
	ctx := context.Background()
	var pushes, durs, writes []float64
	b.ResetTimer()
	for round := range b.N {
		marker := fmt.Sprintf("/burst%d-", round)
		write, err := liveRoutes.pathWriters(ctx)
		if err != nil || len(write) < burst {
			b.Fatalf("listing the route objects: %v (%d)", err, len(write))
		}
		p.double.ResetRequests()
		t0 := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, burst)
		for g := range burstWriters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; i < burst; i += burstWriters {
					if _, err := write[i](ctx, marker+strconv.Itoa(i)); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		writes = append(writes, time.Since(t0).Seconds())
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		seen := 0
		err = p.double.WaitFor(wctx, func() bool {
			if c := len(p.double.Posts()); c != seen {
				seen = c
				_, m := services(p.double, marker)
				return m == burst
			}
			return false
		})
		cancel()
		if err != nil {
			b.Fatalf("burst %d never fully pushed: %v", round, err)
		}
		posts := p.double.Posts()
		pushes = append(pushes, float64(len(posts)))
		durs = append(durs, posts[len(posts)-1].End.Sub(t0).Seconds())
	}
	b.StopTimer()
	b.ReportMetric(percentile(pushes, 50), "pushes/burst")
	b.ReportMetric(percentile(pushes, 100), "max-pushes/burst")
	b.ReportMetric(percentile(durs, 50), "burst-to-done-s")
	b.ReportMetric(percentile(writes, 50), "writes-s")
}

// percentile is the nearest-rank q-th percentile (q in 0..100).
func percentile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	i := int(q/100*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}
