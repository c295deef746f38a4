package status

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// gwRig is a fake API server (dynamic client with resourceVersion preconditions on status
// merge patches), the store the informers would fill from it, and the translator.
type gwRig struct {
	t      *testing.T
	dyn    *dynfake.FakeDynamicClient
	st     *store.Store
	eng    *translator.Engine
	w      *GatewayWriter
	rv     int
	writes []string // "Kind ns/name" of every status patch the API server applied
	clock  time.Time
	fail   func(ref string) error // if set, may fail a patch before it applies
}

var gatewayGV = schema.GroupVersion{Group: store.GatewayGroup, Version: "v1"}

func newGWRig(t *testing.T, manifests string) *gwRig {
	t.Helper()
	objs, notes, err := store.DecodeManifests("test", strings.NewReader(manifests))
	if err != nil || len(notes) > 0 {
		t.Fatalf("manifests: %v %v", err, notes)
	}
	r := &gwRig{t: t, st: store.New(), eng: translator.NewEngine(translator.DefaultOptions()),
		clock: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	r.dyn = dynfake.NewSimpleDynamicClient(runtime.NewScheme())
	for _, o := range objs {
		k, _ := store.KindOf(o)
		if k.GVK().Group != store.GatewayGroup {
			if _, err := r.st.Upsert(r.versioned(o)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		u := r.toUnstructured(k, r.versioned(o))
		if err := r.dyn.Tracker().Create(gvrOf(k), u, u.GetNamespace()); err != nil {
			t.Fatal(err)
		}
		r.load(k, u)
	}
	r.dyn.PrependReactor("patch", "*", r.patch)
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{gatewayGV})
	for _, k := range []store.Kind{store.KindGateway, store.KindHTTPRoute, store.KindGRPCRoute, store.KindTCPRoute, store.KindUDPRoute, store.KindTLSRoute} {
		plural := gvrOf(k)
		mapper.AddSpecific(gatewayGV.WithKind(string(k)), plural, plural.GroupVersion().WithResource(strings.ToLower(string(k))), meta.RESTScopeNamespace)
	}
	mapper.Add(gatewayGV.WithKind(string(store.KindGatewayClass)), meta.RESTScopeRoot)
	r.w = NewGatewayWriter(kubefake.NewClientset(), r.dyn, mapper, logr.Discard(),
		GatewayOptions{StaticAddresses: []string{"192.0.2.1", "kong.example.net"}})
	r.w.now = func() time.Time { return r.clock }
	return r
}

// versioned gives an object a resourceVersion (and a generation if it has none), as the API
// server would.
func (r *gwRig) versioned(o store.Object) store.Object {
	r.rv++
	o.SetResourceVersion(strconv.Itoa(r.rv))
	if o.GetGeneration() == 0 {
		o.SetGeneration(1)
	}
	return o
}

func (r *gwRig) toUnstructured(k store.Kind, o store.Object) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		r.t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gatewayGV.WithKind(string(k)))
	return u
}

// load puts the API server's version of an object into the store, as an informer would.
func (r *gwRig) load(k store.Kind, u *unstructured.Unstructured) {
	r.t.Helper()
	obj := map[store.Kind]func() store.Object{
		store.KindGatewayClass: func() store.Object { return &gatewayv1.GatewayClass{} },
		store.KindGateway:      func() store.Object { return &gatewayv1.Gateway{} },
		store.KindHTTPRoute:    func() store.Object { return &gatewayv1.HTTPRoute{} },
		store.KindTCPRoute:     func() store.Object { return &gatewayv1.TCPRoute{} },
	}[k]()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.st.Upsert(obj); err != nil {
		r.t.Fatal(err)
	}
}

// gvrOf is the resource of a kind (the API server's plural: "gateways", not the guess "gatewaies").
func gvrOf(k store.Kind) schema.GroupVersionResource {
	return gatewayGV.WithResource(strings.ToLower(string(k)) + map[bool]string{true: "es", false: "s"}[k == store.KindGatewayClass])
}

