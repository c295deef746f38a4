//go:build integration

package integration

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/internal/kongdouble"
)

// A KongUpstreamPolicy (configuration.konghq.com/v1beta1, watched through discovery like the
// v1 Kong CRDs) named by a Service's konghq.com/upstream-policy shapes that Service's upstream
// in Kong; updating the policy updates the upstream, deleting it restores the defaults.
func TestKongUpstreamPolicyFromCRD(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	dyn := dynamic.NewForConfigOrDie(plane.RestConfig())
	policies := dyn.Resource(configurationv1beta1.SchemeGroupVersion.WithResource("kongupstreampolicies")).Namespace(ns)
	kup := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "configuration.konghq.com/v1beta1", "kind": "KongUpstreamPolicy",
		"metadata": map[string]any{"name": "hashing", "namespace": ns},
		"spec": map[string]any{"algorithm": "consistent-hashing", "slots": int64(100),
			"hashOn": map[string]any{"header": "x-user"}},
	}}
	created, err := policies.Create(ctxT(t), kup, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := app{ns: ns, name: "web", host: "policy.example.com"}
	svc := a.service()
	svc.Annotations = map[string]string{configurationv1beta1.UpstreamPolicyAnnotation: "hashing"}
	if _, err := admin.CoreV1().Services(ns).Create(ctxT(t), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctxT(t), a.ingress(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kong := newDouble(t)
	startKongsync(t, "kup", ns, []*kongdouble.Server{kong}, nil)
	name := "web." + ns + ".80.svc"
	waitDouble(t, kong, "the policy on the upstream", func() bool {
		u := upstreamIn(kong, name)
		return u["algorithm"] == "consistent-hashing" && u["hash_on"] == "header" && u["hash_on_header"] == "x-user" &&
			u["slots"] == float64(100)
	})
	created.Object["spec"] = map[string]any{"algorithm": "least-connections"}
	if _, err := policies.Update(ctxT(t), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the updated policy on the upstream", func() bool {
		u := upstreamIn(kong, name)
		return u["algorithm"] == "least-connections" && u["hash_on"] == nil && u["slots"] == nil
	})
	if err := policies.Delete(ctxT(t), "hashing", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the default algorithm once the policy is gone", func() bool {
		u := upstreamIn(kong, name)
		return u["algorithm"] == "round-robin" && hasHost(kong, a.host)
	})
}

// upstreamIn returns the upstream named name in the double's current config (nil: absent).
func upstreamIn(d *kongdouble.Server, name string) map[string]any {
	var cfg struct {
		Upstreams []map[string]any `json:"upstreams"`
	}
	if err := json.Unmarshal([]byte(d.Config()), &cfg); err != nil {
		return nil
	}
	for _, u := range cfg.Upstreams {
		if u["name"] == name {
			return u
		}
	}
	return nil
}

// ancestorsOf is a KongUpstreamPolicy's status.ancestors of kongsync's controller, compactly.
func ancestorsOf(t *testing.T, r dynamic.ResourceInterface, name string) string {
	t.Helper()
	u, err := r.Get(ctxT(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(u.Object["status"])
	var st configurationv1beta1.PolicyStatus
	_ = json.Unmarshal(raw, &st)
	var out []string
	for _, a := range st.Ancestors {
		if a.ControllerName != "konghq.com/kic-gateway-controller" {
			continue
		}
		kind := ""
		if a.AncestorRef.Kind != nil {
			kind = *a.AncestorRef.Kind
		}
		out = append(out, kind+"/"+a.AncestorRef.Name+" "+condStr(a.Conditions, "Accepted")+" "+condStr(a.Conditions, "Programmed"))
	}
	return strings.Join(out, "; ")
}

// With status writing, a KongUpstreamPolicy lists the Services naming it among its ancestors,
// as KIC does: Accepted, and Programmed once the Service's entities are in Kong; a Service
// naming it that backs nothing of ours is listed too (Programmed Pending), once the policy is
// used at all; a policy no backend of ours uses gets no status.
func TestKongUpstreamPolicyAncestors(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	ctx := ctxT(t)
	policies := kongResource("v1beta1", "kongupstreampolicies", ns)
	for _, name := range []string{"used", "unused"} {
		pol := kongObject("v1beta1", "KongUpstreamPolicy", ns, name, "", map[string]any{"spec": map[string]any{"algorithm": "least-connections"}})
		if _, err := policies.Create(ctx, pol, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	web := app{ns: ns, name: "web", host: "ancestors.example.com"}
	for name, policy := range map[string]string{"web": "used", "idle": "used", "alone": "unused"} {
		svc := app{ns: ns, name: name}.service()
		svc.Annotations = map[string]string{configurationv1beta1.UpstreamPolicyAnnotation: policy}
		if _, err := admin.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctx, web.ingress(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kong := newDouble(t)
	startKongsync(t, "ancestors", ns, []*kongdouble.Server{kong}, statusConfig)
	waitWatched(t, policies, "the policy's ancestors", func() bool {
		got := ancestorsOf(t, policies, "used")
		return got == "Service/idle Accepted=True/Accepted Programmed=False/Pending; Service/web Accepted=True/Accepted Programmed=True/Programmed" ||
			got == "Service/web Accepted=True/Accepted Programmed=True/Programmed; Service/idle Accepted=True/Accepted Programmed=False/Pending"
	})
	if got := ancestorsOf(t, policies, "unused"); got != "" {
		t.Errorf("a policy no backend of ours uses: ancestors %q", got)
	}
}
