package translator

import (
	"encoding/json"
	"testing"

	"github.com/kong/go-kong/kong"
)

// TestPluginIDMatchesGoKong compares pluginID with go-kong's FillID for the references KIC sets
// (every reference carries the entity's name in ID).
func TestPluginIDMatchesGoKong(t *testing.T) {
	cases := []pluginCombo{{}, {service: "ns.svc.80"}, {route: "ns.ing.svc..80"}, {consumer: "alice"},
		{service: "ns.svc.80", consumer: "alice"}, {route: "ns.ing.svc.a.example.com.443", consumer: "bob"}}
	for _, c := range cases {
		p := kong.Plugin{Name: kong.String("rate-limiting")}
		if c.service != "" {
			p.Service = &kong.Service{ID: kong.String(c.service)}
		}
		if c.route != "" {
			p.Route = &kong.Route{ID: kong.String(c.route)}
		}
		if c.consumer != "" {
			p.Consumer = &kong.Consumer{ID: kong.String(c.consumer)}
		}
		if err := p.FillID(""); err != nil {
			t.Fatal(err)
		}
		if got := pluginID(newIDSpace("plugins"), "rate-limiting", c); got != *p.ID {
			t.Errorf("%+v: pluginID %s, go-kong %s", c, got, *p.ID)
		}
	}
}

// TestSuffixedInstanceName: the suffix is the attachment's SHA-256 prefix (values from KIC's
// golden kongplugin-instance-name), the full hash when the short one repeats.
func TestSuffixedInstanceName(t *testing.T) {
	used := map[string]bool{}
	if got := suffixedInstanceName("example", pluginCombo{route: "default.httpbin.httpbin..80"}, used); got != "example-21a1f5b5f" {
		t.Errorf("got %s, want example-21a1f5b5f", got)
	}
	again := suffixedInstanceName("example", pluginCombo{route: "default.httpbin.httpbin..80"}, used)
	if len(again) != len("example-")+64 || again[:17] != "example-21a1f5b5f" {
		t.Errorf("repeated short suffix gave %s, want the full hash", again)
	}
}

// TestJSONPointerAdd covers the patch operations configPatches use.
func TestJSONPointerAdd(t *testing.T) {
	cases := []struct {
		doc, path, value, want string
		err                    bool
	}{
		{`{}`, "/a", `1`, `{"a":1}`, false},
		{`{}`, "/a/b/c", `"x"`, `{"a":{"b":{"c":"x"}}}`, false},
		{`{"a":{"k":1}}`, "/a/b", `2`, `{"a":{"b":2,"k":1}}`, false},
		{`{"l":[1,2]}`, "/l/-", `3`, `{"l":[1,2,3]}`, false},
		{`{"l":[1,2]}`, "/l/0", `0`, `{"l":[0,1,2]}`, false},
		{`{"l":[{"a":1}]}`, "/l/0/b", `2`, `{"l":[{"a":1,"b":2}]}`, false},
		{`{"a":1}`, "", `{"b":2}`, `{"b":2}`, false},
		{`{}`, "/a~1b/c~0d", `1`, `{"a/b":{"c~d":1}}`, false},
		{`{"a":"s"}`, "/a/b", `1`, ``, true},
		{`{"l":[1]}`, "/l/5", `1`, ``, true},
		{`{"l":[1]}`, "/l/01", `1`, ``, true},
		{`{}`, "a", `1`, ``, true},
	}
	for _, c := range cases {
		var doc, v any
		if err := decodeJSON([]byte(c.doc), &doc); err != nil {
			t.Fatal(err)
		}
		if err := decodeJSON([]byte(c.value), &v); err != nil {
			t.Fatal(err)
		}
		got, err := jsonPointerAdd(doc, c.path, v)
		if c.err {
			if err == nil {
				t.Errorf("%s %s: no error", c.doc, c.path)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s: %v", c.doc, c.path, err)
			continue
		}
		b, _ := json.Marshal(got)
		if string(b) != c.want {
			t.Errorf("%s add %s %s = %s, want %s", c.doc, c.path, c.value, b, c.want)
		}
	}
}

// TestPluginCombinations checks KIC's relation rules: consumers multiply services and routes,
// and repeated entities collapse.
func TestPluginCombinations(t *testing.T) {
	tg := func(names ...string) []pluginTarget {
		var out []pluginTarget
		for _, n := range names {
			out = append(out, pluginTarget{name: n})
		}
		return out
	}
	cases := []struct {
		rels pluginRels
		want []pluginCombo
	}{
		{pluginRels{services: tg("s"), routes: tg("r2", "r1", "r2")},
			[]pluginCombo{{service: "s"}, {route: "r1"}, {route: "r2"}}},
		{pluginRels{consumers: tg("c2", "c1")}, []pluginCombo{{consumer: "c1"}, {consumer: "c2"}}},
		{pluginRels{consumers: tg("c"), services: tg("s"), routes: tg("r")},
			[]pluginCombo{{service: "s", consumer: "c"}, {route: "r", consumer: "c"}}},
	}
	for i, c := range cases {
		got := c.rels.combinations()
		if len(got) != len(c.want) {
			t.Errorf("case %d: %+v, want %+v", i, got, c.want)
			continue
		}
		for j := range got {
			if got[j] != c.want[j] {
				t.Errorf("case %d: %+v, want %+v", i, got, c.want)
				break
			}
		}
	}
}
