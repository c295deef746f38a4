package status

import (
	"context"
	"encoding/json"
	"fmt"
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

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

func TestEnsureProgrammed(t *testing.T) {
	t0, t1 := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0))
	c := func(status metav1.ConditionStatus, reason string, gen int64, at metav1.Time) metav1.Condition {
		msg := map[string]string{ReasonProgrammed: MessageProgrammed, ReasonInvalid: MessageInvalid, ReasonPending: MessagePending}[reason]
		return metav1.Condition{Type: ConditionProgrammed, Status: status, Reason: reason, Message: msg, ObservedGeneration: gen, LastTransitionTime: at}
	}
	other := metav1.Condition{Type: "example.com/Other", Status: "True", Reason: "Mine", LastTransitionTime: t0}
	crdDefault := metav1.Condition{Type: ConditionProgrammed, Status: metav1.ConditionUnknown, Reason: "Pending", Message: "Waiting for controller"}
	for _, tc := range []struct {
		name    string
		v       verdict
		cur     []metav1.Condition
		want    []metav1.Condition
		changed bool
	}{
		{"none yet, succeeded", verdictSucceeded, nil, []metav1.Condition{c("True", ReasonProgrammed, 3, t1)}, true},
		{"none yet, unknown: pending", verdictUnknown, []metav1.Condition{other}, []metav1.Condition{other, c("False", ReasonPending, 3, t1)}, true},
		{"CRD default replaced", verdictFailed, []metav1.Condition{crdDefault}, []metav1.Condition{c("False", ReasonInvalid, 3, t1)}, true},
		{"CRD default kept while unknown", verdictUnknown, []metav1.Condition{crdDefault}, []metav1.Condition{crdDefault}, false},
		{"same: untouched", verdictSucceeded, []metav1.Condition{other, c("True", ReasonProgrammed, 3, t0)}, []metav1.Condition{other, c("True", ReasonProgrammed, 3, t0)}, false},
		{"new generation: transition time kept", verdictSucceeded, []metav1.Condition{c("True", ReasonProgrammed, 2, t0)}, []metav1.Condition{c("True", ReasonProgrammed, 3, t0)}, true},
		{"programmed never turned pending", verdictUnknown, []metav1.Condition{c("True", ReasonProgrammed, 2, t0)}, []metav1.Condition{c("True", ReasonProgrammed, 2, t0)}, false},
		{"fails", verdictFailed, []metav1.Condition{c("True", ReasonProgrammed, 3, t0), other}, []metav1.Condition{c("False", ReasonInvalid, 3, t1), other}, true},
		{"pending to programmed", verdictSucceeded, []metav1.Condition{c("False", ReasonPending, 3, t0)}, []metav1.Condition{c("True", ReasonProgrammed, 3, t1)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.cur)
			got, changed := ensureProgrammed(tc.v, 3, tc.cur, t1)
			if changed != tc.changed || !equalConds(got, tc.want) {
				t.Fatalf("got %+v %v, want %+v %v", got, changed, tc.want, tc.changed)
			}
			if !equalConds(tc.cur, before) {
				t.Fatal("the object's conditions were modified in place")
			}
		})
	}
}

func equalConds(a, b []metav1.Condition) bool {
	return slices.EqualFunc(a, b, func(x, y metav1.Condition) bool {
		return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason && x.Message == y.Message &&
			x.ObservedGeneration == y.ObservedGeneration && x.LastTransitionTime.Equal(&y.LastTransitionTime)
	})
}

// programmedManifests: consumers of our class (one with a missing credential Secret), one of
// another class; a KongPlugin on an Ingress, an unreferenced one, an unreferenced one already
// Programmed; consumer groups of our class, of another control plane (no condition, as KIC's
// controllers skip it) and of another class; a KongClusterPlugin of our class used by the Ingress, one of another class.
const programmedManifests = `
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: kong}
spec: {controller: ingress-controllers.konghq.com/kong}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: ns
  annotations: {konghq.com/plugins: "used, cluster"}
spec:
  ingressClassName: kong
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: ns}
spec: {ports: [{port: 80}]}
---
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: alice, namespace: ns, annotations: {kubernetes.io/ingress.class: kong}}
username: alice
---
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: bad, namespace: ns, annotations: {kubernetes.io/ingress.class: kong}}
username: bad
credentials: [missing]
---
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: theirs, namespace: ns, annotations: {kubernetes.io/ingress.class: other}}
username: theirs
---
apiVersion: configuration.konghq.com/v1beta1
kind: KongConsumerGroup
metadata: {name: gold, namespace: ns, annotations: {kubernetes.io/ingress.class: kong}}
---
apiVersion: configuration.konghq.com/v1beta1
kind: KongConsumerGroup
metadata: {name: konnect, namespace: ns, annotations: {kubernetes.io/ingress.class: kong}}
spec: {controlPlaneRef: {type: konnectNamespacedRef, konnectNamespacedRef: {name: cp}}}
---
apiVersion: configuration.konghq.com/v1beta1
kind: KongConsumerGroup
metadata: {name: silver, namespace: ns, annotations: {kubernetes.io/ingress.class: other}}
---
apiVersion: configuration.konghq.com/v1
kind: KongPlugin
metadata: {name: used, namespace: ns}
plugin: key-auth
---
apiVersion: configuration.konghq.com/v1
kind: KongPlugin
metadata: {name: unused, namespace: ns}
plugin: cors
---
apiVersion: configuration.konghq.com/v1
kind: KongPlugin
metadata: {name: was-used, namespace: ns, generation: 4}
plugin: cors
status:
  conditions: [{type: Programmed, status: "True", reason: Programmed, message: x, observedGeneration: 4, lastTransitionTime: "2020-01-01T00:00:00Z"}]
---
apiVersion: configuration.konghq.com/v1
kind: KongClusterPlugin
metadata: {name: cluster, annotations: {kubernetes.io/ingress.class: kong}}
plugin: acl
config: {allow: [a]}
---
apiVersion: configuration.konghq.com/v1
kind: KongClusterPlugin
metadata: {name: other-class, annotations: {kubernetes.io/ingress.class: other}}
plugin: acl
`

