package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// kicFlag is one line of testdata/kic-v3.5.13-flags.tsv, generated from KIC's source.
type kicFlag struct {
	name, typ, def, note string
}

func readKICFlags(t *testing.T) []kicFlag {
	t.Helper()
	f, err := os.Open("testdata/kic-v3.5.13-flags.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []kicFlag
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := append(strings.Split(line, "\t"), "", "", "")
		out = append(out, kicFlag{name: c[0], typ: c[1], def: c[2], note: c[3]})
	}
	if len(out) != 105 {
		t.Fatalf("%d KIC flags in testdata, want 105", len(out))
	}
	return out
}

// humanType is how KIC's docs generator names a pflag type (scripts/cli-arguments-docs-gen).
func humanType(typ string) string {
	switch typ {
	case "float32", "float64":
		return "float"
	case "stringSlice":
		return "strings"
	case "mapStringBool":
		return "list of string=bool"
	}
	return typ
}

// sampleValue is a valid non-default value of a flag of KIC's type.
func sampleValue(t *testing.T, k kicFlag) string {
	special := map[string]string{
		"log-level": "debug", "log-format": "json", "metrics-access-filter": "rbac",
		"gateway-api-controller-name": "example.com/gateway", "feature-gates": "GatewayAlpha=true",
		"kong-admin-token-file": writeFile(t, "token", "s3cret\n"),
		"kong-admin-header":     "X-Tenant:a",
		"force-leader-election": "enabled",
	}
	if v, ok := special[k.name]; ok {
		return v
	}
	switch k.typ {
	case "bool":
		if k.def == "true" {
			return "false"
		}
		return "true"
	case "namespaced-name":
		return "ns/name"
	case "strings":
		return "a,b"
	case "int", "uint", "float":
		return "7"
	case "duration":
		return "7s"
	}
	return "value"
}

