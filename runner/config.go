// Package runner is the wiring stage of kongsync's live data flow (sources → store → engine →
// sync → Kong): it builds the Kubernetes clients, feeds the informers into the store, and runs
// the sync loop, which builds each configuration with translator.Engine and pushes it to every
// Kong replica (--kong-admin-url, or admin endpoint discovery with --kong-admin-svc). Beside the
// flow it runs the status writer (leader-elected; only status writing is), the metrics and
// health endpoints and the Events recorder. `kongsync run` and the integration tests both call
// Run, so the tests exercise exactly what ships.
package runner

import (
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/rest"

	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
)

// Config holds every setting of `kongsync run`; the flag names are KIC's.
type Config struct {
	Kubeconfig string       // --kubeconfig; else $KUBECONFIG; else in-cluster
	RestConfig *rest.Config // overrides Kubeconfig (tests)
	// APIServerQPS and APIServerBurst rate-limit kongsync's requests to the API server
	// (--apiserver-qps, --apiserver-burst; KIC's defaults 100 and 300). Watches are not
	// limited; GETs of referenced Secrets at startup and status writes are.
	APIServerQPS   float32
	APIServerBurst int

	KongAdminURLs          []string // --kong-admin-url (used when KongAdminSvc is empty)
	KongAdminSvc           string   // --kong-admin-svc namespace/name
	KongAdminSvcPortNames  []string // --kong-admin-svc-port-names
	KongAdminToken         string   // --kong-admin-token (never logged)
	KongAdminCACertFile    string   // --kong-admin-ca-cert-file
	KongAdminTLSClientCert string   // --kong-admin-tls-client-cert-file
	KongAdminTLSClientKey  string   // --kong-admin-tls-client-key-file
	KongAdminTLSSkipVerify bool     // --kong-admin-tls-skip-verify
	KongAdminTLSServerName string   // --kong-admin-tls-server-name

	IngressClass           string   // --ingress-class
	WatchNamespaces        []string // --watch-namespace
	PublishService         string   // --publish-service namespace/name
	PublishStatusAddress   []string // --publish-status-address
	UpdateStatus           bool     // --update-status
	ElectionID             string   // --election-id
	ElectionNamespace      string   // --election-namespace (default: $POD_NAMESPACE, else the publish Service's, else "default")
	MetricsBindAddress     string   // --metrics-bind-address
	HealthProbeBindAddress string   // --health-probe-bind-address
	Profiling              bool     // --profiling: /debug/pprof/ on the metrics server (else the health one)

	SyncWindow   time.Duration // --sync-window
	SyncMaxDelay time.Duration // --sync-max-delay

	// Identity names this replica in the leader Lease (default: hostname).
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod tune leader election (defaults 15 s, 10 s, 2 s).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration

	// Hooks for tests and diagnostics.
	Hooks Hooks
}

// Hooks let tests observe the controller without sleeping.
type Hooks struct {
	// Observe receives every sync loop event (build, push, probe).
	Observe func(kongsync.Event)
	// Started is called once the caches have synced and the sync loop is about to run.
	Started func()
	// Leading is called with true when this replica becomes the status leader, false when it stops.
	Leading func(bool)
	// Ready is called once every Kong replica holds a configuration (what /readyz reports).
	Ready func()
	// StatusUpdated is called after this replica wrote an Ingress status.
	StatusUpdated func(ingress store.Ref, addresses []networkingv1.IngressLoadBalancerIngress)
}

// Defaults returns KIC v3.5.13's defaults where kongsync has the same setting, except that the
// metrics and health servers bind to localhost (a diagnostics port must not be open to the
// whole cluster unless asked for).
func Defaults() Config {
	return Config{
		APIServerQPS:           100,
		APIServerBurst:         300,
		KongAdminURLs:          []string{"http://localhost:8001"},
		KongAdminSvcPortNames:  []string{"admin-tls", "kong-admin-tls"},
		IngressClass:           "kong",
		UpdateStatus:           true,
		ElectionID:             "5b374a9e.konghq.com",
		MetricsBindAddress:     "127.0.0.1:10255",
		HealthProbeBindAddress: "127.0.0.1:10254",
		SyncWindow:             kongsync.DefaultWindow,
		SyncMaxDelay:           kongsync.DefaultMaxDelay,
	}
}
