package status

import (
	"context"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

func TestRouteProgrammed(t *testing.T) {
	existing := []metav1.Condition{{Type: ConditionProgrammed, Status: metav1.ConditionTrue, Reason: routeReasonConfigured, ObservedGeneration: 1}}
	for _, tc := range []struct {
		name     string
		accepted bool
		v        routeVerdict
		cur      []metav1.Condition
		want     string // "" when the condition is left as it is
	}{
		{"new entry, nothing held yet", true, progPending, nil, "Unknown/Unknown@2"},
		{"held and configured", true, progConfigured, nil, "True/ConfiguredInGateway@2"},
		{"held and failed", true, progFailed, existing, "False/TranslationError@2"},
		{"a new version not judged yet keeps what Kong last said", true, progPending, existing, ""},
		{"a parent that refused the route", false, progConfigured, existing, "Unknown/Unknown@2"},
		{"a parent that refused the route, new entry", false, progPending, nil, "Unknown/Unknown@2"},
	} {
		c, ok := routeProgrammed(tc.accepted, tc.v, tc.cur, 2)
		got := ""
		if ok {
			if c.Type != ConditionProgrammed || c.Message != "" {
				t.Errorf("%s: condition %+v", tc.name, c)
			}
			got = string(c.Status) + "/" + c.Reason + "@" + strconv.FormatInt(c.ObservedGeneration, 10)
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// publish offers the writer the configuration of the store as it is now, held by every replica
// or not, and runs a pass.
func (r *gwRig) publish(held bool) {
	r.t.Helper()
	snap := r.st.Snapshot()
	b, err := r.eng.Build(snap)
	if err != nil {
		r.t.Fatal(err)
	}
	r.w.Offer(snap, b.Result)
	r.w.OfferPublished(kongsync.Published{Snapshot: snap, Result: b.Result, Hash: "h" + strconv.FormatUint(snap.Version(), 10)})
	r.w.Held = func(string) bool { return held }
	r.writes = nil
	r.w.pass(context.Background())
}

// Routes get KIC's Programmed condition on each status.parents entry: Unknown until a
// configuration every Kong holds was made from the route's version, then ConfiguredInGateway or
// TranslationError; a refused parent keeps Unknown.
func TestGatewayStatusRouteProgrammed(t *testing.T) {
	r := newGWRig(t, gwManifests)
	r.pass()
	r.informers()
	prog := func(ns, name string) string {
		return condOf(ourParent(r.route(ns, name), "gw").Conditions, "Programmed")
	}
	r.publish(false)
	if len(r.writes) != 0 {
		t.Fatalf("a configuration no Kong holds yet changed statuses: %v", r.writes)
	}
	r.publish(true)
	for _, tc := range []struct{ ns, name, want string }{
		{"default", "ok", "Programmed=True/ConfiguredInGateway@1"},
		{"default", "missing", "Programmed=False/TranslationError@1"}, // its backendRef is a problem
		{"elsewhere", "refused", "Programmed=Unknown/Unknown@1"},
	} {
		if got := prog(tc.ns, tc.name); got != tc.want {
			t.Errorf("%s/%s: %s, want %s", tc.ns, tc.name, got, tc.want)
		}
	}
	// A new generation is not judged by the configuration Kong holds: its condition stays.
	r.informers()
	r.change(store.KindHTTPRoute, "default", "ok", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedStringSlice(u.Object, []string{"ok.example.com"}, "spec", "hostnames")
	})
	r.clock = r.clock.Add(time.Minute)
	r.publish(false)
	if got := prog("default", "ok"); got != "Programmed=True/ConfiguredInGateway@1" {
		t.Errorf("ok, new generation, not held yet: %s", got)
	}
	r.informers()
	r.publish(true)
	if got := prog("default", "ok"); got != "Programmed=True/ConfiguredInGateway@2" {
		t.Errorf("ok, new generation, held: %s", got)
	}
	// Nothing changes: nothing is written.
	r.informers()
	r.publish(true)
	if len(r.writes) != 0 {
		t.Errorf("an unchanged held configuration wrote %v", r.writes)
	}
}

// twoGateways: a route attached to two Gateways of kongsync's class, with an entry of ours for
// each, as two kongsync instances, each with --gateway-to-reconcile, write them.
const twoGateways = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kong}
spec: {controllerName: konghq.com/kic-gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: a, namespace: default}
spec:
  gatewayClassName: kong
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: b, namespace: default}
spec:
  gatewayClassName: kong
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: both, namespace: default}
spec:
  parentRefs: [{name: a}, {name: b}]
  rules: [{backendRefs: [{group: "", kind: Service, name: web, port: 80}]}]
