package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/kongsync/kongsync/runner"
)

// envPrefix is KIC's: every flag can also come from CONTROLLER_<FLAG_IN_CAPS_WITH_UNDERSCORES>.
const envPrefix = "CONTROLLER_"

// runFlags holds the parsed settings of `kongsync run`.
type runFlags struct {
	cfg       runner.Config
	logLevel  string
	logFormat string
}

// listFlag is a repeatable, comma-splitting string list. The first value given replaces the
// default (or the environment's value) instead of appending to it.
type listFlag struct {
	vals    *[]string
	replace bool
}

func (l *listFlag) String() string {
	if l == nil || l.vals == nil {
		return ""
	}
	return strings.Join(*l.vals, ",")
}

func (l *listFlag) Set(v string) error {
	if l.replace {
		*l.vals = nil
		l.replace = false
	}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l.vals = append(*l.vals, s)
		}
	}
	return nil
}

// newRunFlagSet defines every flag of `kongsync run` on a fresh FlagSet.
func newRunFlagSet(f *runFlags) (*flag.FlagSet, []*listFlag) {
	f.cfg = runner.Defaults()
	f.logLevel, f.logFormat = "info", "text"
	c := &f.cfg
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var lists []*listFlag
	list := func(p *[]string, name, usage string) {
		l := &listFlag{vals: p, replace: true}
		lists = append(lists, l)
		fs.Var(l, name, usage+" (repeatable or comma-separated)")
	}
	fs.StringVar(&c.Kubeconfig, "kubeconfig", "", "path to a kubeconfig; else $KUBECONFIG; else in-cluster config")
	fs.Func("apiserver-qps", fmt.Sprintf("Kubernetes API requests per second (default %v)", c.APIServerQPS), func(v string) error {
		q, err := strconv.ParseFloat(v, 32)
		if err != nil || q <= 0 {
			return fmt.Errorf("want a positive number, got %q", v)
		}
		c.APIServerQPS = float32(q)
		return nil
	})
	fs.IntVar(&c.APIServerBurst, "apiserver-burst", c.APIServerBurst, "Kubernetes API request burst above --apiserver-qps")
	list(&c.KongAdminURLs, "kong-admin-url", "Kong admin API URL, used when --kong-admin-svc is not set")
	fs.StringVar(&c.KongAdminSvc, "kong-admin-svc", "", "namespace/name of a Service whose EndpointSlices list every Kong admin endpoint")
	list(&c.KongAdminSvcPortNames, "kong-admin-svc-port-names", "admin port names to look for on --kong-admin-svc, in preference order")
	fs.StringVar(&c.KongAdminToken, "kong-admin-token", "", "Kong-Admin-Token header value (never logged)")
	fs.StringVar(&c.KongAdminCACertFile, "kong-admin-ca-cert-file", "", "PEM CA bundle to verify the Kong admin API")
	fs.StringVar(&c.KongAdminTLSClientCert, "kong-admin-tls-client-cert-file", "", "client certificate for mTLS to the Kong admin API")
	fs.StringVar(&c.KongAdminTLSClientKey, "kong-admin-tls-client-key-file", "", "client key for mTLS to the Kong admin API")
	fs.BoolVar(&c.KongAdminTLSSkipVerify, "kong-admin-tls-skip-verify", false, "do not verify the Kong admin API certificate")
	fs.StringVar(&c.KongAdminTLSServerName, "kong-admin-tls-server-name", "", "name to verify in the Kong admin API certificate")
	fs.StringVar(&c.IngressClass, "ingress-class", c.IngressClass, "IngressClass (and legacy annotation value) to serve")
	list(&c.WatchNamespaces, "watch-namespace", "namespace to watch; all when unset")
	fs.StringVar(&c.PublishService, "publish-service", "", "namespace/name of the Service whose addresses go into Ingress status")
	list(&c.PublishStatusAddress, "publish-status-address", "addresses to write into Ingress status instead of --publish-service's")
	fs.BoolVar(&c.UpdateStatus, "update-status", c.UpdateStatus, "write Ingress status (leader only)")
	fs.StringVar(&c.ElectionID, "election-id", c.ElectionID, "name of the Lease used to elect the status writer")
	fs.StringVar(&c.ElectionNamespace, "election-namespace", "", "namespace of the Lease (default: the pod's namespace)")
	fs.StringVar(&c.MetricsBindAddress, "metrics-bind-address", c.MetricsBindAddress, "address of /metrics; \"0\" disables it")
	fs.StringVar(&c.HealthProbeBindAddress, "health-probe-bind-address", c.HealthProbeBindAddress, "address of /healthz and /readyz; \"0\" disables it")
	fs.BoolVar(&c.Profiling, "profiling", false, "serve net/http/pprof under /debug/pprof/ on the metrics server (on the health server if metrics are off)")
	fs.DurationVar(&c.SyncWindow, "sync-window", c.SyncWindow, "quiet time after the last change before a sync")
	fs.DurationVar(&c.SyncMaxDelay, "sync-max-delay", c.SyncMaxDelay, "longest wait after the first change of a burst")
	fs.StringVar(&f.logLevel, "log-level", f.logLevel, "trace, debug, info, warn or error")
	fs.StringVar(&f.logFormat, "log-format", f.logFormat, "text or json")
	return fs, lists
}

// envName is the environment variable of a flag: kong-admin-url -> CONTROLLER_KONG_ADMIN_URL.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseRunFlags applies the environment first, then the command line (which wins).
func parseRunFlags(args []string, getenv func(string) string) (*runFlags, *flag.FlagSet, error) {
	f := &runFlags{}
	fs, lists := newRunFlagSet(f)
	var envErr error
	fs.VisitAll(func(fl *flag.Flag) {
		if v := getenv(envName(fl.Name)); v != "" && envErr == nil {
			if err := fs.Set(fl.Name, v); err != nil {
				envErr = fmt.Errorf("%s: %w", envName(fl.Name), err)
			}
		}
	})
	if envErr != nil {
		return nil, fs, envErr
	}
	for _, l := range lists {
		l.replace = true // a command-line value replaces the environment's
	}
	if err := fs.Parse(args); err != nil {
		return nil, fs, err
	}
	if fs.NArg() > 0 {
		return nil, fs, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if f.cfg.KongAdminToken == "" {
		// Files mounted from Secrets are the usual way to pass a token; never put it in args.
		if p := getenv("CONTROLLER_KONG_ADMIN_TOKEN_FILE"); p != "" {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, fs, fmt.Errorf("CONTROLLER_KONG_ADMIN_TOKEN_FILE: %w", err)
			}
			f.cfg.KongAdminToken = strings.TrimSpace(string(b))
		}
	}
	return f, fs, nil
}
