package translator

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// TestEngineDirectedTenancy runs scripted changes at the global names two namespaces contend
// for: a credential value (the oldest KongConsumer holding it keeps it, never both skipped) and
// a CA certificate id (a Service trusts only the Secret it names). Each step's warm build must
// equal BuildOnce, and the step's outcome is checked.
func TestEngineDirectedTenancy(t *testing.T) {
	t.Run("credential-value", directedCredentialValue)
	t.Run("shared-secret-many-consumers", directedSharedSecret)
	t.Run("ca-certificate-id", directedCAID)
	t.Run("hardening", directedHardening)
}

// directedHardening: with both hardening options on, a Service turns ExternalName and back and
// an EndpointSlice loses and regains the endpoint controller's label; each warm build equals a
// cold one with the same options, and the refused targets are gone.
func directedHardening(t *testing.T) {
	opts := DefaultOptions()
	opts.Hardening = Hardening{RefuseExternalNameServices: true, RefuseUnmanagedEndpointSlices: true}
	pt := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "web",
		Annotations: map[string]string{annIngressClass: "kong"}},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "web.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/", PathType: &pt, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
					Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}}}
	st, eng := store.New(), NewEngine(opts)
	step := func(what string, o store.Object, wantTargets int) {
		t.Helper()
		upsertOrFail(t, st, o)
		snap := st.Snapshot()
		got, err := eng.Build(snap)
		if err != nil {
			t.Fatal(err)
		}
		if msg := builtMismatch(got, coldBuildWith(t, snap, opts)); msg != "" {
			t.Fatalf("%s: the warm build differs from BuildOnce\n%s", what, msg)
		}
		n := 0
		for _, u := range got.Document.Upstreams {
			n += len(u.Targets)
		}
		if n != wantTargets {
			t.Errorf("%s: %d targets, want %d", what, n, wantTargets)
		}
	}
	step("the Ingress", ing, 0)
	step("its Service", webService(false), 0)
	step("an EndpointSlice the controller manages", webSlice(endpointSliceController), 1)
	step("the label changed by hand", webSlice("someone-else"), 0)
	step("the label back", webSlice(endpointSliceController), 1)
	step("the Service made ExternalName", webService(true), 0)
	step("the Service back", webService(false), 1)
}

var tenancyEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func tenancyConsumer(ns, name string, age time.Duration, secrets ...string) *configurationv1.KongConsumer {
	return &configurationv1.KongConsumer{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		ResourceVersion: fmt.Sprint(time.Now().UnixNano()), CreationTimestamp: metav1.NewTime(tenancyEpoch.Add(age)),
		Annotations: map[string]string{annIngressClass: "kong"}}, Username: ns + "-" + name, Credentials: secrets}
}

func keySecret(ns, name, key string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: fmt.Sprint(time.Now().UnixNano()),
		Labels: map[string]string{labelCredential: credKeyAuth}}, Data: map[string][]byte{"key": []byte(key)}}
}

// consumersIn are the usernames of a build's consumers.
func consumersIn(b Built) []string {
	var out []string
	for _, c := range b.Document.Consumers {
		out = append(out, *c.Username)
	}
	return out
}

func wantConsumers(t *testing.T, step string, b Built, want ...string) {
	t.Helper()
	if got := consumersIn(b); !slices.Equal(got, want) {
		t.Errorf("%s: consumers %v, want %v", step, got, want)
	}
}