status:
  parents:
  - parentRef: {group: gateway.networking.k8s.io, kind: Gateway, name: b, namespace: default}
    controllerName: konghq.com/kic-gateway-controller
    conditions: [{type: Accepted, status: "True", reason: Accepted, message: "", observedGeneration: 1, lastTransitionTime: "2020-01-01T00:00:00Z"}]
`

// With --gateway-to-reconcile, the writer leaves the entries of ours that name another Gateway
// (another instance's) as they are, and writes its own beside them.
func TestGatewayToReconcileKeepsOtherGateways(t *testing.T) {
	r := newGWRig(t, twoGateways)
	opts := translator.DefaultOptions()
	opts.GatewayToReconcile = "default/a"
	r.eng = translator.NewEngine(opts)
	wopts := r.w.opts
	wopts.GatewayToReconcile = "default/a"
	mapper, clock := r.w.mapper, r.w.now
	r.w = NewGatewayWriter(r.w.client, r.dyn, mapper, r.w.log, wopts)
	r.w.now = clock
	r.pass()
	ps := r.route("default", "both").Status.Parents
	if len(ps) != 2 || string(ps[0].ParentRef.Name) != "b" || ps[0].Conditions[0].LastTransitionTime.Year() != 2020 ||
		string(ps[1].ParentRef.Name) != "a" || condOf(ps[1].Conditions, "Accepted") != "Accepted=True/Accepted@1" {
		t.Fatalf("parents = %+v, want b's entry kept and a's added", ps)
	}
	if len(r.writes) != 3 { // the class, Gateway a and the route; Gateway b is another instance's
		t.Errorf("writes %v", r.writes)
	}
	r.informers()
	if p, _ := r.pass(); p.Writes != 0 {
		t.Errorf("second pass wrote %v", r.writes)
	}

	// Without the flag, an entry for a parentRef the route no longer has is ours to remove.
	in := &routeInput{ns: "default", gen: 1, controller: translator.DefaultGatewayControllerName,
		resolvedMsg: func(string) string { return "" }}
	if out, changed := routeParents(ps[:1], in); !changed || len(out) != 0 {
		t.Errorf("without --gateway-to-reconcile: %+v (changed %v), want the entry removed", out, changed)
	}
	in.reconciles = func(ns, name string) bool { return ns+"/"+name == "default/a" }
	if out, changed := routeParents(ps[:1], in); changed || len(out) != 1 {
		t.Errorf("with --gateway-to-reconcile default/a: %+v (changed %v), want b's entry kept", out, changed)
	}
}

// Pushes and probes (Notify) ask for a pass only while the latest configuration is not known to
// be held: probes every second do not run passes over every route.
func TestGatewayWriterNotifyUntilHeld(t *testing.T) {
	r := newGWRig(t, gwManifests)
	drained := func() bool {
		select {
		case <-r.w.kick:
			return true
		default:
			return false
		}
	}
	r.w.Notify()
	if drained() {
		t.Fatal("Notify kicked a pass with no configuration published")
	}
	held := false
	r.w.Held = func(string) bool { return held }
	r.w.OfferPublished(kongsync.Published{Snapshot: r.st.Snapshot(), Hash: "h"})
	if !drained() {
		t.Fatal("OfferPublished did not kick a pass")
	}
	r.w.Notify()
	if !drained() {
		t.Fatal("Notify did not kick a pass while the configuration is not held")
	}
	r.w.promoteHeld()
	r.w.Notify()
	if !drained() {
		t.Fatal("Notify did not kick a pass while no replica holds it yet")
	}
	held = true
	r.w.promoteHeld()
	r.w.Notify()
	if drained() {
		t.Error("Notify kicked a pass after the configuration was seen held")
	}
	r.w.Kick()
	if !drained() {
		t.Error("Kick did not kick")
	}
}