func writeFile(t *testing.T, name, content string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every flag of KIC v3.5.13 is accepted, with KIC's type and default, hidden or deprecated as in
// KIC, and takes a value from the command line and from its CONTROLLER_* variable alike.
func TestEveryKICFlagAccepted(t *testing.T) {
	for _, k := range readKICFlags(t) {
		t.Run(k.name, func(t *testing.T) {
			fs := newRunFlagSet(&runFlags{}, &rawFlags{})
			fl := fs.Lookup(k.name)
			if fl == nil {
				t.Fatalf("--%s not defined", k.name)
			}
			if got := humanType(fl.Value.Type()); got != k.typ {
				t.Errorf("type %s, KIC's %s", got, k.typ)
			}
			if got := fl.DefValue; got != strings.Trim(k.def, `"`) {
				t.Errorf("default %q, KIC's %q", got, k.def)
			}
			if (k.note != "") != fl.Hidden || (k.note == "deprecated") != (fl.Deprecated != "") {
				t.Errorf("hidden %v deprecated %q, KIC's: %s", fl.Hidden, fl.Deprecated, k.note)
			}
			v := sampleValue(t, k)
			var extra []string
			if k.name == "use-last-valid-config-for-fallback" {
				extra = []string{"--feature-gates=FallbackConfiguration=true"} // KIC requires the gate
			}
			_, cliFS, err := parseRunFlags(append([]string{"--" + k.name + "=" + v}, extra...), nil)
			if err != nil {
				t.Fatalf("--%s=%s: %v", k.name, v, err)
			}
			_, envFS, err := parseRunFlags(extra, []string{envName(k.name) + "=" + v})
			if err != nil {
				t.Fatalf("%s=%s: %v", envName(k.name), v, err)
			}
			c, e := cliFS.Lookup(k.name).Value.String(), envFS.Lookup(k.name).Value.String()
			if c != e || c == fl.DefValue {
				t.Errorf("value from the command line %q, from the environment %q, default %q", c, e, fl.DefValue)
			}
		})
	}
}

// kongsync adds only its own coalescing, pacing and hardening flags to KIC's set: no invented names.
func TestNoFlagsBeyondKICs(t *testing.T) {
	var kic []string
	for _, k := range readKICFlags(t) {
		kic = append(kic, k.name)
	}
	var extra []string
	for _, n := range flagNames(newRunFlagSet(&runFlags{}, &rawFlags{})) {
		if !slices.Contains(kic, n) {
			extra = append(extra, n)
		}
	}
	want := []string{"kong-load-budget", "refuse-external-name-services", "refuse-unmanaged-endpoint-slices", "sync-max-delay", "sync-window"}
	if !slices.Equal(extra, want) {
		t.Errorf("flags not in KIC: %v, want %v", extra, want)
	}
}

func TestRunFlagsEnvAndCommandLine(t *testing.T) {
	env := []string{
		"CONTROLLER_KONG_ADMIN_URL=http://a:8001,http://b:8001",
		"CONTROLLER_INGRESS_CLASS=internal",
		"CONTROLLER_UPDATE_STATUS=false",
		"CONTROLLER_SYNC_WINDOW=50ms",
		"CONTROLLER_WATCH_NAMESPACE=env-ns",
		"CONTROLLER_METRICS_BIND_ADDRESS=:9999",
		"PATH=/bin",
	}
	f, _, err := parseRunFlags([]string{"--watch-namespace", "x", "--watch-namespace=y", "--ingress-class", "cli", "--profiling"}, env)
	if err != nil {
		t.Fatal(err)
	}
	c := f.cfg
	if !reflect.DeepEqual(c.KongAdminURLs, []string{"http://a:8001", "http://b:8001"}) {
		t.Errorf("admin URLs from env = %v", c.KongAdminURLs)
	}
	if !reflect.DeepEqual(c.WatchNamespaces, []string{"x", "y"}) {
		t.Errorf("the command line must win over the env list, got %v", c.WatchNamespaces)
	}
	if c.IngressClass != "cli" || c.UpdateStatus || c.SyncWindow != 50*time.Millisecond || c.MetricsBindAddress != ":9999" || !c.Profiling {
		t.Errorf("unexpected config %+v", c)
	}
	if len(f.warnings) != 0 {
		t.Errorf("warnings for known settings: %+v", f.warnings)
	}
}

func TestRunFlagsDefaults(t *testing.T) {
	f, _, err := parseRunFlags(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := f.cfg
	if !reflect.DeepEqual(c.KongAdminURLs, []string{"http://localhost:8001"}) || c.IngressClass != "kong" ||
		!c.UpdateStatus || c.ElectionID != "5b374a9e.konghq.com" ||
		c.MetricsBindAddress != ":10255" || c.HealthProbeBindAddress != ":10254" ||
		c.SyncWindow != 100*time.Millisecond || c.SyncMaxDelay != 500*time.Millisecond || c.Profiling ||
		!reflect.DeepEqual(c.KongAdminSvcPortNames, []string{"admin-tls", "kong-admin-tls"}) ||
		c.APIServerQPS != 100 || c.APIServerBurst != 300 || c.KongAdminTimeout != 30*time.Second ||
		c.KongAdminInitRetries != 60 || c.KongAdminInitRetryDelay != time.Second || !c.EmitKubernetesEvents ||
		c.ClusterDomain != "" || c.KongAdminHeaders != nil || f.termDelay != 0 || f.logLevel != "info" || f.logFormat != "text" {
		t.Errorf("defaults differ: %+v", c)
	}
	if len(f.warnings) != 0 {
		t.Errorf("warnings with defaults: %+v", f.warnings)
	}
	f, _, err = parseRunFlags([]string{"--kong-admin-url", "http://kong:8001"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.cfg.KongAdminURLs, []string{"http://kong:8001"}) {
		t.Errorf("a flag must replace the default URL, got %v", f.cfg.KongAdminURLs)
	}
}

// --apiserver-qps and --apiserver-burst (KIC's names and int types) set the client rate limit;
// a non-positive QPS is refused rather than meaning client-go's default.
func TestAPIServerRateFlags(t *testing.T) {
	f, _, err := parseRunFlags([]string{"--apiserver-qps", "20"}, []string{"CONTROLLER_APISERVER_BURST=40"})
	if err != nil {
		t.Fatal(err)
	}
	if f.cfg.APIServerQPS != 20 || f.cfg.APIServerBurst != 40 {
		t.Errorf("qps %v burst %d, want 20 and 40", f.cfg.APIServerQPS, f.cfg.APIServerBurst)
	}
	for _, bad := range []string{"0", "-1", "fast", "20.5"} {
		if _, _, err := parseRunFlags([]string{"--apiserver-qps", bad}, nil); err == nil || !strings.Contains(err.Error(), "apiserver-qps") {
			t.Errorf("--apiserver-qps %s: err = %v", bad, err)
		}
	}
}

func TestRunFlagsErrors(t *testing.T) {
	token := writeFile(t, "token", "t")
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"unknown flag", []string{"--nope"}, nil, "unknown flag: --nope"},
		{"stray argument", []string{"extra"}, nil, "unexpected arguments"},
		{"bad env value", nil, []string{"CONTROLLER_SYNC_WINDOW=soon"}, "CONTROLLER_SYNC_WINDOW"},
		{"empty env bool, as KIC", nil, []string{"CONTROLLER_UPDATE_STATUS="}, "CONTROLLER_UPDATE_STATUS"},
		{"svc and url on the command line", []string{"--kong-admin-svc=kong/admin", "--kong-admin-url=http://k:8001"}, nil, "both --kong-admin-svc and --kong-admin-url"},
		{"token and token file", []string{"--kong-admin-token=a", "--kong-admin-token-file=" + token}, nil, "--kong-admin-token-file"},
		{"missing token file", []string{"--kong-admin-token-file=/nonexistent"}, nil, "--kong-admin-token-file"},
		{"fallback without its gate", []string{"--use-last-valid-config-for-fallback"}, nil, "FallbackConfiguration"},
		{"unknown feature gate", []string{"--feature-gates=ExpressionRoutes=true"}, nil, "ExpressionRoutes is not a valid feature"},
		{"gate needing FillIDs", []string{"--feature-gates=FillIDs=false"}, nil, "FillIDs is required"},
		{"gate without value", []string{"--feature-gates=GatewayAlpha"}, nil, "malformed pair"},
		{"bad namespaced name", []string{"--publish-service=kong"}, nil, "namespace/name"},
		{"empty namespace", []string{"--kong-admin-svc=/admin"}, nil, "namespace cannot be empty"},
		{"metrics access filter", []string{"--metrics-access-filter=tls"}, nil, "unsupported metrics filter"},
		{"controller name", []string{"--gateway-api-controller-name=kic"}, nil, "example.com/controller-name"},
		{"zero timeout", []string{"--proxy-timeout-seconds=0"}, nil, "--proxy-timeout-seconds"},
		{"zero sync", []string{"--proxy-sync-seconds=0"}, nil, "--proxy-sync-seconds"},
		{"zero load budget", []string{"--kong-load-budget=0"}, nil, "--kong-load-budget"},
		{"load budget in percent", []string{"--kong-load-budget=20"}, nil, "--kong-load-budget"},
		{"negative load budget", nil, []string{"CONTROLLER_KONG_LOAD_BUDGET=-0.1"}, "--kong-load-budget"},
		{"NaN load budget", []string{"--kong-load-budget=NaN"}, nil, "--kong-load-budget"},
	} {
		if _, _, err := parseRunFlags(tc.args, tc.env); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	// Both from the environment: accepted, the Service wins (KIC checks the command line only).
	f, _, err := parseRunFlags(nil, []string{"CONTROLLER_KONG_ADMIN_SVC=kong/admin", "CONTROLLER_KONG_ADMIN_URL=http://k:8001"})
	if err != nil || f.cfg.KongAdminSvc != "kong/admin" {
		t.Errorf("svc and url from the environment: %v, svc %q", err, f.cfg.KongAdminSvc)
	}
}

// An unknown CONTROLLER_* variable is warned about by name; other variables are not.
func TestUnknownControllerVariables(t *testing.T) {
	f, _, err := parseRunFlags(nil, []string{"CONTROLLER_FEATURE_GATE=x", "CONTROLLER_LOG_LEVEL=debug", "CONTROLLERX=1", "HOME=/"})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.warnings) != 1 || !slices.Contains(f.warnings[0].kv, any("CONTROLLER_FEATURE_GATE")) {
		t.Errorf("warnings = %+v, want one naming CONTROLLER_FEATURE_GATE", f.warnings)
	}
	if f.logLevel != "debug" {
		t.Errorf("log level %q from CONTROLLER_LOG_LEVEL", f.logLevel)
	}
}

// Flags without effect set away from their default are named in one warning; those whose KIC
// meaning changes traffic get one each; a flag set to its default warns about nothing.
func TestKICOnlyFlagWarnings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     []string
		inert   []string // settings named in the combined warning
		traffic []string // settings warned about one by one
	}{
		{"defaults given explicitly", []string{"--anonymous-reports=true", "--sync-period=10h", "--admission-webhook-listen=off"}, nil, nil, nil},
		{"inert", []string{"--anonymous-reports=false", "--kong-workspace=w"}, []string{"CONTROLLER_CONFIGMAP_LABEL_SELECTOR=x"},
			[]string{"--anonymous-reports=false", "--configmap-label-selector=x", "--kong-workspace=w"}, nil},
		{"traffic", []string{"--enable-drain-support", "--enable-controller-kongplugin=false", "--enable-controller-kong-license=false"}, nil,
			[]string{"--enable-controller-kong-license=false"}, []string{"--enable-controller-kongplugin=false"}},
		{"deprecated", []string{"--konnect-runtime-group-id=x"}, nil, []string{"--konnect-runtime-group-id=x"}, nil},
		{"gates", []string{"--feature-gates=RewriteURIs=true,GatewayAlpha=true,KongCustomEntity=false,SanitizeKonnectConfigDumps=false"}, nil,
			[]string{"SanitizeKonnectConfigDumps=false"}, nil},
	} {
		f, _, err := parseRunFlags(tc.args, tc.env)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var inert, traffic []string
		for _, w := range f.warnings {
			switch {
			case strings.Contains(w.msg, "without effect"):
				for _, s := range w.kv[1].([]string) {
					inert = append(inert, strings.SplitN(s, " (", 2)[0])
				}
			case strings.Contains(w.msg, "traffic differs"):
				traffic = append(traffic, w.kv[1].(string))
			default:
				t.Errorf("%s: unexpected warning %+v", tc.name, w)
			}
		}
		slices.Sort(traffic)
		if !slices.Equal(inert, tc.inert) || !slices.Equal(traffic, tc.traffic) {
			t.Errorf("%s: inert %v traffic %v, want %v %v", tc.name, inert, traffic, tc.inert, tc.traffic)
		}
	}
}

