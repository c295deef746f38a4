//go:build integration

package integration

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// The soak's object universe: a few namespaces and, per kind, names from a small pool, so that
// random changes re-create, collide and reference each other (hosts shared by Ingresses and
// HTTPRoutes, Services named by both, Secrets by Ingresses and consumers, policies and plugins
// by Services). Every generator is a pure function of its random source, so a seed replays the
// same objects (TLS key pairs aside: they are generated once per run).

// soakKind is one kind the soak writes: its API resource and how to generate an object.
type soakKind struct {
	kind, group, version, resource string
	namespaced                     bool
	names                          []string
	weight                         int
	gen                            func(w *world, r *rand.Rand, ns, name string) map[string]any
}

type world struct {
	prefix     string   // unique per run: cluster-scoped names and hosts
	namespaces []string // watched by kongsync
	class      string   // the IngressClass kongsync serves
	pairs      []tlsPair
	kinds      []soakKind
	// later are kinds added after seeds were recorded in soakRegressions: they draw from a
	// stream of their own (see runWriters), so that recorded seeds keep their schedules.
	later []soakKind
	// evil is the hostile tenant (soak_hostile_test.go): a namespace beside namespaces.
	evil *hostileTenant
}

// watched are the namespaces kongsync watches: the world's and the hostile tenant's.
func (w *world) watched() []string { return append(append([]string(nil), w.namespaces...), w.evil.ns) }

type tlsPair struct{ cert, key []byte }

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

func newWorld(prefix string, namespaces []string, pairs []tlsPair) *world {
	w := &world{prefix: prefix, namespaces: namespaces, class: prefix, pairs: pairs}
	w.kinds = []soakKind{
		{"Service", "", "v1", "services", true, names("svc-", 4), 12, (*world).service},
		{"EndpointSlice", "discovery.k8s.io", "v1", "endpointslices", true, []string{"svc-0-a", "svc-1-a", "svc-2-a", "svc-3-a", "svc-0-b"}, 14, (*world).endpointSlice},
		{"Secret", "", "v1", "secrets", true, names("tls-", 3), 6, (*world).tlsSecret},
		{"Secret", "", "v1", "secrets", true, names("cred-", 3), 4, (*world).credSecret},
		{"Ingress", "networking.k8s.io", "v1", "ingresses", true, names("ing-", 6), 20, (*world).ingress},
		{"IngressClass", "networking.k8s.io", "v1", "ingressclasses", false, []string{w.class, w.class + "-other"}, 1, (*world).ingressClass},
		{"KongPlugin", "configuration.konghq.com", "v1", "kongplugins", true, names("plug-", 3), 6, (*world).kongPlugin},
		{"KongClusterPlugin", "configuration.konghq.com", "v1", "kongclusterplugins", false, names(prefix+"-kcp-", 2), 2, (*world).kongClusterPlugin},
		{"KongConsumer", "configuration.konghq.com", "v1", "kongconsumers", true, names("cons-", 3), 5, (*world).kongConsumer},
		{"KongUpstreamPolicy", "configuration.konghq.com", "v1beta1", "kongupstreampolicies", true, names("pol-", 2), 3, (*world).upstreamPolicy},
		{"GatewayClass", "gateway.networking.k8s.io", "v1", "gatewayclasses", false, []string{prefix + "-gwc"}, 1, (*world).gatewayClass},
		{"Gateway", "gateway.networking.k8s.io", "v1", "gateways", true, []string{"gw"}, 2, (*world).gateway},
		{"HTTPRoute", "gateway.networking.k8s.io", "v1", "httproutes", true, names("route-", 3), 8, (*world).httpRoute},
		{"ReferenceGrant", "gateway.networking.k8s.io", "v1beta1", "referencegrants", true, []string{"grant"}, 2, (*world).referenceGrant},
	}
	w.later = []soakKind{
		{"TCPIngress", "configuration.konghq.com", "v1beta1", "tcpingresses", true, names("tcp-", 2), 1, (*world).l4Ingress},
		{"UDPIngress", "configuration.konghq.com", "v1beta1", "udpingresses", true, names("udp-", 2), 1, (*world).l4Ingress},
	}
	w.later = append(w.later, w.laterKinds()...)
	return w
}

func (w *world) meta(kind, group, version, ns, name string) map[string]any {
	api := version
	if group != "" {
		api = group + "/" + version
	}
	m := map[string]any{"name": name}
	if ns != "" {
		m["namespace"] = ns
	}
	return map[string]any{"apiVersion": api, "kind": kind, "metadata": m}
}

func setAnn(o map[string]any, k, v string) {
	m := o["metadata"].(map[string]any)
	a, _ := m["annotations"].(map[string]any)
	if a == nil {
		a = map[string]any{}
		m["annotations"] = a
	}
	a[k] = v
}

