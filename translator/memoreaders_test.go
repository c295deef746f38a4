package translator

import (
	"slices"
	"testing"

	"github.com/kongsync/kongsync/store"
)

// A reader set lists each reader once, in the order first added, through the switch to a seen
// map (readersSeenAt) and through removals.
func TestReaderSet(t *testing.T) {
	cases := []struct {
		name   string
		add    []int
		remove []int
		want   []int
	}{
		{name: "empty", want: nil},
		{name: "one", add: []int{7}, want: []int{7}},
		{name: "zero is a reader", add: []int{0, 0, 1}, want: []int{0, 1}},
		{name: "repeats", add: []int{3, 1, 3, 2, 1, 3}, want: []int{3, 1, 2}},
		{name: "remove first keeps order", add: []int{3, 1, 2}, remove: []int{3}, want: []int{1, 2}},
		{name: "remove middle", add: []int{3, 1, 2}, remove: []int{1}, want: []int{3, 2}},
		{name: "remove all", add: []int{3, 1}, remove: []int{1, 3, 9}, want: nil},
		{name: "remove then add again", add: []int{1, 2}, remove: []int{1}, want: []int{2}},
		{name: "long, repeated", add: append(seq(40), seq(40)...), want: seq(40)},
		{name: "long, removed and repeated", add: append(seq(40), seq(40)...), remove: []int{0, 20},
			want: slices.DeleteFunc(seq(40), func(i int) bool { return i == 0 || i == 20 })},
	}
	for _, c := range cases {
		var s readerSet[int]
		for _, a := range c.add {
			s = s.add(a)
		}
		for _, r := range c.remove {
			s = s.remove(r)
		}
		if got := s.appendTo(nil); !slices.Equal(got, c.want) || s.len() != len(c.want) {
			t.Errorf("%s: %v (len %d), want %v", c.name, got, s.len(), c.want)
		}
	}
	// A member removed from a long set can be added again, once.
	var s readerSet[int]
	for _, a := range seq(40) {
		s = s.add(a)
	}
	s = s.remove(5).add(5).add(5)
	if got := s.appendTo(nil); len(got) != 40 || got[len(got)-1] != 5 {
		t.Errorf("re-added member: %v", got)
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// changed finds the readers of the changed objects of the changed kinds in the mask, of whole
// kinds and of EndpointSlice index entries, and refuses what kindGens does not know.
func TestReadersIndexChanged(t *testing.T) {
	svc, sec, es := store.KindService, store.KindSecret, store.KindEndpointSlice
	obj := func(k store.Kind, ns, name string) objRead {
		return objRead{ref: store.Ref{Kind: k, Namespace: ns, Name: name}}
	}
	var x readersIndex[string]
	x.add("a", &reads{objs: []objRead{obj(svc, "ns", "s1"), obj(sec, "ns", "tls")}})
	x.add("b", &reads{objs: []objRead{obj(svc, "ns", "s2")}, lists: []listRead{{ns: "ns", svc: "s2"}}})
	x.add("c", &reads{kinds: []kindRead{{kind: sec}}})
	x.add("a", &reads{objs: []objRead{obj(svc, "ns", "s1")}}) // again: listed once

	const since = 4
	gens := func(changed map[store.Kind][][2]string) *kindGens {
		kg := &kindGens{}
		for kind, keys := range changed {
			i := kindIndex(kind)
			kg.gen[i] = since + 1
			if keys != nil {
				kg.delta[i] = newRefSet(keys)
			}
		}
		return kg
	}
	all := kindBit(svc) | kindBit(sec) | kindBit(es)
	cases := []struct {
		name    string
		changed map[store.Kind][][2]string
		slices  [][2]string // the Services whose EndpointSlices changed
		mask    uint32
		want    []string
		ok      bool
	}{
		{name: "nothing changed", mask: all, ok: true},
		{name: "one Service", changed: map[store.Kind][][2]string{svc: {{"ns", "s1"}}}, mask: all, want: []string{"a"}, ok: true},
		{name: "a Service nobody read", changed: map[store.Kind][][2]string{svc: {{"ns", "s9"}}}, mask: all, ok: true},
		{name: "kind outside the mask", changed: map[store.Kind][][2]string{svc: {{"ns", "s1"}}}, mask: kindBit(sec), ok: true},
		{name: "a Secret: its reader and the kind's", changed: map[store.Kind][][2]string{sec: {{"ns", "tls"}}}, mask: all,
			want: []string{"c", "a"}, ok: true},
		{name: "EndpointSlices of a Service", changed: map[store.Kind][][2]string{es: {{"ns", "s2-abc"}}},
			slices: [][2]string{{"ns", "s2"}}, mask: all, want: []string{"b"}, ok: true},
		{name: "EndpointSlices, Services unknown", changed: map[store.Kind][][2]string{es: {{"ns", "s2-abc"}}}, mask: all},
		{name: "changes unknown", changed: map[store.Kind][][2]string{svc: nil}, mask: all},
		{name: "a kind not followed", mask: all | 1<<followedKinds},
	}
	for _, c := range cases {
		kg := gens(c.changed)
		if c.slices != nil {
			kg.sliceSvcs = newRefSet(c.slices)
		}
		kg.gen[followedKinds] = since + 1
		got, ok := x.changed(kg, c.mask, since, nil)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	if n := x.size(); n != 5 {
		t.Errorf("size %d, want 5", n)
	}
	x.remove("a", &reads{objs: []objRead{obj(svc, "ns", "s1"), obj(sec, "ns", "tls")}})
	if got, _ := x.changed(gens(map[store.Kind][][2]string{svc: {{"ns", "s1"}}}), all, since, nil); len(got) != 0 {
		t.Errorf("after remove: %v", got)
	}
	if n := x.size(); n != 3 {
		t.Errorf("size after remove %d, want 3", n)
	}
}
