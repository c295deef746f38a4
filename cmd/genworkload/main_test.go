package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kongsync/kongsync/store"
)

func TestRunWritesDecodableManifests(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-ingresses", "4", "-tls-secrets", "1", "-unrelated-secrets", "2", "-secret-size", "1KiB"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	objs, notes, err := store.DecodeManifests("stdout", &out)
	if err != nil || len(notes) != 0 {
		t.Fatalf("err=%v notes=%v", err, notes)
	}
	// 4 × (Ingress, Service, EndpointSlice) + IngressClass + 1 TLS + 2 unrelated Secrets.
	if len(objs) != 4*3+1+1+2 {
		t.Fatalf("%d objects", len(objs))
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-ingresses", "1", "-secret-size", "lots"},
		{"-ingresses", "1", "-tls-secrets", "2"},
		{"-ingresses", "1", "-format", "xml"},
		{"-ingresses", "1", "extra"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "genworkload") && !strings.Contains(errb.String(), "invalid") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestRunPlugins: -plugins K writes K KongPlugins per namespace and every Ingress names one.
func TestRunPlugins(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-ingresses", "5", "-plugins", "2", "-namespaces", "2"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	objs, notes, err := store.DecodeManifests("stdout", &out)
	if err != nil || len(notes) != 0 {
		t.Fatalf("err=%v notes=%v", err, notes)
	}
	plugins, referencing, namespaces := 0, 0, 0
	for _, o := range objs {
		switch kind, _ := store.KindOf(o); kind {
		case store.KindNamespace:
			namespaces++
		case store.KindKongPlugin:
			plugins++
		case store.KindIngress:
			if o.GetAnnotations()["konghq.com/plugins"] != "" {
				referencing++
			}
		}
	}
	if plugins != 4 || referencing != 5 || namespaces != 2 {
		t.Fatalf("%d KongPlugins (want 4), %d Ingresses referencing one (want 5), %d Namespaces (want 2)", plugins, referencing, namespaces)
	}
	var bad bytes.Buffer
	if code := run([]string{"-ingresses", "1", "-plugins", "-1"}, &out, &bad); code == 0 {
		t.Errorf("-plugins -1 accepted")
	}
}

// TestRunHTTPRoutes: -httproutes N writes one GatewayClass, one Gateway and N HTTPRoutes, each
// with its own Service and EndpointSlice; a negative count is refused.
func TestRunHTTPRoutes(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-httproutes", "3"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	objs, notes, err := store.DecodeManifests("stdout", &out)
	if err != nil || len(notes) != 0 {
		t.Fatalf("err=%v notes=%v", err, notes)
	}
	counts := map[store.Kind]int{}
	for _, o := range objs {
		k, _ := store.KindOf(o)
		counts[k]++
	}
	want := map[store.Kind]int{store.KindIngressClass: 1, store.KindGatewayClass: 1, store.KindGateway: 1,
		store.KindHTTPRoute: 3, store.KindService: 3, store.KindEndpointSlice: 3}
	if len(counts) != len(want) {
		t.Errorf("kinds %v, want %v", counts, want)
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s: %d, want %d", k, counts[k], n)
		}
	}
	var bad bytes.Buffer
	if code := run([]string{"-httproutes", "-1"}, &out, &bad); code == 0 {
		t.Errorf("-httproutes -1 accepted")
	}
}