func setLabel(o map[string]any, k, v string) {
	m := o["metadata"].(map[string]any)
	l, _ := m["labels"].(map[string]any)
	if l == nil {
		l = map[string]any{}
		m["labels"] = l
	}
	l[k] = v
}

// host is one of four hosts shared by every namespace's Ingresses and HTTPRoutes.
func (w *world) host(r *rand.Rand) string {
	return fmt.Sprintf("h%d.%s.example.com", r.IntN(4), w.prefix)
}

func (w *world) otherNS(r *rand.Rand) string { return pick(r, w.namespaces...) }

func (w *world) service(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("Service", "", "v1", ns, name)
	ports := []any{map[string]any{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}}
	if r.IntN(3) == 0 {
		ports = append(ports, map[string]any{"name": "alt", "port": 8080, "targetPort": 8080, "protocol": "TCP"})
	}
	o["spec"] = map[string]any{"ports": ports}
	if name == "svc-1" {
		setAnn(o, "konghq.com/override", "ki-0")
	}
	if r.IntN(4) == 0 {
		setAnn(o, "konghq.com/protocol", pick(r, "http", "https", "grpc", "bogus"))
	}
	if r.IntN(5) == 0 {
		setAnn(o, "konghq.com/connect-timeout", pick(r, "5000", "30s", "99999999999"))
	}
	if r.IntN(4) == 0 {
		setAnn(o, "konghq.com/upstream-policy", pick(r, "pol-0", "pol-1", "nowhere"))
	}
	if r.IntN(5) == 0 {
		setAnn(o, "konghq.com/plugins", pick(r, "plug-0", "plug-1", "plug-2,plug-0"))
	}
	if r.IntN(6) == 0 {
		setAnn(o, "konghq.com/path", pick(r, "/base", "not-absolute"))
	}
	return o
}

// endpointSlice scales: 0 to 5 endpoints, most of them ready, of the Service its name starts with.
func (w *world) endpointSlice(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("EndpointSlice", "discovery.k8s.io", "v1", ns, name)
	svc := name[:len("svc-0")]
	setLabel(o, "kubernetes.io/service-name", svc)
	var eps []any
	for i := range r.IntN(6) {
		eps = append(eps, map[string]any{
			"addresses":  []any{fmt.Sprintf("10.%d.%d.%d", len(ns)%200, int(svc[4]-'0'), 10+i+r.IntN(3))},
			"conditions": map[string]any{"ready": r.IntN(6) != 0},
		})
	}
	o["addressType"] = "IPv4"
	o["endpoints"] = eps
	o["ports"] = []any{map[string]any{"name": pick(r, "http", "http", "alt"), "port": 8080, "protocol": "TCP"}}
	return o
}

// tlsSecret rotates among the run's key pairs, now and then holding garbage or a mismatched key.
func (w *world) tlsSecret(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("Secret", "", "v1", ns, name)
	o["type"] = "kubernetes.io/tls"
	p := w.pairs[r.IntN(len(w.pairs))]
	crt, key := string(p.cert), string(p.key)
	switch r.IntN(8) {
	case 0:
		crt, key = "not a certificate", "not a key"
	case 1:
		key = string(w.pairs[(r.IntN(len(w.pairs)-1)+1+indexOf(w.pairs, p))%len(w.pairs)].key)
	}
	o["stringData"] = map[string]any{"tls.crt": crt, "tls.key": key}
	return o
}

func indexOf(ps []tlsPair, p tlsPair) int {
	for i := range ps {
		if string(ps[i].cert) == string(p.cert) {
			return i
		}
	}
	return 0
}

// credSecret is a consumer credential; keys come from a small pool, so they collide.
func (w *world) credSecret(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("Secret", "", "v1", ns, name)
	o["type"] = "Opaque"
	switch r.IntN(4) {
	case 0:
		setLabel(o, "konghq.com/credential", "basic-auth")
		o["stringData"] = map[string]any{"username": pick(r, "u1", "u2"), "password": "pw" + strconv.Itoa(r.IntN(3))}
	case 1:
		setLabel(o, "konghq.com/credential", pick(r, "no-such-auth", "key-auth"))
		o["stringData"] = map[string]any{"nokey": "x"}
	default:
		setLabel(o, "konghq.com/credential", "key-auth")
		o["stringData"] = map[string]any{"key": "k" + strconv.Itoa(r.IntN(4))}
	}
	return o
}

