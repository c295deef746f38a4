package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	gosync "sync"
	"sync/atomic"
	"time"

	"github.com/blang/semver/v4"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"

	"github.com/kongsync/kongsync/informer"
	"github.com/kongsync/kongsync/metrics"
	"github.com/kongsync/kongsync/status"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/sync/discovery"
	"github.com/kongsync/kongsync/translator"
)

// Run starts the controller and blocks until ctx ends or a component fails. It returns nil on
// a clean shutdown.
func Run(ctx context.Context, cfg Config, log logr.Logger) error {
	kc, err := newClients(cfg)
	if err != nil {
		return err
	}
	client, dyn := kc.typed, kc.dyn
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	st := store.New()
	if cfg.Hooks.Store != nil {
		cfg.Hooks.Store(st)
	}
	prom := metrics.New()
	// Before informer.New: client-go gives a work queue its metrics when the queue is created.
	prom.Registry.MustRegister(metrics.ProcessKubeClient().Collectors()...)
	recorder, stopEvents := eventRecorder(ctx, cfg, client)
	defer stopEvents()

	reporter := metrics.NewReporter(recorder, st, log.WithName("events"))
	reporter.SetPod(os.Getenv("POD_NAMESPACE"), os.Getenv("POD_NAME"))
	var statusWriter *status.Writer
	var gwWriter *status.GatewayWriter
	var progWriter *status.ProgrammedWriter
	if cfg.UpdateStatus {
		statusWriter = status.New(client, st, log, status.Options{IngressClass: cfg.IngressClass,
			PublishService: cfg.PublishService, StaticAddresses: cfg.PublishStatusAddress, Dynamic: dyn})
		statusWriter.Updated = cfg.Hooks.StatusUpdated
		gwWriter = newGatewayWriter(cfg, client, dyn, log)
		progWriter = newProgrammedWriter(cfg, client, dyn, log)
	}
	loop, err := newLoop(cfg, st, prom, reporter, gwWriter, progWriter, log)
	if err != nil {
		return err
	}
	if progWriter != nil {
		progWriter.Held = heldByEveryReplica(loop)
		gwWriter.Held = progWriter.Held
		gwWriter.KongListeners = loop.KongListeners
	}
	notifiers := multiNotifier{loop}
	if statusWriter != nil {
		notifiers = append(notifiers, statusWriter)
	}
	ctrl, err := informer.New(client, st, notifiers, log.WithName("controller"),
		informer.Options{Namespaces: cfg.WatchNamespaces, CustomResources: kc.custom, Metadata: kc.meta, GatewayAlpha: cfg.GatewayAlpha,
			KongServiceFacade: cfg.Features.KongServiceFacade, DisableKongCustomEntity: cfg.DisableKongCustomEntity,
			Unread: metrics.NewUnreadKinds(prom, reporter).Changed})
	if err != nil {
		return err
	}
	defer ctrl.Shutdown()

	g := newGroup(ctx, cancel)
	var synced atomic.Bool
	if err := serveSide(g, cfg, st, client, prom, loop, &synced, log); err != nil {
		cancel()
		g.wait()
		return err
	}
	if err := startChecked(ctx, ctrl, cfg, loop, log); err != nil {
		cancel()
		g.wait()
		return errors.Join(err, ctx.Err())
	}
	if err := startDiscovery(ctx, cfg, client, loop, log); err != nil {
		cancel()
		g.wait()
		return err
	}
	var writers []func(context.Context)
	if statusWriter != nil {
		writers = append(writers, statusWriter.Run, gwWriter.Run, progWriter.Run)
	}
	if tasks := electedTasks(cfg, loop, writers...); len(tasks) > 0 {
		g.go_(func(ctx context.Context) error { return leadStatus(ctx, cfg, client, log, tasks...) })
	}
	synced.Store(true)
	if cfg.Hooks.Started != nil {
		cfg.Hooks.Started()
	}
	g.go_(func(ctx context.Context) error {
		select {
		case <-loop.ReadyC():
			log.Info("ready: every Kong replica holds a configuration")
			releaseStartMemory(log)
			if cfg.Hooks.Ready != nil {
				cfg.Hooks.Ready()
			}
		case <-ctx.Done():
		}
		return nil
	})
	log.Info("caches synced; syncing Kong", "storeVersion", st.Version())
	g.go_(loop.Run)
	return g.wait()
}

