package workload

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

func write(t *testing.T, c Config, format string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, c, format); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteDecodesWithCounts(t *testing.T) {
	c := Config{Ingresses: 7, TLSSecrets: 3, UnrelatedSecrets: 2, SecretSize: 1000, Namespaces: 3, UIDs: true}
	for _, format := range []string{"yaml", "json"} {
		t.Run(format, func(t *testing.T) {
			objs, notes, err := store.DecodeManifests("w", bytes.NewReader(write(t, c, format)))
			if err != nil {
				t.Fatal(err)
			}
			if len(notes) != 0 {
				t.Fatalf("notes = %v", notes)
			}
			st, loadNotes := store.Load(objs)
			if len(loadNotes) != 0 {
				t.Fatalf("load notes: %v", loadNotes)
			}
			snap := st.Snapshot()
			want := map[store.Kind]int{store.KindIngress: 7, store.KindService: 7, store.KindEndpointSlice: 7,
				store.KindIngressClass: 1, store.KindSecret: 5, store.KindNamespace: 3}
			for k, n := range want {
				if got := snap.Len(k); got != n {
					t.Errorf("%s: %d objects, want %d", k, got, n)
				}
			}
			checkObjects(t, c, snap)
		})
	}
}

// checkObjects verifies the shape the benchmarks rely on: every Ingress resolves to its Service
// and a 2-endpoint slice; TLS Ingresses name a Secret whose certificate covers their host.
func checkObjects(t *testing.T, c Config, snap *store.Snapshot) {
	t.Helper()
	tlsCount, addrs := 0, map[string]bool{}
	for _, ing := range snap.Ingresses() {
		if ing.UID == "" || *ing.Spec.IngressClassName != ClassName || len(ing.Spec.Rules) != 1 {
			t.Fatalf("ingress %s: %+v", ing.Name, ing.Spec)
		}
		rule := ing.Spec.Rules[0]
		p := rule.HTTP.Paths[0]
		if *p.PathType != networkingv1.PathTypePrefix || p.Backend.Service.Port.Number != ServicePort {
			t.Fatalf("ingress %s path %+v", ing.Name, p)
		}
		svc, ok := snap.Service(ing.Namespace, p.Backend.Service.Name)
		if !ok || svc.Spec.Ports[0].Port != ServicePort {
			t.Fatalf("ingress %s: no service", ing.Name)
		}
		slices := snap.EndpointSlicesFor(ing.Namespace, svc.Name)
		if len(slices) != 1 || len(slices[0].Endpoints) != 2 {
			t.Fatalf("service %s: slices %v", svc.Name, slices)
		}
		for _, ep := range slices[0].Endpoints {
			checkEndpoint(t, ep, addrs)
		}
		for _, tl := range ing.Spec.TLS {
			tlsCount++
			sec, ok := snap.Secret(ing.Namespace, tl.SecretName)
			if !ok || sec.Type != corev1.SecretTypeTLS {
				t.Fatalf("ingress %s: TLS secret %s missing", ing.Name, tl.SecretName)
			}
			checkCert(t, sec, rule.Host)
		}
	}
	if tlsCount != c.TLSSecrets {
		t.Fatalf("%d Ingresses with TLS, want %d", tlsCount, c.TLSSecrets)
	}
}

func checkEndpoint(t *testing.T, ep discoveryv1.Endpoint, seen map[string]bool) {
	t.Helper()
	a, err := netip.ParseAddr(ep.Addresses[0])
	if err != nil || !netip.MustParsePrefix("10.0.0.0/8").Contains(a) || seen[a.String()] {
		t.Fatalf("address %v: want unique 10.x (err %v)", ep.Addresses, err)
	}
	seen[a.String()] = true
	if !*ep.Conditions.Ready || !*ep.Conditions.Serving || *ep.Conditions.Terminating {
		t.Fatalf("conditions %+v", ep.Conditions)
	}
}

func checkCert(t *testing.T, sec *corev1.Secret, host string) {
	t.Helper()
	pair, err := tls.X509KeyPair(sec.Data[corev1.TLSCertKey], sec.Data[corev1.TLSPrivateKeyKey])
	if err != nil {
		t.Fatalf("secret %s: %v", sec.Name, err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.VerifyHostname(host); err != nil {
		t.Fatalf("secret %s: %v", sec.Name, err)
	}
}

func TestDeterministic(t *testing.T) {
	c := Config{Ingresses: 5, TLSSecrets: 2, UnrelatedSecrets: 1, SecretSize: 300, Namespaces: 2, Seed: 9, UIDs: true}
	a, b := write(t, c, "yaml"), write(t, c, "yaml")
	if !bytes.Equal(a, b) {
		t.Fatal("same config, different output")
	}
	c.Seed = 10
	other := write(t, c, "yaml")
	if bytes.Equal(a, other) {
		t.Fatal("a different seed must change UIDs, keys and data")
	}
	if strings.Count(string(a), "name: app-00004\n") != strings.Count(string(other), "name: app-00004\n") {
		t.Fatal("a different seed must not change names")
	}
	c.UIDs = false
	if strings.Contains(string(write(t, c, "yaml")), "uid:") {
		t.Fatal("-uids=false must leave metadata.uid out")
	}
}

func TestOpaqueSecretSize(t *testing.T) {
	objs, err := Objects(Config{Ingresses: 1, UnrelatedSecrets: 2, SecretSize: 256 << 10, Namespaces: 1})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, o := range objs {
		if s, ok := o.(*corev1.Secret); ok {
			sizes = append(sizes, len(s.Data["blob"]))
		}
	}
	if len(sizes) != 2 || sizes[0] != 256<<10 || sizes[1] != 256<<10 {
		t.Fatalf("secret sizes %v", sizes)
	}
}

func TestValidate(t *testing.T) {
	bad := []Config{
		{Ingresses: 1, TLSSecrets: 2, Namespaces: 1},
		{Ingresses: 1, Namespaces: 0},
		{Ingresses: -1, Namespaces: 1},
		{Ingresses: 1<<22 + 1, Namespaces: 1},
	}
	for _, c := range bad {
		if err := Each(c, nil); err == nil {
			t.Errorf("%+v: want an error", c)
		}
	}
}

func TestAddressSkipsReservedHosts(t *testing.T) {
	cases := map[int]string{0: "10.0.0.2", 252: "10.0.0.254", 253: "10.0.1.2", 253 * 256: "10.1.0.2"}
	for j, want := range cases {
		if got := address(j); got != want {
			t.Errorf("address(%d) = %s, want %s", j, got, want)
		}
	}
}

func TestParseSize(t *testing.T) {
	cases := map[string]int{"256KiB": 256 << 10, "1MiB": 1 << 20, "300Ki": 300 << 10, "4096": 4096, "2M": 2000000, "10B": 10}
	for in, want := range cases {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "KiB", "-1", "1GiB", "abc"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q): want an error", in)
		}
	}
}