// ingressPath includes paths the API server accepts but Kong would refuse (unbalanced regexes,
// dot segments in ImplementationSpecific paths, regex markers without a slash).
func (w *world) ingressPath(r *rand.Rand) map[string]any {
	path, typ := pick(r, "/", "/api", "/api/v1", "/shop"), pick(r, "Prefix", "Exact", "ImplementationSpecific")
	switch r.IntN(10) {
	case 0:
		path, typ = pick(r, "/~/api/(v1|v2", "/~/files/[a-z+", "/~/ok/[0-9]+", "/~api"), "ImplementationSpecific"
	case 1:
		path, typ = pick(r, "/a/../admin", "/price(usd"), pick(r, "ImplementationSpecific", "Exact")
	}
	backend := map[string]any{"name": pick(r, "svc-0", "svc-1", "svc-2", "svc-3", "missing")}
	switch r.IntN(6) {
	case 0:
		backend["port"] = map[string]any{"name": pick(r, "http", "nope")}
	case 1:
		backend["port"] = map[string]any{"number": pick(r, 8080, 9999)}
	default:
		backend["port"] = map[string]any{"number": 80}
	}
	return map[string]any{"path": path, "pathType": typ, "backend": map[string]any{"service": backend}}
}

func (w *world) ingress(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("Ingress", "networking.k8s.io", "v1", ns, name)
	spec := map[string]any{}
	switch r.IntN(8) {
	case 0:
		spec["ingressClassName"] = w.class + "-other"
	case 1: // no class: served only while our IngressClass is the default one
	default:
		spec["ingressClassName"] = w.class
	}
	var rules, hosts []any
	for range 1 + r.IntN(2) {
		var paths []any
		for range 1 + r.IntN(2) {
			paths = append(paths, w.ingressPath(r))
		}
		h := w.host(r)
		hosts = append(hosts, h)
		rules = append(rules, map[string]any{"host": h, "http": map[string]any{"paths": paths}})
	}
	spec["rules"] = rules
	if r.IntN(3) == 0 {
		spec["tls"] = []any{map[string]any{"hosts": hosts, "secretName": pick(r, "tls-0", "tls-1", "tls-2", "tls-none")}}
	}
	if r.IntN(12) == 0 {
		spec["defaultBackend"] = map[string]any{"service": map[string]any{"name": pick(r, "svc-0", "missing"), "port": map[string]any{"number": 80}}}
	}
	o["spec"] = spec
	if r.IntN(4) == 0 {
		setAnn(o, "konghq.com/plugins", pick(r, "plug-0", "plug-1,plug-2", "nowhere"))
	}
	if r.IntN(6) == 0 {
		setAnn(o, "konghq.com/strip-path", pick(r, "true", "false", "yes please"))
	}
	if r.IntN(6) == 0 {
		setAnn(o, "konghq.com/methods", pick(r, "GET", "GET,POST", "get"))
	}
	return o
}

func (w *world) ingressClass(r *rand.Rand, _, name string) map[string]any {
	o := w.meta("IngressClass", "networking.k8s.io", "v1", "", name)
	o["spec"] = map[string]any{"controller": "ingress-controllers.konghq.com/kong"}
	if name == w.class {
		o["spec"].(map[string]any)["parameters"] = w.classParamsRef()
	}
	if r.IntN(3) == 0 {
		setAnn(o, "ingressclass.kubernetes.io/is-default-class", "true")
	}
	return o
}

// pluginBody is a plugin name and config; some are invalid in ways only Kong (or kongsync's
// checks) would see: an unknown plugin, a config that is not an object.
func pluginBody(r *rand.Rand, o map[string]any) {
	switch r.IntN(7) {
	case 0:
		o["plugin"], o["config"] = "rate-limiting", map[string]any{"minute": 1 + r.IntN(100), "policy": "local"}
	case 1:
		o["plugin"], o["config"] = "cors", map[string]any{"origins": []any{"*"}}
	case 2:
		o["plugin"] = "key-auth"
	case 3:
		o["plugin"], o["config"] = "correlation-id", map[string]any{"header_name": "X-Id-" + strconv.Itoa(r.IntN(3))}
	case 4:
		o["plugin"] = "no-such-plugin"
	case 5:
		o["plugin"], o["configFrom"] = "rate-limiting", map[string]any{"secretKeyRef": map[string]any{"name": "cred-0", "key": "rl"}}
	default:
		o["plugin"], o["config"] = "request-transformer", map[string]any{"add": map[string]any{"headers": []any{"x-soak:" + strconv.Itoa(r.IntN(5))}}}
	}
}

func (w *world) kongPlugin(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("KongPlugin", "configuration.konghq.com", "v1", ns, name)
	pluginBody(r, o)
	return o
}

func (w *world) kongClusterPlugin(r *rand.Rand, _, name string) map[string]any {
	o := w.meta("KongClusterPlugin", "configuration.konghq.com", "v1", "", name)
	setAnn(o, "kubernetes.io/ingress.class", pick(r, w.class, w.class, w.class+"-other"))
	if r.IntN(2) == 0 {
		setLabel(o, "global", "true")
	}
	pluginBody(r, o)
	return o
}