// --proxy-sync-seconds, when set, is KIC's interval: the least time between two pushes to one
// Kong (sync.Config.MinPushInterval); the window and max delay stay kongsync's, with or without
// it. --kong-load-budget (default 0.2) is Kong's share of time loading; both also come from
// CONTROLLER_* variables.
func TestProxySyncSecondsAndLoadBudget(t *testing.T) {
	for _, tc := range []struct {
		args              []string
		env               []string
		interval          time.Duration
		window, max, tout time.Duration
		budget            float64
	}{
		{nil, nil, 0, 100 * time.Millisecond, 500 * time.Millisecond, 30 * time.Second, 0.2},
		{[]string{"--proxy-sync-seconds=1.5"}, nil, 1500 * time.Millisecond, 100 * time.Millisecond, 500 * time.Millisecond, 30 * time.Second, 0.2},
		{[]string{"--proxy-sync-seconds=0.05"}, nil, 50 * time.Millisecond, 100 * time.Millisecond, 500 * time.Millisecond, 30 * time.Second, 0.2},
		{[]string{"--proxy-sync-seconds=1", "--sync-max-delay=2s", "--kong-load-budget=1"}, nil,
			time.Second, 100 * time.Millisecond, 2 * time.Second, 30 * time.Second, 1},
		{nil, []string{"CONTROLLER_PROXY_SYNC_SECONDS=3", "CONTROLLER_PROXY_TIMEOUT_SECONDS=2.5", "CONTROLLER_KONG_LOAD_BUDGET=0.1"},
			3 * time.Second, 100 * time.Millisecond, 500 * time.Millisecond, 2500 * time.Millisecond, 0.1},
	} {
		f, _, err := parseRunFlags(tc.args, tc.env)
		if err != nil {
			t.Fatal(err)
		}
		c := f.cfg
		if c.ProxySyncInterval != tc.interval || c.SyncWindow != tc.window || c.SyncMaxDelay != tc.max ||
			c.KongAdminTimeout != tc.tout || c.KongLoadBudget != tc.budget {
			t.Errorf("%v %v: interval %v window %v max %v timeout %v budget %v, want %v %v %v %v %v", tc.args, tc.env,
				c.ProxySyncInterval, c.SyncWindow, c.SyncMaxDelay, c.KongAdminTimeout, c.KongLoadBudget,
				tc.interval, tc.window, tc.max, tc.tout, tc.budget)
		}
	}
}

