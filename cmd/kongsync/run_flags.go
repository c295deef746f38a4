package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kongsync/kongsync/admission"
	"github.com/kongsync/kongsync/runner"
)

// envPrefix is KIC's: every flag can also come from CONTROLLER_<FLAG_IN_CAPS_WITH_UNDERSCORES>.
const envPrefix = "CONTROLLER_"

// warning is a startup warning, logged once the logger exists (its level is a flag).
type warning struct {
	msg string
	kv  []any
}

// runFlags holds the parsed settings of the controller.
type runFlags struct {
	cfg       runner.Config
	logLevel  string
	logFormat string
	termDelay time.Duration
	warnings  []warning
}

// rawFlags are the flag values converted or checked before they reach runner.Config.
type rawFlags struct {
	qps              int
	adminSvc         *validated
	publishService   *validated
	controllerName   *validated
	headers          []string
	tokenFile        string
	proxySyncSeconds float32
	proxyTimeout     float32
	gates            featureGates
	gatewayToRec     *validated
	diagnosticsPort  int
	customEntities   bool // --enable-controller-kong-custom-entity
}

// newRunFlagSet defines every flag: KIC v3.5.13's, with KIC's names, types and defaults
// (docs/operations.md says which act and how), plus kongsync's --sync-window, --sync-max-delay
// and --kong-load-budget.
func newRunFlagSet(f *runFlags, raw *rawFlags) *pflag.FlagSet {
	f.cfg = runner.Defaults()
	f.logLevel, f.logFormat = "info", "text"
	fs := pflag.NewFlagSet("kongsync", pflag.ContinueOnError)
	fs.StringVar(&f.logLevel, "log-level", f.logLevel, "trace, debug, info, warn or error (KIC 2.x's fatal and panic: error)")
	fs.StringVar(&f.logFormat, "log-format", f.logFormat, "text (also called console) or json")
	defineAdminFlags(fs, &f.cfg, raw)
	defineKubeFlags(fs, &f.cfg, raw)
	defineServeFlags(fs, f, raw)
	defineKICOnly(fs)
	return fs
}

func defineAdminFlags(fs *pflag.FlagSet, c *runner.Config, raw *rawFlags) {
	fs.StringSliceVar(&c.KongAdminURLs, "kong-admin-url", c.KongAdminURLs, "Kong admin API URL(s), used without --kong-admin-svc (repeatable or comma-separated)")
	raw.adminSvc = newValidated("", "namespaced-name", checkNamespacedName)
	fs.Var(raw.adminSvc, "kong-admin-svc", "namespace/name of a Service whose EndpointSlices list every Kong admin endpoint")
	fs.StringSliceVar(&c.KongAdminSvcPortNames, "kong-admin-svc-port-names", c.KongAdminSvcPortNames, "admin port names looked for on --kong-admin-svc, in preference order")
	fs.StringVar(&c.KongAdminToken, "kong-admin-token", "", "Kong-Admin-Token header value (never logged)")
	fs.StringVar(&raw.tokenFile, "kong-admin-token-file", "", "file holding the Kong-Admin-Token value (instead of --kong-admin-token)")
	fs.StringSliceVar(&raw.headers, "kong-admin-header", nil, "name:value header(s) sent on every admin API request (repeatable or comma-separated; never logged)")
	fs.StringVar(&c.KongAdminCACertFile, "kong-admin-ca-cert-file", "", "PEM CA bundle file to verify the Kong admin API (or --kong-admin-ca-cert)")
	fs.StringVar(&c.KongAdminCACert, "kong-admin-ca-cert", "", "PEM CA bundle to verify the Kong admin API (or --kong-admin-ca-cert-file)")
	fs.StringVar(&c.KongAdminTLSClientCert, "kong-admin-tls-client-cert-file", "", "client certificate file for mTLS to the Kong admin API")
	fs.StringVar(&c.KongAdminTLSClientKey, "kong-admin-tls-client-key-file", "", "client key file for mTLS to the Kong admin API")
	fs.StringVar(&c.KongAdminTLSClientCertPEM, "kong-admin-tls-client-cert", "", "client certificate (PEM) for mTLS to the Kong admin API")
	fs.StringVar(&c.KongAdminTLSClientKeyPEM, "kong-admin-tls-client-key", "", "client key (PEM) for mTLS to the Kong admin API (never logged)")
	fs.BoolVar(&c.KongAdminTLSSkipVerify, "kong-admin-tls-skip-verify", false, "do not verify the Kong admin API certificate")
	fs.StringVar(&c.KongAdminTLSServerName, "kong-admin-tls-server-name", "", "name to verify in the Kong admin API certificate")
	fs.UintVar(&c.KongAdminInitRetries, "kong-admin-init-retries", c.KongAdminInitRetries, "attempts at startup for each --kong-admin-url to answer, else exit (0: no limit)")
	fs.DurationVar(&c.KongAdminInitRetryDelay, "kong-admin-init-retry-delay", c.KongAdminInitRetryDelay, "time between those attempts")
	fs.Float32Var(&raw.proxyTimeout, "proxy-timeout-seconds", 30, "timeout of each Kong admin API request, in seconds")
}