// TestConsumersTranslate: each generated KongConsumer becomes a Kong consumer with its one
// key-auth credential and joins its group, and nothing is reported, so the option measures the
// consumer path.
func TestConsumersTranslate(t *testing.T) {
	c := Defaults(4)
	c.Consumers, c.ConsumerGroups = 3, 2
	objs, notes, err := store.DecodeManifests("w", bytes.NewReader(write(t, c, "yaml")))
	if err != nil || len(notes) != 0 {
		t.Fatalf("decode: %v %v", notes, err)
	}
	st, loadNotes := store.Load(objs)
	if len(loadNotes) != 0 {
		t.Fatalf("load notes: %v", loadNotes)
	}
	res, err := translator.BuildOnce(st.Snapshot(), translator.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 {
		t.Fatalf("problems: %v", res.Problems)
	}
	keys := map[string]bool{}
	for _, cons := range res.Document.Consumers {
		if len(cons.KeyAuths) != 1 || cons.KeyAuths[0].Key == nil || keys[*cons.KeyAuths[0].Key] {
			t.Fatalf("consumer %s: key-auth credentials %v", *cons.Username, cons.KeyAuths)
		}
		keys[*cons.KeyAuths[0].Key] = true
	}
	if len(res.Document.Consumers) != 3 {
		t.Fatalf("%d consumers, want 3", len(res.Document.Consumers))
	}
	if len(res.Document.ConsumerGroups) != 2 || len(res.Document.ConsumerGroupConsumers) != 3 {
		t.Fatalf("%d groups and %d memberships, want 2 and 3", len(res.Document.ConsumerGroups),
			len(res.Document.ConsumerGroupConsumers))
	}
	if m := res.Document.ConsumerGroupConsumers[2]; m.Consumer != "consumer-00002" || m.ConsumerGroup != "group-00000" {
		t.Fatalf("membership %+v, want consumer-00002 in group-00000", m)
	}
}

func TestConsumerGroupsMultipleOfNamespaces(t *testing.T) {
	c := Defaults(1)
	c.ConsumerGroups, c.Namespaces = 3, 2
	if c.Validate() == nil {
		t.Fatal("3 groups over 2 namespaces accepted")
	}
}

// TestPluginsTranslate: with -plugins K over several namespaces, every Ingress's route gets the
// KongPlugin i mod K of its own namespace, and nothing is reported.
func TestPluginsTranslate(t *testing.T) {
	c := Defaults(7)
	c.Plugins, c.Namespaces = 3, 2
	objs, notes, err := store.DecodeManifests("w", bytes.NewReader(write(t, c, "yaml")))
	if err != nil || len(notes) != 0 {
		t.Fatalf("decode: %v %v", notes, err)
	}
	st, loadNotes := store.Load(objs)
	if len(loadNotes) != 0 {
		t.Fatalf("load notes: %v", loadNotes)
	}
	if n := st.Snapshot().Len(store.KindKongPlugin); n != 3*2 {
		t.Fatalf("%d KongPlugins, want 6", n)
	}
	res, err := translator.BuildOnce(st.Snapshot(), translator.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 {
		t.Fatalf("problems: %v", res.Problems)
	}
	if len(res.Document.Plugins) != 7 {
		t.Fatalf("%d plugins, want one per Ingress (7)", len(res.Document.Plugins))
	}
	g := newGen(c)
	want := map[string]string{} // route name prefix → plugin name tag
	for i := range 7 {
		want[g.ns(i)+"."+g.name("app", i)+"."] = "k8s-name:" + g.pluginName(i)
	}
	for _, p := range res.Document.Plugins {
		route := *p.Route.Name
		prefix := route[:strings.Index(route, ".app-")+len(".app-00000.")]
		if tag := *p.Tags[0]; want[prefix] != tag || *p.Tags[1] != "k8s-namespace:"+route[:strings.IndexByte(route, '.')] {
			t.Errorf("route %s has plugin %s (%s), want %s", route, tag, *p.Tags[1], want[prefix])
		}
	}
}