// Admin API settings that need conversion: headers, the token file, the PEM values.
func TestKongAdminFlags(t *testing.T) {
	token := writeFile(t, "token", "  s3cret\n")
	f, _, err := parseRunFlags([]string{"--kong-admin-header=X-Tenant: a", "--kong-admin-header", "kong-admin-token:t2,bogus",
		"--kong-admin-token-file", token, "--kong-admin-ca-cert=PEM", "--kong-admin-init-retries=0", "--term-delay=3s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := f.cfg
	if c.KongAdminHeaders.Get("X-Tenant") != "a" || c.KongAdminHeaders.Get("Kong-Admin-Token") != "t2" || len(c.KongAdminHeaders) != 2 {
		t.Errorf("headers %v", c.KongAdminHeaders)
	}
	if len(f.warnings) != 1 || !strings.Contains(f.warnings[0].msg, "--kong-admin-header") {
		t.Errorf("warnings %+v, want one about the header without a colon", f.warnings)
	}
	if c.KongAdminToken != "s3cret" || c.KongAdminCACert != "PEM" || c.KongAdminInitRetries != 0 || f.termDelay != 3*time.Second {
		t.Errorf("config %+v, term delay %v", c, f.termDelay)
	}
}

// --feature-gates in KIC's format: each value starts from KIC's defaults.
func TestFeatureGates(t *testing.T) {
	for _, tc := range []struct {
		value   string
		changed []string
		err     bool
	}{
		{"", nil, false},
		{"GatewayAlpha=true", []string{"GatewayAlpha"}, false},
		{" GatewayAlpha = true , RewriteURIs=1,", []string{"GatewayAlpha", "RewriteURIs"}, false},
		{"FillIDs=true", nil, false},
		{"GatewayAlpha=maybe", nil, true},
		{"Nope=true", nil, true},
	} {
		fg := newFeatureGates()
		_ = fg.Set("FallbackConfiguration=true") // replaced by the next Set
		err := fg.Set(tc.value)
		if (err != nil) != tc.err {
			t.Errorf("%q: err %v", tc.value, err)
			continue
		}
		if !tc.err && !slices.Equal(fg.changed(), tc.changed) {
			t.Errorf("%q: changed %v, want %v", tc.value, fg.changed(), tc.changed)
		}
	}
}

// The help prints the flags as KIC v3.5.13's does: KIC's rootcmd adds its one FlagSet to a
// cobra command, whose help has a single "Flags:" section sorted by name (KIC's cli.go groups
// flags only with source comments). Every visible flag appears exactly once, in order; hidden
// and deprecated ones do not.
func TestHelp(t *testing.T) {
	var b strings.Builder
	printRunFlags(&b)
	out := b.String()
	if !strings.Contains(out, "--kong-admin-url strings") {
		t.Errorf("help:\n%s", out)
	}
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "--") {
			got = append(got, strings.TrimPrefix(f[0], "--"))
		}
	}
	var want []string
	fs := newRunFlagSet(&runFlags{}, &rawFlags{})
	fs.VisitAll(func(fl *pflag.Flag) {
		if !fl.Hidden && fl.Deprecated == "" {
			want = append(want, fl.Name)
		}
	})
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("help lists %d flags %v,\nwant each of the %d visible flags once, sorted: %v", len(got), got, len(want), want)
	}
	for _, absent := range []string{"--diagnostic-server-port", "--force-leader-election", "--konnect-runtime-group-id"} {
		if strings.Contains(out, absent) {
			t.Errorf("help shows %s", absent)
		}
	}
	var d strings.Builder
	if code := dispatch(context.Background(), []string{"--help"}, strings.NewReader(""), &d, io.Discard); code != 0 ||
		strings.Count(d.String(), "Flags:") != 1 || !strings.Contains(d.String(), "Flags:\n"+out) {
		t.Errorf("kongsync --help = %d:\n%s", code, d.String())
	}
	if _, _, err := parseRunFlags([]string{"--help"}, nil); err != pflag.ErrHelp {
		t.Errorf("--help: err = %v", err)
	}
}

