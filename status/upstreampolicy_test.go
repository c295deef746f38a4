package status

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	kv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// policyManifests: policy p on Services a and b and facade f (a and f back an Ingress of ours; an
// HTTPRoute of ours puts a beside b, and b beside c of policy q: b and c conflict); policy z on
// Service e, which backs only an Ingress of another class (not used); d has no policy.
const policyManifests = `
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: kong}
spec: {controller: ingress-controllers.konghq.com/kong}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kong}
spec: {controllerName: konghq.com/kic-gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: kong
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: configuration.konghq.com/v1beta1
kind: KongUpstreamPolicy
metadata: {name: p, namespace: ns}
spec: {algorithm: round-robin}
---
apiVersion: configuration.konghq.com/v1beta1
kind: KongUpstreamPolicy
metadata: {name: q, namespace: ns}
spec: {algorithm: least-connections}
---
apiVersion: configuration.konghq.com/v1beta1
kind: KongUpstreamPolicy
metadata: {name: z, namespace: ns}
spec: {algorithm: least-connections}
---
apiVersion: v1
kind: Service
metadata: {name: a, namespace: ns, creationTimestamp: "2024-01-01T00:00:00Z", annotations: {konghq.com/upstream-policy: p}}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: b, namespace: ns, creationTimestamp: "2023-01-01T00:00:00Z", annotations: {konghq.com/upstream-policy: p}}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: c, namespace: ns, annotations: {konghq.com/upstream-policy: q}}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: d, namespace: ns}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: e, namespace: ns, annotations: {konghq.com/upstream-policy: z}}
spec: {ports: [{port: 80}]}
---
apiVersion: incubator.ingress-controller.konghq.com/v1alpha1
kind: KongServiceFacade
metadata: {name: f, namespace: ns, creationTimestamp: "2024-01-01T00:00:00Z", annotations: {kubernetes.io/ingress.class: kong, konghq.com/upstream-policy: p}}
spec: {backendRef: {name: d, port: 80}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: ns}
spec:
  ingressClassName: kong
  rules:
  - http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: a, port: {number: 80}}}}
      - {path: /f, pathType: Prefix, backend: {resource: {apiGroup: incubator.ingress-controller.konghq.com, kind: KongServiceFacade, name: f}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: theirs, namespace: ns}
spec:
  ingressClassName: other
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: e, port: {number: 80}}}}]}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{group: "", kind: Service, name: a, port: 80}, {group: "", kind: Service, name: b, port: 80}]
  - backendRefs: [{group: "", kind: Service, name: b, port: 80}, {group: "", kind: Service, name: c, port: 80}]
`

