package workload

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.yaml")

// TestHTTPRoutesGolden: the Gateway API part of a small workload, byte for byte (the Ingress
// beside it shows where route endpoints start in the address plan).
func TestHTTPRoutesGolden(t *testing.T) {
	got := write(t, Config{Ingresses: 1, HTTPRoutes: 2, Namespaces: 2, UIDs: true}, "yaml")
	path := filepath.Join("testdata", "httproutes.golden.yaml")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

func TestHTTPRoutesCounts(t *testing.T) {
	cases := []struct {
		name string
		c    Config
		want map[store.Kind]int
		// crossNS is how many routes name the Gateway's namespace in their parentRef.
		crossNS int
	}{
		{"none", Config{Ingresses: 2, Namespaces: 1},
			map[store.Kind]int{store.KindGatewayClass: 0, store.KindGateway: 0, store.KindHTTPRoute: 0, store.KindService: 2}, 0},
		{"routes only", Config{HTTPRoutes: 3, Namespaces: 1},
			map[store.Kind]int{store.KindGatewayClass: 1, store.KindGateway: 1, store.KindHTTPRoute: 3, store.KindService: 3,
				store.KindEndpointSlice: 3, store.KindIngress: 0}, 0},
		{"both over three namespaces", Config{Ingresses: 4, HTTPRoutes: 5, Namespaces: 3},
			map[store.Kind]int{store.KindGatewayClass: 1, store.KindGateway: 1, store.KindHTTPRoute: 5, store.KindService: 9,
				store.KindEndpointSlice: 9, store.KindIngress: 4, store.KindNamespace: 3}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs, notes, err := store.DecodeManifests("w", bytes.NewReader(write(t, c.c, "yaml")))
			if err != nil || len(notes) != 0 {
				t.Fatalf("decode: %v %v", notes, err)
			}
			st, loadNotes := store.Load(objs)
			if len(loadNotes) != 0 {
				t.Fatalf("load notes: %v", loadNotes)
			}
			snap := st.Snapshot()
			for k, n := range c.want {
				if got := snap.Len(k); got != n {
					t.Errorf("%s: %d objects, want %d", k, got, n)
				}
			}
			cross, addrs := 0, map[string]bool{}
			for _, o := range snap.Objects(store.KindHTTPRoute) {
				hr := o.(*gatewayv1.HTTPRoute)
				if p := hr.Spec.ParentRefs[0]; p.Namespace != nil {
					cross++
				}
				svc := string(hr.Spec.Rules[0].BackendRefs[0].Name)
				if _, ok := snap.Service(hr.Namespace, svc); !ok || len(snap.EndpointSlicesFor(hr.Namespace, svc)) != 1 {
					t.Errorf("HTTPRoute %s/%s: backend %s or its EndpointSlice missing", hr.Namespace, hr.Name, svc)
				}
			}
			for _, svc := range snap.Services() {
				for _, es := range snap.EndpointSlicesFor(svc.Namespace, svc.Name) {
					for _, ep := range es.Endpoints {
						checkEndpoint(t, ep, addrs)
					}
				}
			}
			if cross != c.crossNS {
				t.Errorf("%d routes name the Gateway's namespace, want %d", cross, c.crossNS)
			}
		})
	}
}

// TestHTTPRoutesTranslate: every generated HTTPRoute becomes one Kong route for its own host and
// prefix "/", on its own Kong service, and nothing is reported.
func TestHTTPRoutesTranslate(t *testing.T) {
	c := Config{HTTPRoutes: 6, Namespaces: 2, UIDs: true}
	objs, notes, err := store.DecodeManifests("w", bytes.NewReader(write(t, c, "yaml")))
	if err != nil || len(notes) != 0 {
		t.Fatalf("decode: %v %v", notes, err)
	}
	st, _ := store.Load(objs)
	res, err := translator.BuildOnce(st.Snapshot(), translator.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 {
		t.Fatalf("problems: %v", res.Problems)
	}
	g := newGen(c)
	want := map[string]bool{}
	for i := range c.HTTPRoutes {
		want[g.routeHost(i)] = true
	}
	if len(res.Document.Services) != c.HTTPRoutes {
		t.Fatalf("%d Kong services, want %d", len(res.Document.Services), c.HTTPRoutes)
	}
	for _, s := range res.Document.Services {
		if len(s.Routes) != 1 || len(s.Routes[0].Hosts) != 1 {
			t.Fatalf("service %s: routes %+v", *s.Name, s.Routes)
		}
		host, paths := *s.Routes[0].Hosts[0], ""
		for _, p := range s.Routes[0].Paths {
			paths += " " + *p
		}
		// PathPrefix "/" is KIC's pair: the exact root and the prefix.
		if !want[host] || paths != " ~/$ /" {
			t.Errorf("service %s: route for %s, paths%s", *s.Name, host, paths)
		}
		delete(want, host)
	}
	if len(want) != 0 {
		t.Errorf("hosts without a route: %v", want)
	}
}