// docs/operations.md names every KIC flag, in the table of flags that act or in the one of
// flags without effect, and every gate.
func TestOperationsDocListsEveryFlag(t *testing.T) {
	b, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, k := range readKICFlags(t) {
		if !strings.Contains(doc, "`--"+k.name+"`") && !strings.Contains(doc, "`--"+k.name+"(-file)`") &&
			!strings.Contains(doc, "`--"+strings.TrimSuffix(k.name, "-file")+"(-file)`") {
			t.Errorf("docs/operations.md does not name --%s", k.name)
		}
	}
	for _, k := range kicOnlyTable() {
		if !strings.Contains(doc, "| `--"+k.name+"` |") {
			t.Errorf("docs/operations.md has no row for --%s in the table of flags without effect", k.name)
		}
	}
	for g := range kicFeatureGates {
		if !strings.Contains(doc, "`"+g+"`") {
			t.Errorf("docs/operations.md does not name the %s gate", g)
		}
	}
}

// The diagnostics, election and admission flags reach runner.Config (KIC's names and values).
func TestDiagnosticsElectionAdmissionFlags(t *testing.T) {
	f, _, err := parseRunFlags([]string{"--dump-config", "--dump-sensitive-config", "--diagnostic-server-port=1234",
		"--force-leader-election=enabled", "--admission-webhook-cert-file=/c", "--admission-webhook-key-file=/k"},
		[]string{"CONTROLLER_ADMISSION_WEBHOOK_LISTEN=:8080"})
	if err != nil {
		t.Fatal(err)
	}
	c := f.cfg
	if !c.DumpConfig || !c.DumpSensitiveConfig || c.DiagnosticsBindAddress != "127.0.0.1:1234" || c.LeaderElection != "enabled" ||
		c.AdmissionWebhookListen != ":8080" || c.AdmissionTLS.CertFile != "/c" || c.AdmissionTLS.KeyFile != "/k" || len(f.warnings) != 0 {
		t.Errorf("config %+v, warnings %v", c, f.warnings)
	}
	f, _, err = parseRunFlags(nil, nil)
	if err != nil || f.cfg.DiagnosticsBindAddress != "127.0.0.1:10256" || f.cfg.AdmissionWebhookListen != "off" || f.cfg.DumpConfig {
		t.Errorf("defaults: %+v %v", f.cfg, err)
	}
	f, _, err = parseRunFlags([]string{"--force-leader-election=sometimes"}, nil)
	if err != nil || f.cfg.LeaderElection != "" || len(f.warnings) != 1 {
		t.Errorf("an unknown --force-leader-election: %q, warnings %v, err %v", f.cfg.LeaderElection, f.warnings, err)
	}
	if _, _, err := parseRunFlags([]string{"--diagnostic-server-port=70000"}, nil); err == nil {
		t.Error("--diagnostic-server-port=70000 accepted")
	}
}