func TestPolicyUses(t *testing.T) {
	objs, notes, err := store.DecodeManifests("test", strings.NewReader(policyManifests))
	if err != nil || len(notes) > 0 {
		t.Fatalf("manifests: %v %v", err, notes)
	}
	st := store.New()
	for _, o := range objs {
		if _, err := st.Upsert(o); err != nil {
			t.Fatal(err)
		}
	}
	snap := st.Snapshot()
	opts := translator.DefaultOptions()
	opts.Features.KongServiceFacade = true
	b, err := translator.NewEngine(opts).Build(snap)
	if err != nil {
		t.Fatal(err)
	}
	configured := func(r store.Ref) bool { return r.Name != "a" } // as if a's entities were not in Kong
	u := policyUses(snap, b.Parents, "kong", false, configured)
	if want := map[string]bool{"ns/p": true, "ns/q": true}; !reflect.DeepEqual(u.used, want) {
		t.Errorf("used = %v, want %v", u.used, want)
	}
	summary := func(key string) string {
		var parts []string
		for _, a := range u.ancestors[key] {
			s := string(a.ref.Kind) + "/" + a.ref.Name
			if a.conflicted {
				s += " conflicted"
			}
			if a.programmed {
				s += " programmed"
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ", ")
	}
	for key, want := range map[string]string{
		// Oldest first, then kind: b (2023), then a and f (2024: KongServiceFacade < Service).
		"ns/p": "Service/b conflicted programmed, KongServiceFacade/f programmed, Service/a",
		"ns/q": "Service/c conflicted programmed",
		"ns/z": "Service/e programmed",
	} {
		if got := summary(key); got != want {
			t.Errorf("%s: %s, want %s", key, got, want)
		}
	}
}

func TestPolicyAncestors(t *testing.T) {
	t0, t1 := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)), metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	const ctrl = translator.DefaultGatewayControllerName
	svc := func(name string) store.Ref { return store.Ref{Kind: store.KindService, Namespace: "ns", Name: name} }
	theirs := kv1beta1.PolicyAncestorStatus{AncestorRef: kv1beta1.AncestorRef{Name: "x"}, ControllerName: "example.com/other",
		Conditions: []metav1.Condition{{Type: "Accepted", Status: "True", Reason: "Accepted", LastTransitionTime: t0}}}
	cur := []kv1beta1.PolicyAncestorStatus{theirs,
		{AncestorRef: ancestorRef(svc("a")), ControllerName: ctrl, Conditions: ancestorConditions(ancestor{programmed: true}, 1)},
		{AncestorRef: ancestorRef(svc("gone")), ControllerName: ctrl, Conditions: ancestorConditions(ancestor{}, 1)}}
	for i := range cur[1].Conditions {
		cur[1].Conditions[i].LastTransitionTime = t0
	}
	out, changed := policyAncestors(cur, []ancestor{{ref: svc("a"), programmed: true}, {ref: svc("b"), conflicted: true, programmed: true}}, 1, ctrl, t1)
	if !changed || len(out) != 3 || out[0].ControllerName != "example.com/other" {
		t.Fatalf("ancestors = %+v (changed %v)", out, changed)
	}
	if a := out[1]; deref(a.AncestorRef.Group) != "core" || deref(a.AncestorRef.Kind) != "Service" || deref(a.AncestorRef.Namespace) != "ns" ||
		a.AncestorRef.Name != "a" || condOf(a.Conditions, "Accepted") != "Accepted=True/Accepted@1" ||
		condOf(a.Conditions, "Programmed") != "Programmed=True/Programmed@1" || !a.Conditions[0].LastTransitionTime.Equal(&t0) {
		t.Errorf("a: %+v", a)
	}
	if b := out[2]; b.AncestorRef.Name != "b" || condOf(b.Conditions, "Accepted") != "Accepted=False/Conflicted@1" ||
		condOf(b.Conditions, "Programmed") != "Programmed=False/Pending@1" || !b.Conditions[0].LastTransitionTime.Equal(&t1) {
		t.Errorf("b: %+v", b)
	}
	if _, changed := policyAncestors(out, []ancestor{{ref: svc("a"), programmed: true}, {ref: svc("b"), conflicted: true}}, 1, ctrl, t1); changed {
		t.Error("the same ancestors reported a change")
	}
	if out, changed := policyAncestors(out, nil, 1, ctrl, t1); !changed || len(out) != 1 || out[0].ControllerName != "example.com/other" {
		t.Errorf("a policy no longer used keeps only others' entries: %+v", out)
	}
	var many []ancestor
	for i := range 20 {
		many = append(many, ancestor{ref: svc("s" + strconv.Itoa(i))})
	}
	if out, _ := policyAncestors([]kv1beta1.PolicyAncestorStatus{theirs}, many, 1, ctrl, t1); len(out) != maxAncestors || out[15].AncestorRef.Name != "s14" {
		t.Errorf("20 ancestors and another controller's: %d entries, last %s", len(out), out[len(out)-1].AncestorRef.Name)
	}
	f := ancestorRef(store.Ref{Kind: store.KindKongServiceFacade, Namespace: "ns", Name: "f"})
	if deref(f.Group) != "incubator.ingress-controller.konghq.com" || deref(f.Kind) != "KongServiceFacade" {
		t.Errorf("facade ref %+v", f)
	}
}