func (w *world) kongConsumer(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("KongConsumer", "configuration.konghq.com", "v1", ns, name)
	setAnn(o, "kubernetes.io/ingress.class", pick(r, w.class, w.class, w.class+"-other"))
	o["username"] = pick(r, "alice", "bob", "carol", "dave")
	if r.IntN(3) == 0 {
		o["custom_id"] = pick(r, "c1", "c2")
	}
	if r.IntN(3) != 0 {
		o["credentials"] = []any{pick(r, "cred-0", "cred-1", "cred-2", "cred-none")}
	}
	o["consumerGroups"] = consumerGroupsOf(name)
	return o
}

func (w *world) upstreamPolicy(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("KongUpstreamPolicy", "configuration.konghq.com", "v1beta1", ns, name)
	spec := map[string]any{"algorithm": pick(r, "round-robin", "least-connections", "consistent-hashing")}
	if spec["algorithm"] == "consistent-hashing" {
		spec["hashOn"] = map[string]any{"header": "x-user"}
	}
	if r.IntN(2) == 0 {
		spec["slots"] = pick(r, 100, 1000, 5)
	}
	o["spec"] = spec
	return o
}

func (w *world) gatewayClass(r *rand.Rand, _, name string) map[string]any {
	o := w.meta("GatewayClass", "gateway.networking.k8s.io", "v1", "", name)
	o["spec"] = map[string]any{"controllerName": "konghq.com/kic-gateway-controller"}
	return o
}

func (w *world) gateway(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("Gateway", "gateway.networking.k8s.io", "v1", ns, name)
	from := pick(r, "All", "Same")
	o["spec"] = map[string]any{
		"gatewayClassName": pick(r, w.prefix+"-gwc", w.prefix+"-gwc", w.prefix+"-nowhere"),
		"listeners": []any{map[string]any{"name": "http", "protocol": "HTTP", "port": pick(r, 80, 8000),
			"allowedRoutes": map[string]any{"namespaces": map[string]any{"from": from}}}},
	}
	return o
}

func (w *world) httpRoute(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("HTTPRoute", "gateway.networking.k8s.io", "v1", ns, name)
	parent := map[string]any{"name": "gw"}
	if r.IntN(4) == 0 {
		parent["namespace"] = w.otherNS(r)
	}
	backend := map[string]any{"name": pick(r, "svc-0", "svc-1", "svc-2", "missing"), "port": pick(r, 80, 80, 8080)}
	if r.IntN(4) == 0 {
		backend["namespace"] = w.otherNS(r)
	}
	o["spec"] = map[string]any{
		"parentRefs": []any{parent},
		"hostnames":  []any{w.host(r)},
		"rules": []any{map[string]any{
			"matches":     []any{map[string]any{"path": map[string]any{"type": "PathPrefix", "value": pick(r, "/", "/api", "/gw")}}},
			"backendRefs": []any{backend},
		}},
	}
	return o
}

func (w *world) referenceGrant(r *rand.Rand, ns, name string) map[string]any {
	o := w.meta("ReferenceGrant", "gateway.networking.k8s.io", "v1beta1", ns, name)
	o["spec"] = map[string]any{
		"from": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "namespace": w.otherNS(r)}},
		"to":   []any{map[string]any{"group": "", "kind": "Service"}},
	}
	return o
}

// l4Ingress is a TCPIngress or UDPIngress: listener ports that collide, an SNI host now and
// then (TCP), backends that may be missing or name a port the Service lacks.
func (w *world) l4Ingress(r *rand.Rand, ns, name string) map[string]any {
	kind := "TCPIngress"
	if name[0] == 'u' {
		kind = "UDPIngress"
	}
	o := w.meta(kind, "configuration.konghq.com", "v1beta1", ns, name)
	setAnn(o, "kubernetes.io/ingress.class", pick(r, w.class, w.class, w.class+"-other"))
	var rules []any
	for range 1 + r.IntN(2) {
		rule := map[string]any{"port": pick(r, 8888, 8899, 9999),
			"backend": map[string]any{"serviceName": pick(r, "svc-0", "svc-1", "missing"), "servicePort": pick(r, 80, 8080, 7)}}
		if kind == "TCPIngress" && r.IntN(2) == 0 {
			rule["host"] = w.host(r)
		}
		rules = append(rules, rule)
	}
	o["spec"] = map[string]any{"rules": rules}
	return o
}

// pickKind chooses a kind by weight.
func pickKind(r *rand.Rand, kinds []soakKind) *soakKind {
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	n := r.IntN(total)
	for i := range kinds {
		if n < kinds[i].weight {
			return &kinds[i]
		}
		n -= kinds[i].weight
	}
	return &kinds[0]
}