// patch applies a status merge patch as the API server does: the resourceVersion in the patch
// is a precondition, only status changes, and the object gets a new resourceVersion.
func (r *gwRig) patch(a clienttesting.Action) (bool, runtime.Object, error) {
	pa := a.(clienttesting.PatchAction)
	if pa.GetSubresource() != "status" || pa.GetPatchType() != "application/merge-patch+json" {
		return true, nil, errors.New("only status merge patches are expected")
	}
	ref := pa.GetResource().Resource + " " + pa.GetNamespace() + "/" + pa.GetName()
	if r.fail != nil {
		if err := r.fail(ref); err != nil {
			return true, nil, err
		}
	}
	cur, err := r.dyn.Tracker().Get(pa.GetResource(), pa.GetNamespace(), pa.GetName())
	if err != nil {
		return true, nil, err
	}
	u := cur.(*unstructured.Unstructured)
	var pre struct {
		Metadata struct{ ResourceVersion string } `json:"metadata"`
	}
	if err := json.Unmarshal(pa.GetPatch(), &pre); err != nil {
		return true, nil, err
	}
	if pre.Metadata.ResourceVersion != u.GetResourceVersion() {
		return true, nil, apierrors.NewConflict(pa.GetResource().GroupResource(), pa.GetName(), errors.New("stale"))
	}
	old, _ := json.Marshal(u.Object)
	merged, err := jsonpatch.MergePatch(old, pa.GetPatch())
	if err != nil {
		return true, nil, err
	}
	nu := &unstructured.Unstructured{}
	if err := nu.UnmarshalJSON(merged); err != nil {
		return true, nil, err
	}
	nu.Object["spec"] = u.Object["spec"]
	r.rv++
	nu.SetResourceVersion(strconv.Itoa(r.rv))
	if err := r.dyn.Tracker().Update(pa.GetResource(), nu, pa.GetNamespace()); err != nil {
		return true, nil, err
	}
	r.writes = append(r.writes, ref)
	return true, nu, nil
}

// informers copies every Gateway API object from the API server into the store.
func (r *gwRig) informers() {
	for _, k := range []store.Kind{store.KindGatewayClass, store.KindGateway, store.KindHTTPRoute, store.KindTCPRoute} {
		for _, o := range r.st.Snapshot().Objects(k) {
			cur, err := r.dyn.Tracker().Get(gvrOf(k), o.GetNamespace(), o.GetName())
			if err != nil {
				r.t.Fatal(err)
			}
			r.load(k, cur.(*unstructured.Unstructured))
		}
	}
}

// change edits an object's spec on the API server (new generation), then the store follows.
func (r *gwRig) change(k store.Kind, ns, name string, edit func(u *unstructured.Unstructured)) {
	r.t.Helper()
	cur, err := r.dyn.Tracker().Get(gvrOf(k), ns, name)
	if err != nil {
		r.t.Fatal(err)
	}
	u := cur.(*unstructured.Unstructured).DeepCopy()
	edit(u)
	r.rv++
	u.SetResourceVersion(strconv.Itoa(r.rv))
	u.SetGeneration(u.GetGeneration() + 1)
	if err := r.dyn.Tracker().Update(gvrOf(k), u, ns); err != nil {
		r.t.Fatal(err)
	}
	r.load(k, u)
}

// pass translates the store, offers the result and runs one pass.
func (r *gwRig) pass() (GatewayPass, time.Duration) {
	r.t.Helper()
	snap := r.st.Snapshot()
	if _, err := r.w.Offering(r.eng.Build)(snap); err != nil {
		r.t.Fatal(err)
	}
	var got GatewayPass
	r.w.Passed = func(p GatewayPass) { got = p }
	r.writes = nil
	d := r.w.pass(context.Background())
	return got, d
}

func (r *gwRig) route(ns, name string) *gatewayv1.HTTPRoute {
	r.t.Helper()
	cur, err := r.dyn.Tracker().Get(gvrOf(store.KindHTTPRoute), ns, name)
	if err != nil {
		r.t.Fatal(err)
	}
	var out gatewayv1.HTTPRoute
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cur.(*unstructured.Unstructured).Object, &out); err != nil {
		r.t.Fatal(err)
	}
	return &out
}

func (r *gwRig) gateway(ns, name string) *gatewayv1.Gateway {
	r.t.Helper()
	cur, err := r.dyn.Tracker().Get(gvrOf(store.KindGateway), ns, name)
	if err != nil {
		r.t.Fatal(err)
	}
	var out gatewayv1.Gateway
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cur.(*unstructured.Unstructured).Object, &out); err != nil {
		r.t.Fatal(err)
	}
	return &out
}

// condOf renders a condition as "Type=Status/Reason@gen" for compact assertions.
func condOf(cs []metav1.Condition, typ string) string {
	c := meta.FindStatusCondition(cs, typ)
	if c == nil {
		return "absent"
	}
	return c.Type + "=" + string(c.Status) + "/" + c.Reason + "@" + strconv.FormatInt(c.ObservedGeneration, 10)
}

// ourParent is the route's status.parents entry of kongsync's controller for a parentRef name
// (and section).
func ourParent(rt *gatewayv1.HTTPRoute, gw string) *gatewayv1.RouteParentStatus {
	for i := range rt.Status.Parents {
		p := &rt.Status.Parents[i]
		if string(p.ControllerName) == translator.DefaultGatewayControllerName && string(p.ParentRef.Name) == gw {
			return p
		}
	}
	return nil
}