// The gates act on the controller's settings; a gate kongsync cannot honour is refused at start,
// naming it and why, never accepted and ignored; KIC's defaults (KongCustomEntity on) start.
func TestFeatureGatesActOrAreRefused(t *testing.T) {
	for _, tc := range []struct {
		gates   string
		refused string // the gate named by the error; "" when accepted
		rewrite bool
		alpha   bool
		facade  bool
		// fallback: the sync loop leaves out rejected objects' dependants (KIC's rules).
		fallback bool
		noCE     bool   // KongCustomEntities not watched
		flag     string // --enable-controller-kong-custom-entity, when given
	}{
		{gates: ""},
		{gates: "KongCustomEntity=true,FillIDs=true"},
		{gates: "KongCustomEntity=false", noCE: true},
		{gates: "", flag: "false", noCE: true},
		{gates: "KongCustomEntity=true", flag: "true"},
		{gates: "RewriteURIs=true", rewrite: true},
		{gates: "GatewayAlpha=true", alpha: true},
		{gates: "KongCustomEntity=false,FillIDs=false", refused: "FillIDs=false"},
		{gates: "KongServiceFacade=true", facade: true},
		{gates: "FallbackConfiguration=true", fallback: true},
		{gates: "FillIDs=false", refused: "FillIDs is required if KongCustomEntity is enabled"}, // KIC's own check first
	} {
		args := []string{"--feature-gates=" + tc.gates}
		if tc.flag != "" {
			args = append(args, "--enable-controller-kong-custom-entity="+tc.flag)
		}
		f, _, err := parseRunFlags(args, nil)
		if tc.refused != "" {
			if err == nil || !strings.Contains(err.Error(), tc.refused) {
				t.Errorf("%q: %v, want refused for %s", tc.gates, err, tc.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.gates, err)
			continue
		}
		if f.cfg.DisableKongCustomEntity != tc.noCE {
			t.Errorf("%q %s: KongCustomEntities not watched %v, want %v", tc.gates, tc.flag, f.cfg.DisableKongCustomEntity, tc.noCE)
		}
		if f.cfg.Features.KongServiceFacade != tc.facade {
			t.Errorf("%q: KongServiceFacade %v, want %v", tc.gates, f.cfg.Features.KongServiceFacade, tc.facade)
		}
		if f.cfg.Features.RewriteURIs != tc.rewrite || f.cfg.GatewayAlpha != tc.alpha {
			t.Errorf("%q: RewriteURIs %v GatewayAlpha %v, want %v %v", tc.gates, f.cfg.Features.RewriteURIs, f.cfg.GatewayAlpha, tc.rewrite, tc.alpha)
		}
		if f.cfg.FallbackConfiguration != tc.fallback || f.cfg.UseLastValidConfigForFallback {
			t.Errorf("%q: FallbackConfiguration %v (last valid %v), want %v", tc.gates, f.cfg.FallbackConfiguration,
				f.cfg.UseLastValidConfigForFallback, tc.fallback)
		}
	}
	// --use-last-valid-config-for-fallback acts with the gate (and is refused without it: TestRunFlagsErrors).
	for _, env := range [][]string{nil, {"CONTROLLER_USE_LAST_VALID_CONFIG_FOR_FALLBACK=true"}} {
		args := []string{"--feature-gates=FallbackConfiguration=true"}
		if env == nil {
			args = append(args, "--use-last-valid-config-for-fallback")
		}
		f, _, err := parseRunFlags(args, env)
		if err != nil || !f.cfg.FallbackConfiguration || !f.cfg.UseLastValidConfigForFallback {
			t.Errorf("%v %v: %v, fallback %v, last valid %v", args, env, err, f != nil && f.cfg.FallbackConfiguration,
				f != nil && f.cfg.UseLastValidConfigForFallback)
		}
	}
	f, _, err := parseRunFlags([]string{"--gateway-to-reconcile=default/kong", "--enable-drain-support"}, nil)
	if err != nil || f.cfg.GatewayToReconcile != "default/kong" || !f.cfg.DrainSupport {
		t.Errorf("--gateway-to-reconcile, --enable-drain-support: %v %+v", err, f)
	}
	if _, _, err := parseRunFlags([]string{"--gateway-to-reconcile=kong"}, nil); err == nil {
		t.Error("--gateway-to-reconcile=kong (no namespace) accepted")
	}
}