// kubeClients are the clients kongsync talks to the API server with.
type kubeClients struct {
	// typed reads and writes the built-in kinds. client-go's generated clients ask for
	// protobuf when the config names no content type (restConfig's does not): decoding it
	// takes a third of JSON's time (informer's BenchmarkBuiltinDecode).
	typed  kubernetes.Interface
	dyn    dynamic.Interface        // custom resources' status writes
	meta   metadata.Interface       // Secrets, CRDs and Namespaces as metadata only
	custom informer.CustomResources // custom resources, each object decoded once
}

// newClients builds the clients.
func newClients(cfg Config) (kubeClients, error) {
	rc, err := restConfig(cfg)
	if err != nil {
		return kubeClients{}, err
	}
	var c kubeClients
	if c.typed, err = kubernetes.NewForConfig(rc); err != nil {
		return c, fmt.Errorf("kubernetes client: %w", err)
	}
	if c.dyn, err = dynamic.NewForConfig(rc); err != nil {
		return c, fmt.Errorf("kubernetes dynamic client: %w", err)
	}
	if c.meta, err = metadata.NewForConfig(rc); err != nil {
		return c, fmt.Errorf("kubernetes metadata client: %w", err)
	}
	if c.custom, err = informer.NewRESTCustomResources(rc); err != nil {
		return c, err
	}
	return c, nil
}

// eventRecorder records Warning Events through the API server, or drops them with
// --emit-kubernetes-events=false. The returned func stops the broadcaster.
func eventRecorder(ctx context.Context, cfg Config, client kubernetes.Interface) (record.EventRecorder, func()) {
	if !cfg.EmitKubernetesEvents {
		return metrics.NoEvents{}, func() {}
	}
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	return broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "kongsync"}), broadcaster.Shutdown
}

// startChecked starts the informers and waits for their caches while KIC's startup check of the
// admin URLs runs; either failing fails the start.
func startChecked(ctx context.Context, ctrl *informer.Controller, cfg Config, loop *kongsync.Loop, log logr.Logger) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reachable := make(chan error, 1)
	go func() { reachable <- waitKong(wctx, cfg, loop, log) }()
	if err := ctrl.Start(ctx); err != nil {
		cancel()
		<-reachable
		return err
	}
	return <-reachable
}

// waitKong is KIC's --kong-admin-init-retries check of the --kong-admin-url replicas (discovered
// replicas come and go; discovery waits for them).
func waitKong(ctx context.Context, cfg Config, loop *kongsync.Loop, log logr.Logger) error {
	if cfg.KongAdminSvc != "" {
		return nil
	}
	return kongsync.WaitReachable(ctx, cfg.KongAdminURLs, loop.ReplicaOptions(), cfg.KongAdminInitRetries,
		cfg.KongAdminInitRetryDelay, log.WithName("kong-admin-init"))
}

// startDiscovery follows --kong-admin-svc's endpoints into the loop's replicas, if set.
func startDiscovery(ctx context.Context, cfg Config, client kubernetes.Interface, loop *kongsync.Loop, log logr.Logger) error {
	if cfg.KongAdminSvc == "" {
		return nil
	}
	d, err := discovery.New(client, cfg.KongAdminSvc, cfg.KongAdminSvcPortNames, loop.SetReplicas, log)
	if err != nil {
		return err
	}
	return d.Start(ctx)
}

// newGatewayWriter is the Gateway API status writer: it finds each kind's resource through
// discovery (cached; reset when a kind is missing, as a CRD may be installed later).
func newGatewayWriter(cfg Config, client kubernetes.Interface, dyn dynamic.Interface, log logr.Logger) *status.GatewayWriter {
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client.Discovery()))
	w := status.NewGatewayWriter(client, dyn, mapper, log, status.GatewayOptions{ControllerName: cfg.GatewayAPIControllerName,
		PublishService: cfg.PublishService, StaticAddresses: cfg.PublishStatusAddress, GatewayToReconcile: cfg.GatewayToReconcile})
	w.Updated, w.Passed = cfg.Hooks.GatewayStatusUpdated, cfg.Hooks.GatewayStatusPass
	return w
}