func defineKubeFlags(fs *pflag.FlagSet, c *runner.Config, raw *rawFlags) {
	fs.StringVar(&c.Kubeconfig, "kubeconfig", "", "path to a kubeconfig; else $KUBECONFIG; else the in-cluster config")
	fs.StringVar(&c.APIServerHost, "apiserver-host", "", "Kubernetes API server URL, replacing the kubeconfig's or in-cluster one")
	fs.IntVar(&raw.qps, "apiserver-qps", 100, "Kubernetes API requests per second")
	fs.IntVar(&c.APIServerBurst, "apiserver-burst", c.APIServerBurst, "Kubernetes API request burst above --apiserver-qps")
	fs.StringVar(&c.IngressClass, "ingress-class", c.IngressClass, "IngressClass (and legacy annotation value) served")
	fs.StringSliceVar(&c.WatchNamespaces, "watch-namespace", nil, "namespace(s) to watch; all when unset (repeatable or comma-separated)")
	fs.StringVar(&c.ClusterDomain, "cluster-domain", "", "cluster domain appended to Service DNS names (ingress.kubernetes.io/service-upstream targets)")
	raw.controllerName = newValidated(c.GatewayAPIControllerName, "string", checkControllerName)
	fs.Var(raw.controllerName, "gateway-api-controller-name", "GatewayClass controllerName whose Gateways' routes are served")
	defineHardeningFlags(fs, &c.Hardening)
	fs.BoolVar(&c.EmitKubernetesEvents, "emit-kubernetes-events", true, "emit Warning Events on objects kongsync or Kong cannot use (else they are only logged)")
	raw.publishService = newValidated("", "namespaced-name", checkNamespacedName)
	fs.Var(raw.publishService, "publish-service", "namespace/name of the Service whose addresses go into Ingress status")
	fs.StringSliceVar(&c.PublishStatusAddress, "publish-status-address", []string{}, "addresses written into Ingress status instead of --publish-service's")
	fs.BoolVar(&c.UpdateStatus, "update-status", c.UpdateStatus, "write Ingress status (leader only)")
	fs.StringVar(&c.ElectionID, "election-id", c.ElectionID, "name of the Lease electing the status writer and, with --kong-admin-svc, the one replica that pushes")
	fs.StringVar(&c.ElectionNamespace, "election-namespace", "", "namespace of that Lease (default: the pod's)")
	fs.StringVar(&c.LeaderElection, "force-leader-election", "", `"enabled" or "disabled" forces whether only the elected leader pushes (default: with --kong-admin-svc only)`)
	_ = fs.MarkHidden("force-leader-election")
}

