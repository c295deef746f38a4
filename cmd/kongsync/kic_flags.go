package main

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// kicOnly is a KIC v3.5.13 flag that kongsync accepts, with KIC's type and default, but does not
// act on. why says what kongsync does instead. traffic marks the flags whose non-default value
// asks KIC for something that changes what Kong serves: those are warned about one by one, the
// others together, at startup, when set to anything but the default.
type kicOnly struct {
	name       string
	def        any // bool, string, []string, int, time.Duration or validatedDef
	why        string
	traffic    bool
	hidden     bool
	deprecated string
}

// kicOnlyFlags is the table of accepted-but-inert KIC flags (docs/operations.md prints it).
var kicOnlyFlags = []kicOnly{
	{name: "kong-workspace", def: "", why: "DB-less Kong has no workspaces"},
	{name: "anonymous-reports", def: true, why: "kongsync sends no usage reports"},
	{name: "enable-reverse-sync", def: false, why: "kongsync already re-posts whenever Kong's configuration_hash differs (GET /status every second)"},
	{name: "sync-period", def: 10 * time.Hour, why: "kongsync's informers do not resync; unchanged objects cost nothing"},
	{name: "skip-ca-certificates", def: false, traffic: true, why: "kongsync always sends CA certificates"},
	{name: "cache-sync-timeout", def: 2 * time.Minute, why: "kongsync waits for its caches until shutdown"},
	{name: "gateway-discovery-readiness-check-interval", def: 10 * time.Second, why: "kongsync probes every replica's GET /status every second"},
	{name: "gateway-discovery-readiness-check-timeout", def: 5 * time.Second, why: "status probes time out after 2 s, or --proxy-timeout-seconds if shorter"},
	{name: "metrics-access-filter", def: validatedDef{"off", "string", checkMetricsAccessFilter},
		why: "kongsync does not authorize /metrics requests: bind it where only trusted scrapers reach it"},
	{name: "init-cache-sync-duration", def: 5 * time.Second, why: "kongsync waits for its caches to sync, then pushes"},
	{name: "kong-admin-filter-tag", def: []string{"managed-by-ingress-controller"}, why: "filter tags matter in DB mode only"},
	{name: "kong-admin-concurrency", def: 10, why: "kongsync sends one request at a time to each replica"},
	{name: "publish-service-udp", def: validatedDef{"", "namespaced-name", checkNamespacedName}, why: "kongsync writes Ingress status only"},
	{name: "publish-status-address-udp", def: []string{}, why: "kongsync writes Ingress status only"},
	{name: "update-status-queue-buffer-size", def: 8192, why: "status updates are computed from the store, not queued"},
	{name: "secret-label-selector", def: "", traffic: true, why: "kongsync reads every Secret the translated objects reference, labelled or not"},
	{name: "configmap-label-selector", def: "konghq.com/configmap", why: "kongsync reads no ConfigMaps"},
	{name: "combined-services-from-different-httproutes", def: false,
		why: "kongsync keeps KIC's default: Kong services are not shared across HTTPRoutes (same routing, other entity names)"},
	{name: "konnect-sync-enabled", def: false, why: "Konnect is not supported: nothing is sent to Konnect"},
	{name: "konnect-licensing-enabled", def: false, why: "Konnect is not supported"},
	{name: "konnect-license-storage-enabled", def: true, why: "Konnect is not supported"},
	{name: "konnect-initial-license-polling-period", def: time.Minute, why: "Konnect is not supported"},
	{name: "konnect-license-polling-period", def: 12 * time.Hour, why: "Konnect is not supported"},
	{name: "konnect-control-plane-id", def: "", why: "Konnect is not supported"},
	{name: "konnect-address", def: "https://us.kic.api.konghq.com", why: "Konnect is not supported"},
	{name: "konnect-tls-client-cert", def: "", why: "Konnect is not supported"},
	{name: "konnect-tls-client-cert-file", def: "", why: "Konnect is not supported"},
	{name: "konnect-tls-client-key", def: "", why: "Konnect is not supported"},
	{name: "konnect-tls-client-key-file", def: "", why: "Konnect is not supported"},
	{name: "konnect-upload-config-period", def: 30 * time.Second, why: "Konnect is not supported"},
	{name: "konnect-config-sync-concurrency", def: 4, why: "Konnect is not supported"},
	{name: "konnect-refresh-node-period", def: time.Minute, why: "Konnect is not supported"},
	{name: "konnect-disable-consumers-sync", def: false, why: "Konnect is not supported"},
	{name: "konnect-runtime-group-id", def: "", why: "Konnect is not supported", deprecated: "use --konnect-control-plane-id instead"},
	{name: "gateway-discovery-dns-strategy", def: "", why: "no effect in KIC either", deprecated: "it has no effect"},
}

// kicControllers are KIC's --enable-controller-* flags (all default true) with the kind each
// switches off. Turning off a kind kongsync translates changes traffic: kongsync still serves it.
var kicControllers = []struct {
	flag, kind string
	read       bool // kongsync translates this kind
}{
	{"ingress-networkingv1", "Ingresses", true},
	{"ingress-class-networkingv1", "IngressClasses", true},
	{"ingress-class-parameters", "IngressClassParameters", true},
	{"udpingress", "UDPIngresses", true},
	{"tcpingress", "TCPIngresses", true},
	{"kongingress", "KongIngresses", true},
	{"kongclusterplugin", "KongClusterPlugins", true},
	{"kongplugin", "KongPlugins", true},
	{"kongconsumer", "KongConsumers and KongConsumerGroups", true},
	{"service", "Services", true},
	{"kong-upstream-policy", "KongUpstreamPolicies", true},
	{"gwapi-gateway", "Gateways", true},
	{"gwapi-httproute", "HTTPRoutes", true},
	{"gwapi-reference-grant", "ReferenceGrants", true},
	{"gwapi-grpcroute", "GRPCRoutes", true},
	{"kong-service-facade", "KongServiceFacades", true},
	{"kong-vault", "KongVaults", true},
	{"kong-license", "KongLicenses", false},
}

