package sync

import "testing"

// The edition chosen: Kong Enterprise only when every usable replica of the chosen kind of
// routes reports an Enterprise version (licenses would not load on the others); replicas of the
// other kind, or that never answered usably, do not count.
func TestChooseRouterEnterprise(t *testing.T) {
	ee := func(v rootView) rootView { v.Enterprise = true; return v }
	cases := []struct {
		name  string
		views []rootView
		want  bool
	}{
		{"all enterprise", []rootView{ee(known("a", trad, "3.9.1")), ee(known("b", trad, "3.10.0"))}, true},
		{"one OSS", []rootView{ee(known("a", trad, "3.9.1")), known("b", trad, "3.10.0")}, false},
		{"OSS mismatched", []rootView{ee(known("a", trad, "3.9.1")), ee(known("b", comp, "3.9.1")), known("c", expr, "3.9.1")}, true},
		{"unknown ignored", []rootView{ee(known("a", trad, "3.9.1")), {Replica: "b", Tried: true}}, true},
	}
	for _, c := range cases {
		if got := chooseRouter(c.views); !got.Decided || got.Enterprise != c.want {
			t.Errorf("%s: %+v, want Enterprise %v", c.name, got, c.want)
		}
	}
}