func defineServeFlags(fs *pflag.FlagSet, f *runFlags, raw *rawFlags) {
	c := &f.cfg
	fs.StringVar(&c.MetricsBindAddress, "metrics-bind-address", c.MetricsBindAddress, "address of /metrics; \"0\" disables it")
	fs.StringVar(&c.HealthProbeBindAddress, "health-probe-bind-address", c.HealthProbeBindAddress, "address of /healthz and /readyz; \"0\" disables it")
	fs.BoolVar(&c.Profiling, "profiling", false, "serve net/http/pprof under /debug/pprof/ on the diagnostics server (127.0.0.1:10256)")
	fs.BoolVar(&c.DumpConfig, "dump-config", false, "serve the last configuration pushed and the last refused under /debug/config on the diagnostics server")
	fs.BoolVar(&c.DumpSensitiveConfig, "dump-sensitive-config", false, "leave private keys and credentials in the --dump-config configurations")
	fs.IntVar(&raw.diagnosticsPort, "diagnostic-server-port", 10256, "port of the diagnostics server (--dump-config, --profiling), on 127.0.0.1")
	_ = fs.MarkHidden("diagnostic-server-port")
	fs.StringVar(&c.AdmissionWebhookListen, "admission-webhook-listen", runner.AdmissionOff, `HTTPS address of the validating admission webhook (e.g. ":8080", as Kong's chart sets); "off" serves none`)
	fs.StringVar(&c.AdmissionTLS.CertFile, "admission-webhook-cert-file", "", "admission webhook certificate file (read again when it changes; default "+admission.DefaultCertFile+" when no certificate is given)")
	fs.StringVar(&c.AdmissionTLS.KeyFile, "admission-webhook-key-file", "", "admission webhook private key file (default "+admission.DefaultKeyFile+")")
	fs.StringVar(&c.AdmissionTLS.CertPEM, "admission-webhook-cert", "", "admission webhook PEM certificate, instead of the file")
	fs.StringVar(&c.AdmissionTLS.KeyPEM, "admission-webhook-key", "", "admission webhook PEM private key, instead of the file (never logged)")
	fs.Float32Var(&raw.proxySyncSeconds, "proxy-sync-seconds", 3, "when set, the least time between the starts of two pushes to one Kong, in seconds, as KIC's sync interval; unset, none")
	fs.DurationVar(&c.SyncWindow, "sync-window", c.SyncWindow, "kongsync: quiet time after the last change before a sync")
	fs.DurationVar(&c.SyncMaxDelay, "sync-max-delay", c.SyncMaxDelay, "kongsync: longest wait after the first change of a burst")
	fs.Float64Var(&c.KongLoadBudget, "kong-load-budget", c.KongLoadBudget, "kongsync: share of time each Kong may spend loading configurations, in (0, 1]; after a load that took d, the next push waits d·(1-budget)/budget (1: no pacing by cost)")
	fs.DurationVar(&f.termDelay, "term-delay", 0, "after SIGTERM, how long the shutdown may take before kongsync exits anyway (0: no limit)")
	raw.gates = newFeatureGates()
	fs.Var(raw.gates, "feature-gates", featureGatesUsage)
	raw.gatewayToRec = newValidated("", "namespaced-name", checkNamespacedName)
	fs.Var(raw.gatewayToRec, "gateway-to-reconcile", gatewayToReconcileUsage)
	fs.BoolVar(&c.DrainSupport, "enable-drain-support", false, drainSupportUsage)
	fs.BoolVar(&c.UseLastValidConfigForFallback, "use-last-valid-config-for-fallback", false,
		"with the FallbackConfiguration gate: put back the last valid version of the objects a fallback configuration leaves out")
	fs.BoolVar(&raw.customEntities, "enable-controller-kong-custom-entity", true,
		"watch and translate KongCustomEntities (with the KongCustomEntity feature gate, on by default), as KIC's controller")
}