// progRig runs a ProgrammedWriter against a fake dynamic client whose status patches it
// records, and plays the informers by loading what was written back into the store.
type progRig struct {
	t       *testing.T
	st      *store.Store
	eng     *translator.Engine
	w       *ProgrammedWriter
	dyn     *dynfake.FakeDynamicClient
	held    bool
	rv      int
	writes  []string
	patched map[store.Ref][]metav1.Condition
}

func newProgRig(t *testing.T) *progRig {
	t.Helper()
	return newProgRigOf(t, programmedManifests, translator.DefaultOptions())
}

func newProgRigOf(t *testing.T, manifests string, opts translator.Options) *progRig {
	t.Helper()
	objs, notes, err := store.DecodeManifests("test", strings.NewReader(manifests))
	if err != nil || len(notes) > 0 {
		t.Fatalf("manifests: %v %v", err, notes)
	}
	r := &progRig{t: t, st: store.New(), eng: translator.NewEngine(opts), held: true,
		patched: map[store.Ref][]metav1.Condition{}}
	for _, o := range objs {
		r.upsert(o)
	}
	r.dyn = dynfake.NewSimpleDynamicClient(runtime.NewScheme())
	r.dyn.PrependReactor("patch", "*", r.patch)
	r.w = r.newWriter()
	return r
}

func (r *progRig) newWriter() *ProgrammedWriter {
	gv := configurationv1.SchemeGroupVersion
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{gv, configurationv1beta1.SchemeGroupVersion,
		configurationv1alpha1.SchemeGroupVersion})
	mapper.Add(gv.WithKind("KongConsumer"), meta.RESTScopeNamespace)
	mapper.Add(gv.WithKind("KongPlugin"), meta.RESTScopeNamespace)
	mapper.Add(gv.WithKind("KongClusterPlugin"), meta.RESTScopeRoot)
	mapper.Add(configurationv1beta1.SchemeGroupVersion.WithKind("KongConsumerGroup"), meta.RESTScopeNamespace)
	mapper.Add(configurationv1alpha1.SchemeGroupVersion.WithKind("KongCustomEntity"), meta.RESTScopeNamespace)
	w := NewProgrammedWriter(r.dyn, mapper, logr.Discard(), ProgrammedOptions{IngressClass: "kong"})
	w.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	w.Held = func(string) bool { return r.held }
	return w
}

func (r *progRig) upsert(o store.Object) {
	r.rv++
	o.SetResourceVersion(strconv.Itoa(r.rv))
	if o.GetGeneration() == 0 {
		o.SetGeneration(1)
	}
	if _, err := r.st.Upsert(o); err != nil {
		r.t.Fatal(err)
	}
}

func (r *progRig) patch(a clienttesting.Action) (bool, runtime.Object, error) {
	pa := a.(clienttesting.PatchAction)
	var body struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Status struct {
			Conditions []metav1.Condition `json:"conditions"`
		} `json:"status"`
	}
	if err := json.Unmarshal(pa.GetPatch(), &body); err != nil || pa.GetSubresource() != "status" || body.Metadata.ResourceVersion == "" {
		r.t.Fatalf("patch %s %v: %s", pa.GetSubresource(), err, pa.GetPatch())
	}
	kind := map[string]store.Kind{"kongconsumers": store.KindKongConsumer, "kongplugins": store.KindKongPlugin,
		"kongclusterplugins": store.KindKongClusterPlugin, "kongconsumergroups": store.KindKongConsumerGroup,
		"kongcustomentities": store.KindKongCustomEntity}[pa.GetResource().Resource]
	ref := store.Ref{Kind: kind, Namespace: pa.GetNamespace(), Name: pa.GetName()}
	c := body.Status.Conditions[len(body.Status.Conditions)-1]
	r.writes = append(r.writes, ref.String()+" "+string(c.Status)+"/"+c.Reason)
	r.patched[ref] = body.Status.Conditions
	u := &unstructured.Unstructured{}
	u.SetResourceVersion(body.Metadata.ResourceVersion + "w")
	return true, u, nil
}

