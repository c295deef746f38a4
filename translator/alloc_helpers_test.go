package translator

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kongsync/kongsync/store"
)

// The allocation-saving helpers must agree exactly with the straightforward versions they
// replace; these tests compare them on edge cases.

func TestCompareNsName(t *testing.T) {
	parts := []string{"", "a", "a-b", "a.b", "ab", "b", "a/", "default", "default-x", "z"}
	for _, ans := range parts {
		for _, an := range parts {
			for _, bns := range parts {
				for _, bn := range parts {
					want := strings.Compare(nsNameKey(ans, an), nsNameKey(bns, bn))
					if got := compareNsName(ans, an, bns, bn); got != want {
						t.Errorf("compareNsName(%q, %q, %q, %q) = %d, want %d", ans, an, bns, bn, got, want)
					}
				}
			}
		}
	}
}

func TestIsIP(t *testing.T) {
	for _, s := range []string{
		"10.0.0.1", "255.255.255.255", "256.0.0.1", "010.0.0.1", "1.2.3", "1.2.3.4.5", "::1", "::",
		"fe80::1", "fe80::1%eth0", "::ffff:10.0.0.1", "2001:db8::1", "2001:db8:0:0:0:0:0:1:2", "[::1]",
		"example.com", "", " 10.0.0.1", "10.0.0.1 ", "1::2::3", "0x1.0.0.0", "::ffff:1.2.3.4%x",
	} {
		if got, want := isIP(s), net.ParseIP(s) != nil; got != want {
			t.Errorf("isIP(%q) = %v, net.ParseIP says %v", s, got, want)
		}
	}
}

func TestEndpointTargets(t *testing.T) {
	refs := []endpointRef{
		{addr: "10.0.0.2", port: 8080}, {addr: "10.0.0.10", port: 8080}, {addr: "::1", port: 80, v6: true},
		{addr: "10.0.0.2", port: 8080}, {addr: "10.0.0.2", port: 65535}, {addr: "a.example", port: 1},
	}
	var want []string
	for _, r := range refs {
		want = append(want, hostPort(r.addr, fmt.Sprint(r.port)))
	}
	slices.Sort(want)
	slices.Reverse(want)
	want = slices.Compact(want)
	for _, n := range []int{1, 2, len(refs)} {
		var small smallTargets
		var got []string
		for _, tg := range endpointTargets(refs[:n], &small, nil) {
			got = append(got, *tg.Target)
		}
		var w []string
		for _, r := range refs[:n] {
			w = append(w, hostPort(r.addr, fmt.Sprint(r.port)))
		}
		slices.Sort(w)
		slices.Reverse(w)
		if w = slices.Compact(w); !slices.Equal(got, w) {
			t.Errorf("endpointTargets(%d) = %q, want %q", n, got, w)
		}
	}
	var got []string
	for _, tg := range endpointTargets(refs, nil, nil) {
		got = append(got, *tg.Target)
	}
	if !slices.Equal(got, want) {
		t.Errorf("endpointTargets = %q, want %q", got, want)
	}
	if endpointTargets(nil, nil, nil) != nil {
		t.Error("no endpoints must give no targets")
	}
}

func TestWithIDAndNames(t *testing.T) {
	space := newIDSpace("routes")
	long := strings.Repeat("x", 300)
	for _, name := range []string{"", "default.app.app.host.80", long} {
		n, id := withID([]byte(name), space)
		if n != name || id != space.id(name) {
			t.Errorf("withID(%q) = %q, %q; want the name and %q", name, n, id, space.id(name))
		}
	}
	p := portDef{mode: portByNumber, number: 8080}
	e := newEngine(DefaultOptions())
	tr := &ingressBuild{translation: e.newTranslation(nil), memos: &e.memos.ingressMemos}
	id := tr.intern("ns", "svc", p)
	if id.name != kongServiceName("ns", "svc", p) || id.host != upstreamName("ns", "svc", p) || id.id != tr.ids.services.id(id.name) {
		t.Errorf("intern strings = %q %q %q", id.name, id.host, id.id)
	}
	if tr.intern("ns", "svc", p) != id {
		t.Error("intern made a second identity for one Kong service name")
	}
}

func TestIsDefaultRouteName(t *testing.T) {
	for _, c := range []struct {
		route, ns, name string
		want            bool
	}{
		{"ns.ing", "ns", "ing", true}, {"ns.ing.svc.h.80", "ns", "ing", false}, {"nsxing", "ns", "ing", false},
		{"ns.in", "ns", "ing", false}, {"a.b.c", "a.b", "c", true}, {"a.b.c", "a", "b.c", true}, {".", "", "", true},
	} {
		if got := isDefaultRouteName(c.route, c.ns, c.name); got != c.want {
			t.Errorf("isDefaultRouteName(%q, %q, %q) = %v", c.route, c.ns, c.name, got)
		}
	}
}

func TestObjectTagsSharedNamespace(t *testing.T) {
	var nsTag [2]string
	for _, o := range []struct{ ns, name, tags string }{
		{"default", "a", ""}, {"default", "b", "x,y"}, {"other", "c", ""}, {"", "d", ""}, {"other", "e", ""}, {"default", "f", ""},
	} {
		svc := &corev1.Service{}
		svc.Namespace, svc.Name, svc.UID = o.ns, o.name, "u-"+types.UID(o.name)
		if o.tags != "" {
			svc.Annotations = map[string]string{annTags: o.tags}
		}
		var blk tagBlock
		got := objectTagsIn(store.KindService, svc, &blk, &nsTag)
		want := objectTags(store.KindService, svc)
		if len(got) != len(want) {
			t.Fatalf("%s/%s: %d tags, want %d", o.ns, o.name, len(got), len(want))
		}
		for i := range got {
			if *got[i] != *want[i] {
				t.Errorf("%s/%s: tag %d = %q, want %q", o.ns, o.name, i, *got[i], *want[i])
			}
		}
	}
}