// directedCredentialValue: a thief in team-b reuses the key of a victim in team-a. The victim,
// older, keeps its consumer; the thief is skipped; then the thief's key changes, the victim goes
// and comes back, and the thief becomes the older one.
func directedCredentialValue(t *testing.T) {
	s := newScripted(t, []store.Object{
		tenancyConsumer("team-a", "victim", 0, "key"), keySecret("team-a", "key", "k1"),
	})
	b := s.upsert("the thief reuses the victim's key", tenancyConsumer("team-b", "thief", time.Hour, "stolen"))
	wantConsumers(t, "thief without Secret yet", b, "team-a-victim", "team-b-thief")
	b = s.upsert("the thief's Secret appears", keySecret("team-b", "stolen", "k1"))
	wantConsumers(t, "thief holds the key", b, "team-a-victim")
	if !hasProblem(b.Result, "KongConsumer team-b/thief", "already used by the older KongConsumer team-a/victim") ||
		!hasProblem(b.Result, "Secret team-b/stolen", "KongConsumer team-b/thief, which lists this Secret, is skipped") {
		t.Errorf("the thief's problems are missing: %v", b.Problems)
	}
	for _, p := range b.Problems {
		if p.Object.Namespace == "team-a" {
			t.Errorf("a problem on the victim: %s", p)
		}
	}
	b = s.upsert("the thief's key changes", keySecret("team-b", "stolen", "k2"))
	wantConsumers(t, "different keys", b, "team-a-victim", "team-b-thief")
	b = s.upsert("the thief's key is the victim's again", keySecret("team-b", "stolen", "k1"))
	wantConsumers(t, "the key again", b, "team-a-victim")
	b = s.delete("the victim goes", store.Ref{Kind: store.KindKongConsumer, Namespace: "team-a", Name: "victim"})
	wantConsumers(t, "victim gone", b, "team-b-thief")
	b = s.upsert("the victim comes back", tenancyConsumer("team-a", "victim", 0, "key"))
	wantConsumers(t, "victim back", b, "team-a-victim")
	b = s.upsert("the thief is made older", tenancyConsumer("team-b", "thief", -time.Hour, "stolen"))
	wantConsumers(t, "thief older", b, "team-b-thief")
	s.upsert("one thief Secret listed twice and a second holding the key",
		tenancyConsumer("team-b", "thief", -time.Hour, "stolen", "stolen", "copy"))
	b = s.upsert("the copy appears", keySecret("team-b", "copy", "k1"))
	wantConsumers(t, "thief holding its key twice", b, "team-b-thief")
	if !hasProblem(b.Result, "KongConsumer team-b/thief", "repeats the key-auth key of credentials[0]") {
		t.Errorf("no problem on the repeated key: %v", b.Problems)
	}
}

// directedSharedSecret: one Secret listed by more consumers than the stage follows one by one
// changes its key, to and from the victim's; the stage starts over and must still equal a cold
// build.
func directedSharedSecret(t *testing.T) {
	objs := []store.Object{tenancyConsumer("team-a", "victim", 0, "key"), keySecret("team-a", "key", "k1"),
		keySecret("team-b", "shared", "mine")}
	for i := range maxDelta + 10 {
		objs = append(objs, tenancyConsumer("team-b", fmt.Sprintf("c%03d", i), time.Duration(i+1)*time.Minute, "shared"))
	}
	s := newScripted(t, objs)
	b := s.upsert("the shared Secret takes the victim's key", keySecret("team-b", "shared", "k1"))
	wantConsumers(t, "shared key stolen", b, "team-a-victim")
	b = s.upsert("the shared Secret gives it back", keySecret("team-b", "shared", "mine"))
	wantConsumers(t, "shared key back", b, "team-a-victim", "team-b-c000")
	b = s.delete("the victim goes", store.Ref{Kind: store.KindKongConsumer, Namespace: "team-a", Name: "victim"})
	wantConsumers(t, "victim gone", b, "team-b-c000")
}