// envName is the environment variable of a flag: kong-admin-url -> CONTROLLER_KONG_ADMIN_URL.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseRunFlags parses the command line, then the environment (environ, as os.Environ) for the
// flags the command line did not set: flags beat CONTROLLER_* variables, as in KIC.
func parseRunFlags(args, environ []string) (*runFlags, *pflag.FlagSet, error) {
	f, raw := &runFlags{}, &rawFlags{}
	fs := newRunFlagSet(f, raw)
	fs.SetOutput(io.Discard) // deprecated flags are warned about with the others
	if err := fs.Parse(args); err != nil {
		return nil, fs, err
	}
	if fs.NArg() > 0 {
		return nil, fs, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	cli := map[string]bool{}
	fs.Visit(func(fl *pflag.Flag) { cli[fl.Name] = true })
	warnings, err := applyEnv(fs, environ)
	if err != nil {
		return nil, fs, err
	}
	if err := f.finish(fs, raw, cli); err != nil {
		return nil, fs, err
	}
	f.warnings = append(append(warnings, f.warnings...), kicOnlyWarnings(fs)...)
	f.warnings = append(f.warnings, gateWarnings(raw.gates)...)
	return f, fs, nil
}

// applyEnv sets each flag the command line left alone from its CONTROLLER_* variable, and
// warns about CONTROLLER_* variables that name no flag.
func applyEnv(fs *pflag.FlagSet, environ []string) ([]warning, error) {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, envPrefix) {
			env[k] = v
		}
	}
	var err error
	fs.VisitAll(func(fl *pflag.Flag) {
		name := envName(fl.Name)
		v, ok := env[name]
		delete(env, name)
		if !ok || fl.Changed || err != nil {
			return
		}
		if serr := fs.Set(fl.Name, v); serr != nil {
			err = fmt.Errorf("%s: %w", name, serr)
		}
	})
	var out []warning
	for _, k := range sortedKeys(env) {
		out = append(out, warning{msg: "unknown environment variable: no flag of this name", kv: []any{"variable", k}})
	}
	return out, err
}

// finish converts and checks what pflag cannot: KIC's checks across flags, the token file, the
// headers, the timings.
func (f *runFlags) finish(fs *pflag.FlagSet, raw *rawFlags, cli map[string]bool) error {
	c := &f.cfg
	if raw.qps <= 0 {
		return fmt.Errorf("--apiserver-qps must be positive, got %d", raw.qps)
	}
	c.APIServerQPS = float32(raw.qps)
	c.KongAdminSvc, c.PublishService = raw.adminSvc.val, raw.publishService.val
	c.GatewayAPIControllerName = raw.controllerName.val
	if cli["kong-admin-svc"] && cli["kong-admin-url"] {
		return errors.New("can't set both --kong-admin-svc and --kong-admin-url")
	}
	if err := f.adminToken(raw); err != nil {
		return err
	}
	h, warns := parseHeaders(raw.headers)
	c.KongAdminHeaders, f.warnings = h, append(f.warnings, warns...)
	if raw.proxyTimeout <= 0 {
		return fmt.Errorf("--proxy-timeout-seconds must be positive, got %v", raw.proxyTimeout)
	}
	c.KongAdminTimeout = seconds(raw.proxyTimeout)
	if fs.Changed("proxy-sync-seconds") {
		if err := f.proxySync(raw.proxySyncSeconds); err != nil {
			return err
		}
	}
	if !(c.KongLoadBudget > 0 && c.KongLoadBudget <= 1) {
		return fmt.Errorf("--kong-load-budget must be a share of time in (0, 1], e.g. 0.2 for 20%%, got %v", c.KongLoadBudget)
	}
	if err := f.diagnostics(raw); err != nil {
		return err
	}
	if c.UseLastValidConfigForFallback && !raw.gates["FallbackConfiguration"] {
		return errors.New("--use-last-valid-config-for-fallback can only be used with the FallbackConfiguration feature gate enabled")
	}
	c.FallbackConfiguration = raw.gates["FallbackConfiguration"]
	if err := raw.gates.refusal(); err != nil {
		return err
	}
	c.Features, c.GatewayAlpha = raw.gates.translatorFeatures(), raw.gates["GatewayAlpha"]
	// KIC starts its KongCustomEntity controller only with both the gate and the flag.
	c.DisableKongCustomEntity = !raw.gates["KongCustomEntity"] || !raw.customEntities
	c.GatewayToReconcile = raw.gatewayToRec.val
	return nil
}