// newProgrammedWriter is the Programmed condition writer of the Kong kinds; like the Gateway API
// one, it finds each kind's resource through discovery.
func newProgrammedWriter(cfg Config, client kubernetes.Interface, dyn dynamic.Interface, log logr.Logger) *status.ProgrammedWriter {
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client.Discovery()))
	w := status.NewProgrammedWriter(dyn, mapper, log, status.ProgrammedOptions{IngressClass: cfg.IngressClass,
		ControllerName: cfg.GatewayAPIControllerName, ElectionID: cfg.ElectionID})
	w.Passed = cfg.Hooks.ProgrammedStatusPass
	return w
}

// heldByEveryReplica reports whether every Kong replica the loop pushes to holds the
// configuration of a hash (KIC reports objects configured once every Kong took the config); a
// replica left out for its router flavor is reported apart and is not waited for.
func heldByEveryReplica(loop *kongsync.Loop) func(string) bool {
	return func(hash string) bool {
		rs := loop.Replicas()
		n := 0
		for _, r := range rs {
			if r.FlavorMismatch {
				continue
			}
			if r.AcceptedHash != hash {
				return false
			}
			n++
		}
		return n > 0
	}
}

// newLoop builds the sync loop: translation with our options, replica client settings. With a
// Gateway API status writer, every translation is also offered to it (it reconciles on its own
// goroutine); with a Programmed writer, every configuration published, and it is told of each
// push and probe (a replica may now hold the configuration).
func newLoop(cfg Config, st *store.Store, m kongsync.Metrics, r kongsync.Reporter, gw *status.GatewayWriter,
	pw *status.ProgrammedWriter, log logr.Logger) (*kongsync.Loop, error) {
	httpClient, err := kongsync.NewHTTPClient(kongsync.TLSOptions{
		CAFile: cfg.KongAdminCACertFile, CAPEM: cfg.KongAdminCACert,
		ClientCertFile: cfg.KongAdminTLSClientCert, ClientCertPEM: cfg.KongAdminTLSClientCertPEM,
		ClientKeyFile: cfg.KongAdminTLSClientKey, ClientKeyPEM: cfg.KongAdminTLSClientKeyPEM,
		InsecureSkipVerify: cfg.KongAdminTLSSkipVerify, ServerName: cfg.KongAdminTLSServerName,
	})
	if err != nil {
		return nil, err
	}
	live := translatorOptions(cfg)
	engine := translator.NewEngine(live)
	build := engine.Build
	if gw != nil {
		build = gw.Offering(build)
	}
	replica := kongsync.ReplicaOptions{Client: httpClient, Token: cfg.KongAdminToken, Headers: cfg.KongAdminHeaders,
		Timeout: cfg.KongAdminTimeout}
	if cfg.KongAdminTimeout > 0 {
		replica.ProbeTimeout = min(cfg.KongAdminTimeout, kongsync.DefaultProbeTimeout)
	}
	var urls []string
	if cfg.KongAdminSvc == "" {
		urls = cfg.KongAdminURLs
	}
	lc := kongsync.Config{
		Source:   st,
		Build:    build,
		Replicas: urls,
		Replica:  replica,
		Window:   cfg.SyncWindow,
		MaxDelay: cfg.SyncMaxDelay,
		Reporter: r,
		Metrics:  m,
		Logger:   log,
		Observe:  cfg.Hooks.Observe,
		Follower: pushesElected(cfg),
		Dumps:    newDumps(cfg),
		// The lowest version the replicas report in GET / (docs/sync.md, "Kong versions"), and
		// the router flavor most of them report ("Router flavor"). Both are called on the loop's
		// goroutine only, so live needs no lock.
		SetKongVersion: func(v semver.Version) {
			live.KongVersion = v
			engine.SetOptions(live)
		},
		SetRouterFlavor: func(f translator.RouterFlavor) {
			live.RouterFlavor = f
			engine.SetOptions(live)
		},
		SetKongEnterprise: func(e bool) {
			live.KongEnterprise = e
			engine.SetOptions(live)
		},
		// Kong's schemas of the store's custom entity types (GET /schemas/<type>), read by the
		// loop from a replica.
		SetEntitySchemas: func(es translator.EntitySchemas) {
			live.EntitySchemas = es
			engine.SetOptions(live)
		},
		// Pacing (docs/sync.md): Kong's share of time loading, and KIC's interval when set.
		LoadBudget: cfg.KongLoadBudget, MinPushInterval: cfg.ProxySyncInterval,
		// KIC's fallback (docs/sync.md, "Fallback").
		FallbackConfiguration: cfg.FallbackConfiguration, UseLastValidConfigForFallback: cfg.UseLastValidConfigForFallback,
	}
	if pw != nil {
		// Both writers judge the configurations every Kong holds: the Kong kinds' Programmed,
		// and the routes' (their status.parents entries).
		lc.Published = func(p kongsync.Published) {
			pw.Offer(p)
			gw.OfferPublished(p)
		}
		lc.Observe = notifyOnReplicaEvents(cfg.Hooks.Observe, multiNotifier{pw, gw}, gw.Kick)
	}
	return kongsync.New(lc)
}

