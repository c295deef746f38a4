package translator

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// Kong's schema answer is read as KIC reads it: each field's type, reference, required and
// auto attributes and whether it has a default; the bundled schema is degraphql_routes'.
func TestParseEntitySchema(t *testing.T) {
	s, err := ParseEntitySchema([]byte(routeHintsSchema))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Fields {
		got = append(got, f.Name+":"+f.Type+":"+f.Reference+":"+map[bool]string{true: "req"}[f.Required]+
			":"+map[bool]string{true: "auto"}[f.Auto]+":"+map[bool]string{true: "default"}[f.HasDefault])
	}
	want := "id:string:::auto: service:foreign:services::: route:foreign:routes::: consumer:foreign:consumers::: " +
		"hint:string::req:: weight:integer::::default"
	if strings.Join(got, " ") != want {
		t.Errorf("fields\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	for _, bad := range []string{`[]`, `{"fields": null}`, `{}`, `{"fields": [{"a": 1}]}`, `{"fields": [` +
		strings.Repeat(`{"a": {"type": "string"}},`, maxSchemaFields) + `{"b": {}}]}`} {
		if _, err := ParseEntitySchema([]byte(bad)); err == nil {
			t.Errorf("%.60s: no error", bad)
		}
	}
	b := BundledEntitySchemas()
	if d := b["degraphql_routes"]; d.Err != "" || len(d.Fields) != 7 || d.Fields[1].Reference != "services" {
		t.Errorf("bundled degraphql_routes: %+v", d)
	}
	if len(b) != len(BundledEntityTypes()) {
		t.Errorf("bundled types %v for %d schemas", BundledEntityTypes(), len(b))
	}
}

// Types KIC refuses, those kongsync's document holds itself, and names that are no Kong entity
// name are refused; others are left to the schema.
func TestCustomTypeProblem(t *testing.T) {
	for typ, refused := range map[string]bool{
		"degraphql_routes": false, "a": false, "x_1": false, strings.Repeat("a", 64): false,
		"services": true, "consumer_groups": true, "plugins": true, "vaults": true, "ca_certificates": true,
		"": true, "_format_version": true, "Routes": true, "a-b": true, "1a": true, "a/b": true, strings.Repeat("a", 65): true,
	} {
		if got := customTypeProblem(typ) != ""; got != refused {
			t.Errorf("%q: refused %v, want %v", typ, got, refused)
		}
	}
}

// The attachments a custom entity follows, as KIC combines them: with foreign keys to services,
// routes and consumers, each service (here the routes' Kong service: the plugin is on no Service)
// and each route of the plugin combined with each of its consumers; a required foreign key that
// no attachment fills skips the entity.
func TestCustomEntityCombinations(t *testing.T) {
	const in = `
apiVersion: v1
kind: Service
metadata: {name: s1, namespace: ns}
spec: {ports: [{port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: i1, namespace: ns, annotations: {konghq.com/plugins: p}}
spec:
  ingressClassName: kong
  rules: [{http: {paths: [{path: /a, pathType: Prefix, backend: {service: {name: s1, port: {number: 80}}}},
    {path: /b, pathType: Prefix, backend: {service: {name: s1, port: {number: 80}}}}]}}]
---
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: c1, namespace: ns, annotations: {kubernetes.io/ingress.class: kong, konghq.com/plugins: p}}
username: alice
---
apiVersion: configuration.konghq.com/v1
kind: KongConsumer
metadata: {name: c2, namespace: ns, annotations: {kubernetes.io/ingress.class: kong, konghq.com/plugins: p}}
username: bob
---
apiVersion: configuration.konghq.com/v1
kind: KongPlugin
metadata: {name: p, namespace: ns}
plugin: key-auth
---
apiVersion: configuration.konghq.com/v1
kind: KongPlugin
metadata: {name: lonely, namespace: ns}
plugin: key-auth
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongCustomEntity
metadata: {name: hints, namespace: ns}
spec:
  controllerName: kong
  type: route_hints
  parentRef: {group: configuration.konghq.com, kind: KongPlugin, name: p}
  fields: {hint: h, weight: 2}
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongCustomEntity
metadata: {name: unfilled, namespace: ns}
spec:
  controllerName: kong
  type: route_notes
  parentRef: {group: configuration.konghq.com, kind: KongPlugin, name: lonely}
  fields: {note: hello}
`
	objs, _, err := store.DecodeManifests("in.yaml", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.EntitySchemas = testEntitySchemas()
	res := translateObjectsWith(t, objs, opts)
	ids := map[string]string{}
	for _, s := range res.Document.Services {
		ids[*s.ID] = "svc"
		for _, r := range s.Routes {
			ids[*r.ID] = *r.Name
		}
	}
	for _, c := range res.Document.Consumers {
		ids[*c.ID] = *c.Username
	}
	var got []string
	for _, l := range res.Document.CustomEntities {
		for _, e := range l.Entities {
			raw, _ := e.MarshalJSON()
			s := string(raw)
			for id, name := range ids {
				s = strings.ReplaceAll(s, id, name)
			}
			got = append(got, l.Type+" "+e.Name+" "+s)
		}
	}
	// The Ingress's two paths are one route of one Kong service: its route and its service, each
	// with each consumer; sorted by the ids filled in: no service id (the route's) first, then
	// by consumer id (alice's sorts first).
	want := []string{
		`route_hints hints {"consumer":{"id":"alice"},"hint":"h","route":{"id":"ns.i1.s1..80"},"weight":2}`,
		`route_hints hints {"consumer":{"id":"bob"},"hint":"h","route":{"id":"ns.i1.s1..80"},"weight":2}`,
		`route_hints hints {"consumer":{"id":"alice"},"hint":"h","service":{"id":"svc"},"weight":2}`,
		`route_hints hints {"consumer":{"id":"bob"},"hint":"h","service":{"id":"svc"},"weight":2}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entities\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p := problemsText(res.Problems); !strings.Contains(p, "KongCustomEntity ns/unfilled: spec.fields.route: required by "+
		"Kong's schema of route_notes, and not filled in") {
		t.Errorf("problems:\n%s", p)
	}
}

// A custom entity that would be copied past the bounds is skipped with a problem, as are fields
// too large or too deep; the rest of the configuration is made.
func TestCustomEntityBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: ns, annotations: {konghq.com/plugins: p}}\n" +
		"spec: {ports: [")
	for i := range 80 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("{name: p" + strings.Repeat("x", i) + ", port: " + strconv.Itoa(8000+i) + "}")
	}
	b.WriteString("]}\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i, namespace: ns}\n" +
		"spec:\n  ingressClassName: kong\n  rules: [{http: {paths: [")
	for i := range 80 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("{path: /" + strconv.Itoa(i) + ", pathType: Prefix, backend: {service: {name: s, port: {number: " + strconv.Itoa(8000+i) + "}}}}")
	}
	b.WriteString("]}}]\n---\napiVersion: configuration.konghq.com/v1\nkind: KongPlugin\nmetadata: {name: p, namespace: ns}\nplugin: cors\n")
	ce := func(name, fields string) {
		b.WriteString("---\napiVersion: configuration.konghq.com/v1alpha1\nkind: KongCustomEntity\nmetadata: {name: " + name +
			", namespace: ns}\nspec:\n  controllerName: kong\n  type: degraphql_routes\n" +
			"  parentRef: {group: configuration.konghq.com, kind: KongPlugin, name: p}\n  fields: " + fields + "\n")
	}
	big := `{"uri": "/a", "query": "` + strings.Repeat("q", maxCustomFieldsBytes-1000) + `"}` // 80 copies: past maxCustomEntityBytes
	ce("copied-too-much", big)
	ce("too-big", `{"uri": "/a", "query": "`+strings.Repeat("q", maxCustomFieldsBytes)+`"}`)
	ce("too-deep", `{"uri": "/a", "query": "q", "methods": `+strings.Repeat("[", maxCustomFieldsDepth+1)+strings.Repeat("]", maxCustomFieldsDepth+1)+`}`)
	ce("fine", `{"uri": "/a", "query": "q"}`)
	objs, _, err := store.DecodeManifests("in.yaml", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.EntitySchemas = BundledEntitySchemas()
	res := translateObjectsWith(t, objs, opts)
	p := problemsText(res.Problems)
	for _, want := range []string{
		"KongCustomEntity ns/copied-too-much: spec.parentRef: the plugin's attachments would make 80 entities",
		"KongCustomEntity ns/too-big: spec.fields: 65",
		"KongCustomEntity ns/too-deep: spec.fields: nests more than 64 levels",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("no problem %q in\n%s", want, p)
		}
	}
	if n := len(res.Document.CustomEntities); n != 1 || len(res.Document.CustomEntities[0].Entities) != 80 {
		t.Fatalf("custom entity lists %d, want one of 80 (the fine entity's)", n)
	}
	js, err := document.JSON(res.Document)
	if err != nil || bytes.Count(js, []byte(`"uri":"/a"`)) != 80 {
		t.Errorf("JSON: %v", err)
	}
}

// A field's value is checked against its Kong type as far as JSON tells: numbers, integers
// (1.0 is one), booleans, lists for arrays and sets, objects for maps and records, a record or a
// primary key for a foreign key; json and unknown types are left to Kong.
func TestCheckCustomFields(t *testing.T) {
	s, err := ParseEntitySchema([]byte(`{"fields": [{"s": {"type": "string"}}, {"i": {"type": "integer"}},
		{"n": {"type": "number"}}, {"b": {"type": "boolean"}}, {"a": {"type": "array"}}, {"set": {"type": "set"}},
		{"m": {"type": "map"}}, {"r": {"type": "record"}}, {"f": {"type": "foreign", "reference": "services"}},
		{"j": {"type": "json"}}, {"req": {"type": "string", "required": true, "default": "x"}},
		{"auto": {"type": "integer", "required": true, "auto": true}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		`{"s":"x","i":1,"n":1.5,"b":true,"a":[],"set":[1],"m":{},"r":{"a":1},"f":"id","j":[{"x":1}]}`: "",
		`{"i":1.0,"f":{"id":"x"},"s":null}`: "",
		`{"i":1.5}`:                         "i: expected an integer",
		`{"i":"1"}`:                         "i: expected an integer",
		`{"n":"1"}`:                         "n: expected a number",
		`{"b":"true"}`:                      "b: expected a boolean",
		`{"a":{}}`:                          "a: expected an array",
		`{"set":"x"}`:                       "set: expected a set",
		`{"m":[]}`:                          "m: expected a record",
		`{"f":1}`:                           "f: expected a record",
		`{"s":1,"zz":1,"aa":2}`:             "s: expected a string",
		`{"zz":1,"aa":2}`:                   "aa: unknown field",
	} {
		var fields map[string]any
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		if err := dec.Decode(&fields); err != nil {
			t.Fatal(err)
		}
		f, msg := checkCustomFields(s, fields)
		got := ""
		if f != "" {
			got = f + ": " + msg
		}
		if got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

// The dependency KIC's fallback gives a KongCustomEntity: its KongPlugin (same namespace only)
// or KongClusterPlugin, of group configuration.konghq.com.
func TestCustomEntityParent(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, c := range []struct {
		ref  *kva.ObjectReference
		want string
	}{
		{nil, ""},
		{&kva.ObjectReference{Group: s("configuration.konghq.com"), Kind: s("KongPlugin"), Name: "p"}, "KongPlugin ns/p"},
		{&kva.ObjectReference{Group: s("configuration.konghq.com"), Kind: s("KongPlugin"), Namespace: s("ns"), Name: "p"}, "KongPlugin ns/p"},
		{&kva.ObjectReference{Group: s("configuration.konghq.com"), Kind: s("KongPlugin"), Namespace: s("other"), Name: "p"}, ""},
		{&kva.ObjectReference{Group: s("configuration.konghq.com"), Kind: s("KongClusterPlugin"), Name: "c"}, "KongClusterPlugin c"},
		{&kva.ObjectReference{Kind: s("KongPlugin"), Name: "p"}, ""},
		{&kva.ObjectReference{Group: s("configuration.konghq.com"), Name: "p"}, ""},
	} {
		e := &kva.KongCustomEntity{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ce"},
			Spec: kva.KongCustomEntitySpec{ParentRef: c.ref}}
		got := ""
		if ref, ok := CustomEntityParent(e); ok {
			got = ref.String()
		}
		if got != c.want {
			t.Errorf("%+v: %q, want %q", c.ref, got, c.want)
		}
	}
}