// diagnostics checks the diagnostics port and --force-leader-election (KIC decides
// automatically for any other value; kongsync says so).
func (f *runFlags) diagnostics(raw *rawFlags) error {
	if raw.diagnosticsPort < 0 || raw.diagnosticsPort > 65535 {
		return fmt.Errorf("--diagnostic-server-port must be a port number, got %d", raw.diagnosticsPort)
	}
	f.cfg.DiagnosticsBindAddress = net.JoinHostPort("127.0.0.1", strconv.Itoa(raw.diagnosticsPort))
	switch f.cfg.LeaderElection {
	case "", runner.LeaderElectionEnabled, runner.LeaderElectionDisabled:
	default:
		f.warnings = append(f.warnings, warning{msg: "--force-leader-election is neither enabled nor disabled: decided automatically, as KIC",
			kv: []any{"value", f.cfg.LeaderElection}})
		f.cfg.LeaderElection = ""
	}
	return nil
}

// adminToken reads --kong-admin-token-file, which excludes --kong-admin-token as in KIC. The
// file's surrounding whitespace (a trailing newline) is dropped.
func (f *runFlags) adminToken(raw *rawFlags) error {
	if raw.tokenFile == "" {
		return nil
	}
	if f.cfg.KongAdminToken != "" {
		return errors.New("both --kong-admin-token and --kong-admin-token-file are set; give one")
	}
	b, err := os.ReadFile(raw.tokenFile)
	if err != nil {
		return fmt.Errorf("--kong-admin-token-file: %w", err)
	}
	f.cfg.KongAdminToken = strings.TrimSpace(string(b))
	return nil
}

// proxySync takes KIC's --proxy-sync-seconds as KIC means it, the interval between syncs: no two
// pushes to one Kong start closer than that (a user who raised it to spare Kong gets that). The
// coalescing window and max delay stay kongsync's, so a lone change in a quiet cluster still
// goes out one window after it, not on the next tick. Unset, there is no such interval (KIC's
// default 3 s ticker does not apply; --kong-load-budget spares Kong by what each load costs).
func (f *runFlags) proxySync(s float32) error {
	if !(s > 0) {
		return fmt.Errorf("--proxy-sync-seconds must be positive, got %v", s)
	}
	f.cfg.ProxySyncInterval = seconds(s)
	return nil
}

// parseHeaders reads KIC's name:value --kong-admin-header values. KIC drops a value without a
// colon silently; kongsync warns.
func parseHeaders(vals []string) (http.Header, []warning) {
	if len(vals) == 0 {
		return nil, nil
	}
	h := http.Header{}
	var warns []warning
	for _, v := range vals {
		name, value, ok := strings.Cut(v, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			warns = append(warns, warning{msg: "--kong-admin-header without name:value ignored", kv: []any{"header", redactHeader(v)}})
			continue
		}
		h.Set(name, strings.TrimSpace(value))
	}
	return h, warns
}

// redactHeader keeps a bad header's first characters only: it may hold a secret.
func redactHeader(v string) string {
	if len(v) > 4 {
		return v[:4] + "…"
	}
	return v
}

func seconds(s float32) time.Duration { return time.Duration(float64(s) * float64(time.Second)) }

// flagNames lists every flag name, sorted (for tests and docs).
func flagNames(fs *pflag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(fl *pflag.Flag) { out = append(out, fl.Name) })
	sort.Strings(out)
	return out
}
