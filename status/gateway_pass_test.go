package status

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// gwManifests: kongsync's class and another controller's; a Gateway with an HTTP and a TCP
// listener; routes accepted, refused (NotAllowedByListeners: another namespace), with a
// missing backend (BackendNotFound), sharing status with another controller (plus a stale
// entry of ours), and a TCPRoute.
const gwManifests = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kong}
spec: {controllerName: konghq.com/kic-gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: other}
spec: {controllerName: example.com/other}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: default, generation: 2}
spec:
  gatewayClassName: kong
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: tcp, port: 9000, protocol: TCP}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ok, namespace: default}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{group: "", kind: Service, name: web, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: refused, namespace: elsewhere}
spec:
  parentRefs: [{name: gw, namespace: default}]
  rules: [{backendRefs: [{group: "", kind: Service, name: web, namespace: default, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: missing, namespace: default}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{group: "", kind: Service, name: nope, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shared, namespace: default}
spec:
  parentRefs: [{name: gw, sectionName: http}, {name: theirs}]
  rules: [{backendRefs: [{group: "", kind: Service, name: web, port: 80}]}]
status:
  parents:
  - parentRef: {name: theirs}
    controllerName: example.com/other
    conditions: [{type: Accepted, status: "True", reason: Accepted, message: "", lastTransitionTime: "2020-01-01T00:00:00Z"}]
  - parentRef: {name: removed, namespace: default}
    controllerName: konghq.com/kic-gateway-controller
    conditions: [{type: Accepted, status: "True", reason: Accepted, message: "", lastTransitionTime: "2020-01-01T00:00:00Z"}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: tcp, namespace: default}
spec:
  parentRefs: [{name: gw, sectionName: tcp}]
  rules: [{backendRefs: [{group: "", kind: Service, name: web, port: 80}]}]
`

func TestGatewayStatusWrittenOnceThenNothing(t *testing.T) {
	r := newGWRig(t, gwManifests)
	p, retry := r.pass()
	slices.Sort(r.writes)
	want := []string{"gatewayclasses /kong", "gateways default/gw", "httproutes default/missing", "httproutes default/ok",
		"httproutes default/shared", "httproutes elsewhere/refused", "tcproutes default/tcp"}
	if !reflect.DeepEqual(r.writes, want) || p.Writes != len(want) || p.Failed != 0 || retry != 0 {
		t.Fatalf("first pass wrote %v (%+v, retry %v), want %v", r.writes, p, retry, want)
	}
	// The store has not seen the writes yet: nothing is written twice.
	if p, _ = r.pass(); p.Writes != 0 || p.InFlight != len(want) || len(r.writes) != 0 {
		t.Fatalf("pass before the store caught up: %+v, writes %v", p, r.writes)
	}
	r.informers()
	r.clock = r.clock.Add(time.Minute)
	if p, _ = r.pass(); p != (GatewayPass{Version: p.Version, Checked: len(want)}) || len(r.writes) != 0 {
		t.Fatalf("pass over unchanged state: %+v, writes %v", p, r.writes)
	}
	// A restart (a new writer, a new engine) over unchanged state writes nothing either.
	r.eng = translator.NewEngine(translator.DefaultOptions())
	mapper, clock := r.w.mapper, r.w.now
	r.w = NewGatewayWriter(r.w.client, r.dyn, mapper, r.w.log, r.w.opts)
	r.w.now = clock
	if p, _ = r.pass(); p.Writes != 0 || len(r.writes) != 0 {
		t.Fatalf("restarted writer wrote %v", r.writes)
	}
}

func TestGatewayStatusContent(t *testing.T) {
	r := newGWRig(t, gwManifests)
	r.pass()
	now := r.clock

	gc, _ := r.dyn.Tracker().Get(gvrOf(store.KindGatewayClass), "", "kong")
	conds, _, _ := unstructured.NestedSlice(gc.(*unstructured.Unstructured).Object, "status", "conditions")
	if len(conds) != 1 || conds[0].(map[string]any)["message"] != classAcceptedMessage {
		t.Errorf("GatewayClass conditions = %v", conds)
	}
	other, _ := r.dyn.Tracker().Get(gvrOf(store.KindGatewayClass), "", "other")
	if _, found, _ := unstructured.NestedFieldNoCopy(other.(*unstructured.Unstructured).Object, "status"); found {
		t.Errorf("another controller's GatewayClass got a status")
	}

	gw := r.gateway("default", "gw")
	if got := condOf(gw.Status.Conditions, "Accepted") + " " + condOf(gw.Status.Conditions, "Programmed"); got != "Accepted=True/Accepted@2 Programmed=True/Programmed@2" {
		t.Errorf("Gateway conditions: %s", got)
	}
	if len(gw.Status.Addresses) != 2 || gw.Status.Addresses[0].Value != "192.0.2.1" || *gw.Status.Addresses[0].Type != gatewayv1.IPAddressType ||
		*gw.Status.Addresses[1].Type != gatewayv1.HostnameAddressType {
		t.Errorf("Gateway addresses = %+v", gw.Status.Addresses)
	}
	type lsum struct {
		name     string
		kinds    []string
		attached int32
		conds    string
	}
	var ls []lsum
	for _, l := range gw.Status.Listeners {
		s := lsum{name: string(l.Name), attached: l.AttachedRoutes}
		for _, k := range l.SupportedKinds {
			s.kinds = append(s.kinds, string(*k.Group)+"/"+string(k.Kind))
		}
		for _, c := range l.Conditions {
			s.conds += condOf(l.Conditions, c.Type) + " "
		}
		ls = append(ls, s)
	}
	okConds := "Accepted=True/Accepted@2 Conflicted=False/NoConflicts@2 Programmed=True/Programmed@2 ResolvedRefs=True/ResolvedRefs@2 "
	wantLs := []lsum{
		{"http", []string{"gateway.networking.k8s.io/HTTPRoute", "gateway.networking.k8s.io/GRPCRoute"}, 3, okConds},
		{"tcp", []string{"gateway.networking.k8s.io/TCPRoute"}, 1, okConds},
	}
	if !reflect.DeepEqual(ls, wantLs) {
		t.Errorf("listeners:\n got %+v\nwant %+v", ls, wantLs)
	}

	routeConds := func(ns, name, gw string) string {
		p := ourParent(r.route(ns, name), gw)
		if p == nil {
			return "no entry"
		}
		return condOf(p.Conditions, "Accepted") + " " + condOf(p.Conditions, "ResolvedRefs") + " " + condOf(p.Conditions, "Programmed")
	}
	for _, tc := range []struct{ ns, name, want string }{
		// No Kong holds a configuration yet: Programmed is KIC's initial Unknown.
		{"default", "ok", "Accepted=True/Accepted@1 ResolvedRefs=True/ResolvedRefs@1 Programmed=Unknown/Unknown@1"},
		// A refused route's refs are resolved for its ResolvedRefs too (KIC writes it on every parent).
		{"elsewhere", "refused", "Accepted=False/NotAllowedByListeners@1 ResolvedRefs=False/RefNotPermitted@1 Programmed=Unknown/Unknown@1"},
		{"default", "missing", "Accepted=True/Accepted@1 ResolvedRefs=False/BackendNotFound@1 Programmed=Unknown/Unknown@1"},
	} {
		if got := routeConds(tc.ns, tc.name, "gw"); got != tc.want {
			t.Errorf("%s/%s: %s, want %s", tc.ns, tc.name, got, tc.want)
		}
	}
	missing := ourParent(r.route("default", "missing"), "gw")
	if m := meta.FindStatusCondition(missing.Conditions, "ResolvedRefs").Message; m != "spec.rules[0].backendRefs[0].name: Service default/nope not found; backend skipped" {
		t.Errorf("BackendNotFound message = %q", m)
	}
	if !meta.FindStatusCondition(missing.Conditions, "Accepted").LastTransitionTime.Time.Equal(now) {
		t.Errorf("new condition's lastTransitionTime is not the pass's time")
	}
	ref := ourParent(r.route("elsewhere", "refused"), "gw").ParentRef
	if string(*ref.Namespace) != "default" || *ref.Group != store.GatewayGroup || *ref.Kind != "Gateway" || ref.SectionName != nil || ref.Port != nil {
		t.Errorf("parentRef = %+v", ref)
	}

	shared := r.route("default", "shared").Status.Parents
	if len(shared) != 2 || shared[0].ControllerName != "example.com/other" || shared[0].Conditions[0].LastTransitionTime.Year() != 2020 ||
		string(shared[1].ParentRef.Name) != "gw" || string(*shared[1].ParentRef.SectionName) != "http" {
		t.Errorf("shared route parents (other's kept, our stale one pruned, ours added) = %+v", shared)
	}
}

func TestGatewayStatusTransitionTimes(t *testing.T) {
	r := newGWRig(t, gwManifests)
	r.pass()
	r.informers()
	first := r.clock
	r.clock = r.clock.Add(time.Hour)

	// refused: Accepted stays False, now for its hostname (the listener admits every namespace
	// but has a hostname); missing: ResolvedRefs turns True.
	r.change(store.KindGateway, "default", "gw", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedSlice(u.Object, []any{
			map[string]any{"name": "http", "port": int64(80), "protocol": "HTTP", "hostname": "a.example.com",
				"allowedRoutes": map[string]any{"namespaces": map[string]any{"from": "All"}}},
			map[string]any{"name": "tcp", "port": int64(9000), "protocol": "TCP"}}, "spec", "listeners")
	})
	r.change(store.KindHTTPRoute, "elsewhere", "refused", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedStringSlice(u.Object, []string{"b.example.com"}, "spec", "hostnames")
	})
	r.change(store.KindHTTPRoute, "default", "missing", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"backendRefs": []any{
			map[string]any{"group": "", "kind": "Service", "name": "web", "port": int64(80)}}}}, "spec", "rules")
	})
	p, _ := r.pass()
	slices.Sort(r.writes)
	// The other routes' verdicts did not change: they are not written.
	if want := []string{"gateways default/gw", "httproutes default/missing", "httproutes elsewhere/refused"}; !reflect.DeepEqual(r.writes, want) {
		t.Fatalf("writes %v (%+v), want %v", r.writes, p, want)
	}
	refused := ourParent(r.route("elsewhere", "refused"), "gw")
	acc := meta.FindStatusCondition(refused.Conditions, "Accepted")
	if acc.Reason != "NoMatchingListenerHostname" || acc.ObservedGeneration != 2 || !acc.LastTransitionTime.Time.Equal(first) {
		t.Errorf("refused Accepted = %+v: want NoMatchingListenerHostname at generation 2, transition time kept", acc)
	}
	gw := r.gateway("default", "gw")
	if c := meta.FindStatusCondition(gw.Status.Listeners[0].Conditions, "Programmed"); c.ObservedGeneration != 3 || !c.LastTransitionTime.Time.Equal(first) {
		t.Errorf("listener Programmed = %+v: want generation 3, transition time kept", c)
	}
	missing := ourParent(r.route("default", "missing"), "gw")
	if c := meta.FindStatusCondition(missing.Conditions, "Accepted"); !c.LastTransitionTime.Time.Equal(first) || c.ObservedGeneration != 2 {
		t.Errorf("missing Accepted = %+v: want transition time kept, generation 2", c)
	}
	if c := meta.FindStatusCondition(missing.Conditions, "ResolvedRefs"); c.Status != "True" || !c.LastTransitionTime.Time.Equal(r.clock) || c.Message != "" {
		t.Errorf("missing ResolvedRefs = %+v: want True since now", c)
	}
	// Removing the parentRef to our Gateway removes our entry; the other controller's stays.
	r.informers()
	r.change(store.KindHTTPRoute, "default", "shared", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"name": "theirs"}}, "spec", "parentRefs")
	})
	r.pass()
	if ps := r.route("default", "shared").Status.Parents; len(ps) != 1 || ps[0].ControllerName != "example.com/other" {
		t.Errorf("parents after our parentRef was removed = %+v", ps)
	}
	if l := r.gateway("default", "gw").Status.Listeners[0]; l.AttachedRoutes != 2 {
		t.Errorf("http listener attachedRoutes = %d, want 2 (ok and missing; shared left)", l.AttachedRoutes)
	}
}

func TestGatewayStatusConflictsAndRetries(t *testing.T) {
	r := newGWRig(t, gwManifests)
	r.fail = func(ref string) error {
		switch ref {
		case "httproutes default/ok":
			return apierrors.NewConflict(schema.GroupResource{Group: store.GatewayGroup, Resource: "httproutes"}, "ok", errors.New("newer"))
		case "httproutes default/missing":
			return apierrors.NewNotFound(schema.GroupResource{Group: store.GatewayGroup, Resource: "httproutes"}, "missing")
		case "tcproutes default/tcp":
			return apierrors.NewInternalError(errors.New("etcd is down"))
		}
		return nil
	}
	p, retry := r.pass()
	if p.Writes != 4 || p.Failed != 1 || retry != 500*time.Millisecond {
		t.Fatalf("pass with a conflict, a gone object and a failure: %+v, retry %v", p, retry)
	}
	// A pass within the backoff (a new translation) does not retry the failed write.
	attempts := 0
	fail := r.fail
	r.fail = func(ref string) error { attempts++; return fail(ref) }
	r.clock = r.clock.Add(200 * time.Millisecond)
	if p, retry = r.pass(); p.Failed != 1 || retry != 300*time.Millisecond || attempts != 2 {
		t.Fatalf("pass within the backoff: %+v, retry %v, %d attempts (want ok and missing only)", p, retry, attempts)
	}
	r.clock = r.clock.Add(300 * time.Millisecond)
	if p, retry = r.pass(); p.Failed != 1 || retry != time.Second || attempts != 5 {
		t.Fatalf("second failure: %+v, retry %v, %d attempts: want backoff doubled", p, retry, attempts)
	}
	r.fail = nil
	r.clock = r.clock.Add(time.Second)
	if p, retry = r.pass(); p.Writes != 3 || p.Failed != 0 || retry != 0 {
		t.Fatalf("recovered pass: %+v, retry %v: want ok, missing and tcp written", p, retry)
	}
	if _, ok := r.w.failed[store.Ref{Kind: store.KindTCPRoute, Namespace: "default", Name: "tcp"}]; ok {
		t.Error("a written object is still marked failed")
	}
}

// BenchmarkGatewayPassUnchanged: a pass over 10k HTTPRoutes whose statuses are already written
// (what every translation costs the leader when routes did not change).
func BenchmarkGatewayPassUnchanged(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(gwManifests)
	for i := range 10000 {
		fmt.Fprintf(&sb, "\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r%d, namespace: default}\n"+
			"spec:\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{group: \"\", kind: Service, name: web, port: 80}]}]\n", i)
	}
	t := &testing.T{}
	r := newGWRig(t, sb.String())
	r.t = t
	r.pass()
	r.informers()
	if p, _ := r.pass(); p.Writes != 0 || p.Checked != 10007 {
		b.Fatalf("setup pass: %+v", p)
	}
	runtime.GC()
	b.ResetTimer()
	for b.Loop() {
		r.w.pass(context.Background())
	}
}

// Verdicts out of the visiting order (the translator's order is not a contract) are looked up
// by route instead of walked: the same statuses, nothing written.
func TestGatewayStatusVerdictsOutOfOrder(t *testing.T) {
	r := newGWRig(t, gwManifests)
	r.pass()
	r.informers()
	snap := r.st.Snapshot()
	b, err := r.eng.Build(snap)
	if err != nil {
		t.Fatal(err)
	}
	if !inVisitOrder(b.Parents) {
		t.Fatalf("the translator's verdicts are not in visiting order: %+v", b.Parents)
	}
	b.Parents = slices.Clone(b.Parents)
	slices.Reverse(b.Parents)
	if inVisitOrder(b.Parents) {
		t.Fatal("reversed verdicts reported in visiting order")
	}
	r.w.synced = map[store.Object]*routeMemo{}
	r.w.Offer(snap, b.Result)
	var got GatewayPass
	r.w.Passed = func(p GatewayPass) { got = p }
	r.writes = nil
	r.w.pass(context.Background())
	if got.Writes != 0 || got.Checked != 7 || len(r.writes) != 0 {
		t.Fatalf("pass over reversed verdicts: %+v, writes %v", got, r.writes)
	}
}

func TestMergeConditions(t *testing.T) {
	t0, t1 := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)), metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := func(typ, st, reason string, ltt metav1.Time) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionStatus(st), Reason: reason, LastTransitionTime: ltt, ObservedGeneration: 1}
	}
	cur := []metav1.Condition{c("example.com/Custom", "True", "Mine", t0), c("Accepted", "True", "Accepted", t0), c("Programmed", "Unknown", "Pending", t0)}
	want := []metav1.Condition{c("Accepted", "True", "Accepted", metav1.Time{}), c("Programmed", "True", "Programmed", metav1.Time{}),
		c("ResolvedRefs", "True", "ResolvedRefs", metav1.Time{})}
	got := mergeConditions(cur, want, t1)
	exp := []metav1.Condition{c("example.com/Custom", "True", "Mine", t0), c("Accepted", "True", "Accepted", t0),
		c("Programmed", "True", "Programmed", t1), c("ResolvedRefs", "True", "ResolvedRefs", t1)}
	if !equalConditions(got, exp) {
		t.Errorf("merged:\n got %+v\nwant %+v", got, exp)
	}
	if cur[2].Status != "Unknown" {
		t.Error("mergeConditions modified its input")
	}
}

func TestGatewayAddresses(t *testing.T) {
	got := gatewayAddresses([]string{"kong.example.net", "10.0.0.2", " ", "10.0.0.2", "fd00::1"})
	var s []string
	for _, a := range got {
		s = append(s, string(*a.Type)+":"+a.Value)
	}
	if want := []string{"IPAddress:10.0.0.2", "IPAddress:fd00::1", "Hostname:kong.example.net"}; !reflect.DeepEqual(s, want) {
		t.Errorf("got %v, want %v", s, want)
	}
}

// A route whose object did not change is rewritten when its verdict did (its Gateway changed):
// the skip of routes found in sync holds only while their verdicts stay the same.
func TestGatewayStatusFollowsGatewayChange(t *testing.T) {
	r := newGWRig(t, gwManifests)
	r.pass()
	r.informers()
	if p, _ := r.pass(); p.Writes != 0 {
		t.Fatalf("unchanged pass wrote %v", r.writes)
	}
	r.change(store.KindGateway, "default", "gw", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedSlice(u.Object, []any{
			map[string]any{"name": "http", "port": int64(80), "protocol": "HTTP",
				"allowedRoutes": map[string]any{"kinds": []any{map[string]any{"kind": "GRPCRoute"}}}},
			map[string]any{"name": "tcp", "port": int64(9000), "protocol": "TCP"}}, "spec", "listeners")
	})
	r.pass()
	slices.Sort(r.writes)
	if want := []string{"gateways default/gw", "httproutes default/missing", "httproutes default/ok", "httproutes default/shared"}; !reflect.DeepEqual(r.writes, want) {
		t.Fatalf("writes %v, want %v", r.writes, want)
	}
	if got := condOf(ourParent(r.route("default", "ok"), "gw").Conditions, "Accepted"); got != "Accepted=False/NotAllowedByListeners@1" {
		t.Errorf("ok after its listener stopped allowing HTTPRoutes: %s", got)
	}
}