func TestLicenseCondition(t *testing.T) {
	lic := func(name string, created int) *kva.KongLicense {
		return &kva.KongLicense{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(time.Unix(int64(created), 0))}}
	}
	sent := lic("b", 20)
	for _, tc := range []struct {
		l    *kva.KongLicense
		sent *kva.KongLicense
		want string
	}{
		{sent, sent, "True/PickedAsLatest/"},
		{lic("old", 10), sent, "False/ReplacedByNewer/" + messageReplacedByNewer},
		{lic("a", 20), sent, "False/Invalid/" + MessageInvalid}, // as new and a lower name: newer, not sent (empty payload)
		{lic("c", 20), sent, "False/ReplacedByNewer/" + messageReplacedByNewer},
		{lic("new", 30), sent, "False/Invalid/" + MessageInvalid},
		{lic("x", 10), nil, "False/Invalid/" + MessageInvalid}, // Kong is not Enterprise
	} {
		c := licenseCondition(tc.l, tc.sent)
		if got := string(c.Status) + "/" + c.Reason + "/" + c.Message; got != tc.want || c.Type != "Programmed" {
			t.Errorf("%s: %s %s, want %s", tc.l.Name, c.Type, got, tc.want)
		}
	}
	t0, t1 := metav1.NewTime(time.Unix(0, 0)), metav1.NewTime(time.Unix(100, 0))
	other := kva.KongLicenseControllerStatus{ControllerName: "konghq.com/kong-ingress-controller/other"}
	out, changed := licenseControllers([]kva.KongLicenseControllerStatus{other}, "konghq.com/kong-ingress-controller/id", licenseCondition(sent, sent), t0)
	if !changed || len(out) != 2 || out[0].ControllerName != other.ControllerName || condOf(out[1].Conditions, "Programmed") != "Programmed=True/PickedAsLatest@0" {
		t.Fatalf("controllers = %+v", out)
	}
	if _, changed := licenseControllers(out, "konghq.com/kong-ingress-controller/id", licenseCondition(sent, sent), t1); changed {
		t.Error("the same condition reported a change")
	}
}