// notifyOnReplicaEvents passes every loop event to observe (if set), notifies n of each push
// and probe (a replica may now hold the configuration), and calls router (if set) on each router
// choice (what the replicas report in GET /, their listeners included).
func notifyOnReplicaEvents(observe func(kongsync.Event), n informer.Notifier, router func()) func(kongsync.Event) {
	return func(e kongsync.Event) {
		if observe != nil {
			observe(e)
		}
		switch e.Type {
		case kongsync.EventPush, kongsync.EventProbe:
			n.Notify()
		case kongsync.EventRouter:
			if router != nil {
				router()
			}
		}
	}
}

// restConfig: an explicit rest.Config, else --kubeconfig, else $KUBECONFIG, else in-cluster.
func restConfig(cfg Config) (*rest.Config, error) {
	var rc *rest.Config
	var err error
	switch {
	case cfg.RestConfig != nil:
		rc = rest.CopyConfig(cfg.RestConfig)
	case cfg.Kubeconfig != "" || os.Getenv("KUBECONFIG") != "":
		rules := clientcmd.NewDefaultClientConfigLoadingRules() // honours $KUBECONFIG (a path list)
		rules.ExplicitPath = cfg.Kubeconfig
		rc, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	default:
		rc, err = rest.InClusterConfig()
		if err != nil && cfg.APIServerHost != "" {
			rc, err = &rest.Config{}, nil // out of a cluster, KIC too talks to that host without credentials
		}
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes config: %w", err)
	}
	if cfg.APIServerHost != "" {
		// --apiserver-host replaces the server, keeping the credentials and CA of the config.
		rc.Host = cfg.APIServerHost
	}
	rc.UserAgent = "kongsync"
	if cfg.APIServerQPS > 0 {
		rc.QPS, rc.Burst = cfg.APIServerQPS, max(cfg.APIServerBurst, 1)
	} else if rc.QPS == 0 {
		d := Defaults()
		rc.QPS, rc.Burst = d.APIServerQPS, d.APIServerBurst
	}
	return rc, nil
}

// multiNotifier fans a store change out to the sync loop and the status writer.
type multiNotifier []informer.Notifier

func (m multiNotifier) Notify() {
	for _, n := range m {
		n.Notify()
	}
}

// group runs goroutines; the first error cancels the rest.
type group struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     gosync.WaitGroup
	mu     gosync.Mutex
	err    error
}

func newGroup(ctx context.Context, cancel context.CancelFunc) *group {
	return &group{ctx: ctx, cancel: cancel}
}

func (g *group) go_(f func(context.Context) error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(g.ctx); err != nil {
			g.mu.Lock()
			if g.err == nil {
				g.err = err
			}
			g.mu.Unlock()
			g.cancel()
		}
	}()
}

func (g *group) wait() error {
	<-g.ctx.Done()
	g.wg.Wait()
	return g.err
}

// hostname names this replica in the leader Lease.
func hostname() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "kongsync-" + filepath.Base(os.Args[0])
}

func splitNamespacedName(s string) (string, string, bool) {
	ns, name, ok := strings.Cut(s, "/")
	return ns, name, ok && ns != "" && name != ""
}

// releaseStartMemory runs once, when every replica first holds a configuration: the start's
// lists, decoding and first translation leave a heap about twice what stays live (the GC's
// goal), which the runtime would keep mapped for as long as the process runs. One forced
// collection that returns it to the OS takes the steady RSS down to about what is live
// (10k HTTPRoutes and 2,000 Secrets: docs/benchmarks.md) for one GC cycle's CPU, once.
func releaseStartMemory(log logr.Logger) {
	start := time.Now()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	log.V(1).Info("released the start's memory", "heapInUse", ms.HeapInuse, "heapReleased", ms.HeapReleased,
		"took", time.Since(start).String())
}