// kicOnlyTable is kicOnlyFlags with the --enable-controller-* flags added.
func kicOnlyTable() []kicOnly {
	out := append([]kicOnly(nil), kicOnlyFlags...)
	for _, c := range kicControllers {
		k := kicOnly{name: "enable-controller-" + c.flag, def: true, why: "kongsync does not read " + c.kind}
		if c.read {
			k.traffic, k.why = true, "kongsync translates "+c.kind+" regardless (KIC would ignore them)"
		}
		out = append(out, k)
	}
	return out
}

// defineKICOnly defines every inert KIC flag with KIC's type and default.
func defineKICOnly(fs *pflag.FlagSet) {
	for _, k := range kicOnlyTable() {
		usage := "[no effect in kongsync] " + k.why
		if k.traffic {
			usage = "[not honoured; warned about] " + k.why
		}
		switch d := k.def.(type) {
		case bool:
			fs.Bool(k.name, d, usage)
		case string:
			fs.String(k.name, d, usage)
		case []string:
			fs.StringSlice(k.name, append([]string(nil), d...), usage)
		case int:
			fs.Int(k.name, d, usage)
		case time.Duration:
			fs.Duration(k.name, d, usage)
		case validatedDef:
			fs.Var(newValidated(d.def, d.typ, d.check), k.name, usage)
		default:
			panic(fmt.Sprintf("flag %s: unsupported default %T", k.name, d))
		}
		if k.hidden {
			_ = fs.MarkHidden(k.name)
		}
		if k.deprecated != "" {
			_ = fs.MarkDeprecated(k.name, k.deprecated)
		}
	}
}

// kicOnlyWarnings lists the inert flags set to something other than their default: one warning
// naming every flag without effect, one per flag whose KIC meaning would change traffic.
func kicOnlyWarnings(fs *pflag.FlagSet) []warning {
	var inert []string
	var out []warning
	for _, k := range kicOnlyTable() {
		fl := fs.Lookup(k.name)
		if fl == nil || fl.Value.String() == fl.DefValue {
			continue
		}
		setting := "--" + k.name + "=" + fl.Value.String()
		if k.traffic {
			out = append(out, warning{msg: "KIC flag not honoured: traffic differs from KIC's", kv: []any{"flag", setting, "kongsync", k.why}})
			continue
		}
		inert = append(inert, setting+" ("+k.why+")")
	}
	if len(inert) > 0 {
		sort.Strings(inert)
		out = append([]warning{{msg: "KIC flags without effect in kongsync", kv: []any{"flags", inert}}}, out...)
	}
	return out
}

// gateWarnings warns, as kicOnlyWarnings, about the gates set away from KIC's defaults that
// change nothing in kongsync. The gates that act (GatewayAlpha, RewriteURIs, KongServiceFacade,
// KongCustomEntity) need no warning;
// those kongsync cannot honour were refused before (featureGates.refusal).
func gateWarnings(fg featureGates) []warning {
	inertWhy := map[string]string{
		"SanitizeKonnectConfigDumps": "Konnect is not supported",
	}
	var inert []string
	for _, g := range fg.changed() {
		if why, ok := inertWhy[g]; ok {
			inert = append(inert, fmt.Sprintf("%s=%v (%s)", g, fg[g], why))
		}
	}
	if len(inert) == 0 {
		return nil
	}
	return []warning{{msg: "KIC feature gates without effect in kongsync", kv: []any{"gates", inert}}}
}

// validatedDef describes a validated flag in a table; each flag set gets its own value.
type validatedDef struct {
	def, typ string
	check    func(string) error
}

// validated is a string flag checked when set (KIC's ValidatedValue).
type validated struct {
	val, typ string
	check    func(string) error
}

func newValidated(def, typ string, check func(string) error) *validated {
	return &validated{val: def, typ: typ, check: check}
}

func (v *validated) String() string { return v.val }
func (v *validated) Type() string   { return v.typ }
func (v *validated) Set(s string) error {
	if err := v.check(s); err != nil {
		return err
	}
	v.val = s
	return nil
}

// checkNamespacedName is KIC's namespace/name check.
func checkNamespacedName(s string) error {
	parts := strings.SplitN(s, "/", 3)
	switch {
	case len(parts) != 2:
		return errors.New("the expected format is namespace/name")
	case parts[0] == "":
		return errors.New("namespace cannot be empty")
	case parts[1] == "":
		return errors.New("name cannot be empty")
	}
	return nil
}

func checkMetricsAccessFilter(s string) error {
	if s != "off" && s != "rbac" {
		return fmt.Errorf("unsupported metrics filter %s", s)
	}
	return nil
}

// controllerNameRE is the Gateway API's GatewayController pattern, which KIC checks.
var controllerNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9\/\-._~%!$&'()*+,;=:]+$`)

func checkControllerName(s string) error {
	if !controllerNameRE.MatchString(s) {
		return errors.New("the expected format is example.com/controller-name")
	}
	return nil
}
