// Package runner is the wiring stage of kongsync's live data flow (sources → store → engine →
// sync → Kong): it builds the Kubernetes clients, feeds the informers into the store, and runs
// the sync loop, which builds each configuration with translator.Engine and pushes it to every
// Kong replica (--kong-admin-url, or admin endpoint discovery with --kong-admin-svc, where only
// the elected leader pushes). Beside the flow it runs the status writer (leader-elected), the
// metrics, health and diagnostics endpoints, the admission webhook and the Events recorder. `kongsync run` and the integration tests both call
// Run, so the tests exercise exactly what ships.
package runner

import (
	"net/http"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/rest"

	"github.com/kongsync/kongsync/admission"
	"github.com/kongsync/kongsync/status"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// Config holds every setting of `kongsync run`; the flag names are KIC's.
type Config struct {
	Kubeconfig    string       // --kubeconfig; else $KUBECONFIG; else in-cluster
	APIServerHost string       // --apiserver-host: overrides the server of the kubeconfig or in-cluster config
	RestConfig    *rest.Config // overrides Kubeconfig (tests)
	// APIServerQPS and APIServerBurst rate-limit kongsync's requests to the API server
	// (--apiserver-qps, --apiserver-burst; KIC's defaults 100 and 300). Watches are not
	// limited; GETs of referenced Secrets at startup and status writes are.
	APIServerQPS   float32
	APIServerBurst int

	KongAdminURLs             []string // --kong-admin-url (used when KongAdminSvc is empty)
	KongAdminSvc              string   // --kong-admin-svc namespace/name
	KongAdminSvcPortNames     []string // --kong-admin-svc-port-names
	KongAdminToken            string   // --kong-admin-token, or read from --kong-admin-token-file (never logged)
	KongAdminCACertFile       string   // --kong-admin-ca-cert-file
	KongAdminCACert           string   // --kong-admin-ca-cert (PEM)
	KongAdminTLSClientCert    string   // --kong-admin-tls-client-cert-file
	KongAdminTLSClientKey     string   // --kong-admin-tls-client-key-file
	KongAdminTLSClientCertPEM string   // --kong-admin-tls-client-cert (PEM)
	KongAdminTLSClientKeyPEM  string   // --kong-admin-tls-client-key (PEM; never logged)
	KongAdminTLSSkipVerify    bool     // --kong-admin-tls-skip-verify
	KongAdminTLSServerName    string   // --kong-admin-tls-server-name
	// KongAdminHeaders are sent on every admin API request (--kong-admin-header; never logged).
	KongAdminHeaders http.Header
	// KongAdminTimeout bounds each admin API request (--proxy-timeout-seconds); status probes
	// keep their shorter default when it is longer.
	KongAdminTimeout time.Duration
	// KongAdminInitRetries and KongAdminInitRetryDelay: at startup every --kong-admin-url must
	// answer within this many attempts, this far apart, or Run fails (0 attempts: no limit), as
	// KIC's --kong-admin-init-retries and --kong-admin-init-retry-delay.
	KongAdminInitRetries    uint
	KongAdminInitRetryDelay time.Duration

	IngressClass  string // --ingress-class
	ClusterDomain string // --cluster-domain: suffix of Service DNS names (service-upstream)
	// Hardening are the opt-in refusals (--refuse-external-name-services,
	// --refuse-unmanaged-endpoint-slices; docs/security.md) of the sync loop and the webhook.
	Hardening translator.Hardening
	// GatewayAPIControllerName is the GatewayClass controllerName served (--gateway-api-controller-name).
	GatewayAPIControllerName string
	// Features are KIC's feature gates the translator acts on (--feature-gates RewriteURIs, KongServiceFacade; the latter also has KongServiceFacades watched).
	Features translator.Features
	// GatewayAlpha is KIC's GatewayAlpha gate: TCPRoutes, UDPRoutes and TLSRoutes are watched
	// only with it on, as KIC's controllers.
	GatewayAlpha bool
	// DisableKongCustomEntity is KIC's KongCustomEntity gate turned off (on by default):
	// KongCustomEntities are then not watched, and reported as a kind not read.
	DisableKongCustomEntity bool
	// DrainSupport is --enable-drain-support: terminating endpoints stay as weight-0 targets.
	DrainSupport bool
	// FallbackConfiguration is KIC's FallbackConfiguration gate and UseLastValidConfigForFallback
	// its --use-last-valid-config-for-fallback (only with the gate): what the sync loop leaves
	// out when Kong rejects objects (sync.Config's; docs/sync.md, "Fallback").
	FallbackConfiguration, UseLastValidConfigForFallback bool
	// GatewayToReconcile is --gateway-to-reconcile: the one Gateway (namespace/name) served.
	GatewayToReconcile   string
	EmitKubernetesEvents bool     // --emit-kubernetes-events: Warning Events (else only logs)
	WatchNamespaces      []string // --watch-namespace
	PublishService       string   // --publish-service namespace/name
	PublishStatusAddress []string // --publish-status-address
	UpdateStatus         bool     // --update-status
	ElectionID           string   // --election-id: the Lease of the status writer and, when elected, of the pushing replica
	ElectionNamespace    string   // --election-namespace (default: $POD_NAMESPACE, else the publish Service's, else "default")
	// LeaderElection is KIC's --force-leader-election: "" decides as KIC (only the elected
	// leader pushes when the replicas are discovered, --kong-admin-svc), "enabled" makes
	// pushes leader-only, "disabled" lets every replica push. Status writing is always elected.
	LeaderElection         string
	MetricsBindAddress     string // --metrics-bind-address
	HealthProbeBindAddress string // --health-probe-bind-address
	Profiling              bool   // --profiling: /debug/pprof/ on the diagnostics server
	// DumpConfig serves the last configuration pushed and the last refused under /debug/config
	// on the diagnostics server (--dump-config); DumpSensitiveConfig leaves their private
	// keys and credentials in (--dump-sensitive-config).
	DumpConfig, DumpSensitiveConfig bool
	// DiagnosticsBindAddress is where --dump-config and --profiling are served: loopback only
	// (kubectl port-forward reaches it), at KIC's --diagnostic-server-port.
	DiagnosticsBindAddress string
	// AdmissionWebhookListen is the admission webhook's HTTPS address (KIC's
	// --admission-webhook-listen; "off", the default, serves none); AdmissionTLS its
	// certificate (--admission-webhook-cert(-file), --admission-webhook-key(-file)).
	AdmissionWebhookListen string
	AdmissionTLS           admission.TLSOptions

	SyncWindow   time.Duration // --sync-window
	SyncMaxDelay time.Duration // --sync-max-delay
	// KongLoadBudget is --kong-load-budget: the share of time each Kong may spend loading what
	// kongsync posts (sync.Config.LoadBudget; 1 turns pacing by cost off).
	KongLoadBudget float64
	// ProxySyncInterval is KIC's --proxy-sync-seconds, when set: no two pushes to one Kong
	// start closer than it (sync.Config.MinPushInterval); 0 = no such interval.
	ProxySyncInterval time.Duration

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
	// Store is called once with the store the informers fill, before they start; tests read
	// it (Get is safe concurrently) to see an object arrive before it translates to anything.
	Store func(*store.Store)
	// Admission is called after each admission review answered, with its duration.
	Admission func(time.Duration, admission.Verdict)
	// StatusUpdated is called after this replica wrote an Ingress status.
	StatusUpdated func(ingress store.Ref, addresses []networkingv1.IngressLoadBalancerIngress)
	// GatewayStatusUpdated is called after this replica wrote a Gateway API object's status.
	GatewayStatusUpdated func(store.Ref)
	// GatewayStatusPass is called after each pass of the Gateway API status writer over a
	// translation (while leading).
	GatewayStatusPass func(status.GatewayPass)
	// ProgrammedStatusPass is called after each pass of the Programmed condition writer (Kong
	// kinds) while leading.
	ProgrammedStatusPass func(status.ProgrammedPass)
}

// Defaults returns KIC v3.5.13's defaults where kongsync has the same setting. The metrics and
// health servers listen on every interface, as KIC's: the kubelet probes and Prometheus scrape
// the pod IP (Kong's chart and ServiceMonitor expect :10254 and :10255 there).
func Defaults() Config {
	return Config{
		APIServerQPS:             100,
		APIServerBurst:           300,
		KongAdminURLs:            []string{"http://localhost:8001"},
		KongAdminSvcPortNames:    []string{"admin-tls", "kong-admin-tls"},
		KongAdminTimeout:         kongsync.DefaultTimeout,
		KongAdminInitRetries:     60,
		KongAdminInitRetryDelay:  time.Second,
		IngressClass:             "kong",
		GatewayAPIControllerName: translator.DefaultGatewayControllerName,
		EmitKubernetesEvents:     true,
		UpdateStatus:             true,
		ElectionID:               "5b374a9e.konghq.com",
		MetricsBindAddress:       ":10255",
		HealthProbeBindAddress:   ":10254",
		DiagnosticsBindAddress:   "127.0.0.1:10256",
		AdmissionWebhookListen:   AdmissionOff,
		SyncWindow:               kongsync.DefaultWindow,
		SyncMaxDelay:             kongsync.DefaultMaxDelay,
		KongLoadBudget:           kongsync.DefaultLoadBudget,
	}
}