// The ProgrammedWriter writes KongUpstreamPolicy ancestors and KongLicense controller statuses
// from the configuration every Kong holds, and nothing again while nothing changes.
func TestPolicyAndLicenseStatusWritten(t *testing.T) {
	objs, notes, err := store.DecodeManifests("test", strings.NewReader(policyManifests+licenseManifests))
	if err != nil || len(notes) > 0 {
		t.Fatalf("manifests: %v %v", err, notes)
	}
	st, rv := store.New(), 0
	upsert := func(o store.Object) {
		rv++
		o.SetResourceVersion(strconv.Itoa(rv))
		if o.GetGeneration() == 0 {
			o.SetGeneration(1)
		}
		if _, err := st.Upsert(o); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range objs {
		upsert(o)
	}
	opts := translator.DefaultOptions()
	opts.Features.KongServiceFacade, opts.KongEnterprise = true, true
	eng := translator.NewEngine(opts)
	written := map[store.Ref]map[string]any{}
	dyn := dynfake.NewSimpleDynamicClient(runtime.NewScheme())
	dyn.PrependReactor("patch", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		pa := a.(clienttesting.PatchAction)
		var body struct {
			Status map[string]any `json:"status"`
		}
		if err := json.Unmarshal(pa.GetPatch(), &body); err != nil || pa.GetSubresource() != "status" {
			t.Fatalf("patch %s: %v", pa.GetPatch(), err)
		}
		kind := map[string]store.Kind{"kongupstreampolicies": store.KindKongUpstreamPolicy, "konglicenses": store.KindKongLicense,
			"kongservicefacades": store.KindKongServiceFacade}[pa.GetResource().Resource]
		written[store.Ref{Kind: kind, Namespace: pa.GetNamespace(), Name: pa.GetName()}] = body.Status
		u := &unstructured.Unstructured{}
		u.SetResourceVersion("w")
		return true, u, nil
	})
	facadeGV := schema.GroupVersion{Group: facadeGroup, Version: "v1alpha1"}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{kv1beta1.SchemeGroupVersion, kva.SchemeGroupVersion, facadeGV})
	mapper.Add(kv1beta1.SchemeGroupVersion.WithKind("KongUpstreamPolicy"), meta.RESTScopeNamespace)
	mapper.Add(kva.SchemeGroupVersion.WithKind("KongLicense"), meta.RESTScopeRoot)
	mapper.Add(facadeGV.WithKind("KongServiceFacade"), meta.RESTScopeNamespace)
	w := NewProgrammedWriter(dyn, mapper, logr.Discard(), ProgrammedOptions{IngressClass: "kong", ElectionID: "5b374a9e.konghq.com"})
	w.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	w.Held = func(string) bool { return true }
	offer := func() ProgrammedPass {
		snap := st.Snapshot()
		b, err := eng.Build(snap)
		if err != nil {
			t.Fatal(err)
		}
		w.Offer(kongsync.Published{Snapshot: snap, Result: b.Result, Hash: b.Hash()})
		var p ProgrammedPass
		w.Passed = func(x ProgrammedPass) { p = x }
		w.pass(context.Background())
		return p
	}
	offer()
	ancestors := func(name string) string {
		raw, _ := json.Marshal(written[store.Ref{Kind: store.KindKongUpstreamPolicy, Namespace: "ns", Name: name}]["ancestors"])
		var as []kv1beta1.PolicyAncestorStatus
		_ = json.Unmarshal(raw, &as)
		var parts []string
		for _, a := range as {
			parts = append(parts, deref(a.AncestorRef.Kind)+"/"+a.AncestorRef.Name+" "+a.ControllerName+" "+
				condOf(a.Conditions, "Accepted")+" "+condOf(a.Conditions, "Programmed"))
		}
		return strings.Join(parts, "; ")
	}
	const ctrl = translator.DefaultGatewayControllerName
	// b and c are conflicted: the translator drops both Kong services (their annotations
	// disagree), so neither is in Kong; a and f are.
	if got, want := ancestors("p"), "Service/b "+ctrl+" Accepted=False/Conflicted@1 Programmed=False/Pending@1; "+
		"KongServiceFacade/f "+ctrl+" Accepted=True/Accepted@1 Programmed=True/Programmed@1; "+
		"Service/a "+ctrl+" Accepted=True/Accepted@1 Programmed=True/Programmed@1"; got != want {
		t.Errorf("p:\n got %s\nwant %s", got, want)
	}
	if _, ok := written[store.Ref{Kind: store.KindKongUpstreamPolicy, Namespace: "ns", Name: "z"}]; ok {
		t.Error("z, used by no backend of ours, got a status")
	}
	facade := written[store.Ref{Kind: store.KindKongServiceFacade, Namespace: "ns", Name: "f"}]
	if raw, _ := json.Marshal(facade); !strings.Contains(string(raw), `"reason":"Programmed"`) {
		t.Errorf("facade f Programmed: %s", raw)
	}
	licenses := map[string]string{}
	for ref, s := range written {
		if ref.Kind != store.KindKongLicense {
			continue
		}
		raw, _ := json.Marshal(s["controllers"])
		var cs []kva.KongLicenseControllerStatus
		_ = json.Unmarshal(raw, &cs)
		licenses[ref.Name] = cs[0].ControllerName + " " + condOf(cs[0].Conditions, "Programmed")
	}
	const lc = "konghq.com/kong-ingress-controller/5b374a9e.konghq.com "
	if want := map[string]string{"newest": lc + "Programmed=True/PickedAsLatest@0", "older": lc + "Programmed=False/ReplacedByNewer@0"}; !reflect.DeepEqual(licenses, want) {
		t.Errorf("licenses:\n got %v\nwant %v", licenses, want)
	}

	// The store takes the writes; the next pass writes nothing.
	for ref, s := range written {
		o, _ := st.Snapshot().Get(ref)
		o = o.DeepCopyObject().(store.Object)
		raw, _ := json.Marshal(s)
		switch x := o.(type) {
		case *kv1beta1.KongUpstreamPolicy:
			_ = json.Unmarshal(raw, &x.Status)
		case *kva.KongLicense:
			_ = json.Unmarshal(raw, &x.Status)
		default:
			var c struct{ Conditions []metav1.Condition }
			_ = json.Unmarshal(raw, &c)
			setConditions(o, c.Conditions)
		}
		upsert(o)
	}
	clear(written)
	if p := offer(); p.Writes != 0 || len(written) != 0 {
		keys := slices.Collect(func(yield func(store.Ref) bool) {
			for k := range written {
				if !yield(k) {
					return
				}
			}
		})
		t.Errorf("second pass wrote %v (%+v)", keys, p)
	}
}

// setConditions sets a Programmed kind's status.conditions (the kinds these tests write).
func setConditions(o store.Object, cs []metav1.Condition) {
	for _, k := range programmedKinds {
		if k.kind == kindOf(o) {
			raw, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": cs}})
			_ = json.Unmarshal(raw, o)
		}
	}
}

func kindOf(o store.Object) store.Kind {
	k, _ := store.KindOf(o)
	return k
}

const licenseManifests = `
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongLicense
metadata: {name: older, creationTimestamp: "2024-01-01T00:00:00Z"}
rawLicenseString: '{"license":"old"}'
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongLicense
metadata: {name: newest, creationTimestamp: "2025-01-01T00:00:00Z"}
rawLicenseString: '{"license":"new"}'
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongLicense
metadata: {name: disabled, creationTimestamp: "2026-01-01T00:00:00Z"}
rawLicenseString: '{"license":"off"}'
enabled: false
`