// directedCAID: a Service of team-a trusts the CA certificate Secret it names; a Secret of
// team-b reuses its id. Younger, it is skipped; made older, it takes the id, and the Service
// then trusts no CA (a problem says why) instead of the attacker's.
func directedCAID(t *testing.T) {
	const id = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0"
	pt := networkingv1.PathTypePrefix
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app",
		Annotations: map[string]string{annIngressClass: "kong"}},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/", PathType: &pt, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
					Name: "verified", Port: networkingv1.ServiceBackendPort{Number: 443}}}}}}}}}}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "verified", Annotations: map[string]string{
		annProtocol: "https", annTLSVerify: "true", annCACertSecrets: "ca"}},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443}}}}
	caSecret := func(ns, name string, age time.Duration) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(tenancyEpoch.Add(age)),
			ResourceVersion: fmt.Sprint(time.Now().UnixNano()), Labels: map[string]string{caCertLabel: "true"}},
			Data: map[string][]byte{"id": []byte(id), "cert": caCertPEMForTest(t)}}
	}
	s := newScripted(t, []store.Object{ing, svc, caSecret("team-a", "ca", 0)})
	b := s.upsert("team-b's Secret reuses the id", caSecret("team-b", "evil", time.Hour))
	if got := trusted(b); !slices.Equal(got, []string{id}) || caNamespace(b) != "team-a" {
		t.Errorf("younger attacker: the Service trusts %v, Kong gets team %q's certificate", got, caNamespace(b))
	}
	b = s.upsert("team-b's Secret is made older", caSecret("team-b", "evil", -time.Hour))
	if got := trusted(b); len(got) != 0 {
		t.Errorf("older attacker: the Service still trusts %v", got)
	}
	if !hasProblem(b.Result, "Service team-a/verified", "belongs to the older CA certificate Secret team-b/evil") {
		t.Errorf("the victim's Service has no problem: %v", b.Problems)
	}
	b = s.delete("team-b's Secret goes", store.Ref{Kind: store.KindSecret, Namespace: "team-b", Name: "evil"})
	if got := trusted(b); !slices.Equal(got, []string{id}) {
		t.Errorf("attacker gone: the Service trusts %v", got)
	}
	victim, _ := s.st.Get(store.Ref{Kind: store.KindSecret, Namespace: "team-a", Name: "ca"})
	victimCert := victim.(*corev1.Secret).Data["cert"]
	copyOf := caSecret("team-b", "copy", -time.Hour)
	copyOf.Data = map[string][]byte{"id": []byte("7c6b5a49-3827-4165-9a4b-3c2d1e0f9a8b"), "cert": victimCert}
	b = s.upsert("an older team-b Secret holds a copy of the victim's certificate under another id", copyOf)
	if got := trusted(b); len(got) != 0 || len(b.Document.CACertificates) != 1 {
		t.Errorf("older copy: the Service trusts %v; %d CA certificates", got, len(b.Document.CACertificates))
	}
	if !hasProblem(b.Result, "Service team-a/verified", "the older CA certificate Secret team-b/copy of another namespace") {
		t.Errorf("the victim's Service has no problem: %v", b.Problems)
	}
}

// trusted are the CA certificate ids the victim's Kong service trusts.
func trusted(b Built) []string {
	var out []string
	for _, s := range b.Document.Services {
		if *s.Name == "team-a.verified.443" {
			for _, c := range s.CACertificates {
				out = append(out, *c)
			}
		}
	}
	return out
}

// caNamespace is the namespace of the first CA certificate's Secret.
func caNamespace(b Built) string {
	for _, c := range b.Document.CACertificates {
		for _, tag := range c.Tags {
			if ns, ok := strings.CutPrefix(*tag, "k8s-namespace:"); ok {
				return ns
			}
		}
	}
	return ""
}

// webService is Service team-b/web, of type ExternalName or not.
func webService(ext bool) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "web", ResourceVersion: fmt.Sprint(time.Now().UnixNano())},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if ext {
		s.Spec.Type, s.Spec.ExternalName = corev1.ServiceTypeExternalName, "kubernetes.default.svc"
	}
	return s
}

// webSlice is team-b/web's EndpointSlice with one endpoint, managed by managedBy ("": unlabelled).
func webSlice(managedBy string) *discoveryv1.EndpointSlice {
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "web-1",
		ResourceVersion: fmt.Sprint(time.Now().UnixNano()), Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Port: ptrOf(int32(8080))}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.1.0.1"}}}}
	if managedBy != "" {
		es.Labels[discoveryv1.LabelManagedBy] = managedBy
	}
	return es
}