// offer translates the store and offers the result, as the sync loop publishes it.
func (r *progRig) offer(excluded ...store.Ref) {
	snap := r.st.Snapshot()
	b, err := r.eng.Build(snap.Without(excluded...))
	if err != nil {
		r.t.Fatal(err)
	}
	r.w.Offer(kongsync.Published{Snapshot: snap, Excluded: excluded, Result: b.Result, Hash: b.Hash()})
}

func (r *progRig) pass() ProgrammedPass {
	r.writes = nil
	var got ProgrammedPass
	r.w.Passed = func(p ProgrammedPass) { got = p }
	r.w.pass(context.Background())
	slices.Sort(r.writes)
	return got
}

// informers loads the written conditions into the store, as new object versions.
func (r *progRig) informers() {
	for ref, conds := range r.patched {
		o, _ := r.st.Snapshot().Get(ref)
		o = o.DeepCopyObject().(store.Object)
		switch x := o.(type) {
		case *configurationv1.KongConsumer:
			x.Status.Conditions = conds
		case *configurationv1.KongPlugin:
			x.Status.Conditions = conds
		case *configurationv1.KongClusterPlugin:
			x.Status.Conditions = conds
		case *configurationv1beta1.KongConsumerGroup:
			x.Status.Conditions = conds
		}
		r.upsert(o)
	}
	r.patched = map[store.Ref][]metav1.Condition{}
}

func TestProgrammedWrittenOnceThenNothing(t *testing.T) {
	r := newProgRig(t)
	r.held = false
	r.offer()
	if p := r.pass(); p.Held || len(r.writes) != 0 {
		t.Fatalf("wrote %v before Kong held the configuration (%+v)", r.writes, p)
	}
	r.held = true
	p := r.pass()
	want := []string{"KongClusterPlugin cluster True/Programmed", "KongConsumer ns/alice True/Programmed",
		"KongConsumer ns/bad False/Invalid", "KongConsumerGroup ns/gold True/Programmed", "KongPlugin ns/unused False/Pending",
		"KongPlugin ns/used True/Programmed"}
	if !slices.Equal(r.writes, want) || p.Writes != len(want) || p.Checked != 7 {
		t.Fatalf("first pass wrote %v (%+v), want %v", r.writes, p, want)
	}
	if p := r.pass(); p.Writes != 0 || p.InFlight != len(want) {
		t.Fatalf("pass before the store caught up: %+v, writes %v", p, r.writes)
	}
	r.informers()
	r.offer()
	if p := r.pass(); p.Writes != 0 || p.InFlight != 0 || len(r.writes) != 0 {
		t.Fatalf("pass over unchanged state: %+v, writes %v", p, r.writes)
	}
	// A restart (a new writer and engine) over unchanged state writes nothing.
	r.w, r.eng = r.newWriter(), translator.NewEngine(translator.DefaultOptions())
	r.offer()
	if p := r.pass(); p.Writes != 0 || len(r.writes) != 0 {
		t.Fatalf("restart wrote %v (%+v)", r.writes, p)
	}
	// Kong rejects the used plugin: it is left out, and Invalid.
	r.offer(store.Ref{Kind: store.KindKongPlugin, Namespace: "ns", Name: "used"})
	if p := r.pass(); !slices.Equal(r.writes, []string{"KongPlugin ns/used False/Invalid"}) {
		t.Fatalf("rejected plugin: wrote %v (%+v)", r.writes, p)
	}
}

// KongCustomEntities get Programmed as KIC writes it: True when an entity of theirs is in the
// configuration Kong holds (custom entities carry no tags: the document keeps their object),
// False/Invalid with a problem; only those of our class (spec.controllerName).
func TestProgrammedCustomEntities(t *testing.T) {
	const ce = `apiVersion: configuration.konghq.com/v1alpha1
kind: KongCustomEntity
metadata: {name: %s, namespace: ns}
spec: {type: degraphql_routes, controllerName: %s, fields: %s}
`
	manifests := fmt.Sprintf(ce, "good", "kong", "{uri: /a, query: q}") + "---\n" +
		fmt.Sprintf(ce, "bad", "kong", "{uri: /a}") + "---\n" + fmt.Sprintf(ce, "theirs", "other", "{uri: /a, query: q}")
	opts := translator.DefaultOptions()
	opts.EntitySchemas = translator.BundledEntitySchemas()
	r := newProgRigOf(t, manifests, opts)
	r.offer()
	p := r.pass()
	want := []string{"KongCustomEntity ns/bad False/Invalid", "KongCustomEntity ns/good True/Programmed"}
	if !slices.Equal(r.writes, want) || p.Checked != 2 {
		t.Fatalf("wrote %v (%+v), want %v", r.writes, p, want)
	}
}
