//go:build integration

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"
)

// The hostile tenant's generators: every object stays legal for the API server, and each
// attack is the hostile input it stands for.

func selfWorld(t *testing.T) *world {
	w := newWorld("soakself", []string{"soakself-a", "soakself-b", "soakself-c"}, nil)
	w.evil = newHostileTenant("soakself", "soakself-a", soakCA(t, "victim CA"), soakCA(t, "hostile CA"))
	return w
}

func TestSoakSelfHostileObjectsLegal(t *testing.T) {
	w := selfWorld(t)
	seen := map[string]int{}
	for seed := range uint64(400) {
		name, cs := w.pickAttack(rand.New(rand.NewPCG(seed, 3<<40)))
		seen[name]++
		for _, c := range cs {
			if c.ns != w.evil.ns || c.kind == nil || (c.op == "apply") != (c.obj != nil) {
				t.Fatalf("%s: change %s %v %s/%s outside the tenant or without its object", name, c.op, c.kind, c.ns, c.name)
			}
			if c.obj != nil {
				if err := apiLegal(c.obj); err != "" {
					t.Errorf("seed %d, %s: %s/%s: %s", seed, name, c.kind.kind, c.name, err)
				}
			}
		}
	}
	for _, a := range attacks() {
		if seen[a.name] == 0 {
			t.Errorf("attack %q never drawn in 400 draws", a.name)
		}
	}
	for _, o := range append(w.victimObjects(), w.hostileBase()...) {
		if err := apiLegal(o); err != "" {
			t.Errorf("stable object %s/%s: %s", o["kind"], objName(o), err)
		}
	}
}

// apiLegal says why the API server would refuse o ("" if it would not): a name that is no DNS
// subdomain, bad labels, annotations over 256 KiB, strings that are not UTF-8, a body over 1 MiB.
func apiLegal(o map[string]any) string {
	m := o["metadata"].(map[string]any)
	if errs := validation.IsDNS1123Subdomain(m["name"].(string)); len(errs) > 0 {
		return "name: " + strings.Join(errs, ", ")
	}
	if errs := metav1validation.ValidateLabels(stringMap(m["labels"]), field.NewPath("labels")); len(errs) > 0 {
		return errs.ToAggregate().Error()
	}
	if errs := apivalidation.ValidateAnnotations(stringMap(m["annotations"]), field.NewPath("annotations")); len(errs) > 0 {
		return errs.ToAggregate().Error()
	}
	b, err := json.Marshal(o)
	switch {
	case err != nil:
		return err.Error()
	case len(b) > 1<<20:
		return fmt.Sprintf("object of %d bytes, over 1 MiB (base64 makes a Secret's a third bigger; the limit is 1.5 MB)", len(b))
	case !utf8.Valid(b):
		return "not UTF-8"
	}
	return ""
}

func stringMap(v any) map[string]string {
	out := map[string]string{}
	m, _ := v.(map[string]any)
	for k, x := range m {
		out[k] = x.(string)
	}
	return out
}

// Each attack is what it stands for: the bomb expands past a gigabyte, the aliases fill the
// annotation with thousands of distinct hosts, the reused values are the victim's, the regexes
// are where Kong reads regexes, weights exceed 65535, controls reach annotations, depth exceeds
// Kong's 1,000.
func TestSoakSelfHostileAttacksAreHostile(t *testing.T) {
	w := selfWorld(t)
	got := map[string]bool{}
	for seed := range uint64(60) {
		r := func() *rand.Rand { return rand.New(rand.NewPCG(seed, 7)) }
		bomb := w.aliasBombAttack(r())[0]["stringData"].(map[string]any)["config"].(string)
		if n, exp := len(bomb), yamlExpanded(t, bomb); n > 210_000 || exp < 1<<30 {
			t.Errorf("seed %d: alias bomb of %d bytes expands to %d", seed, n, exp)
		}
		ing := w.hostAliasAttack(r())[0]
		aliases := strings.Split(annotation(ing, "konghq.com/host-aliases"), ",")
		if slices.Sort(aliases); len(slices.Compact(aliases)) < 5000 {
			t.Errorf("seed %d: %d distinct host aliases", seed, len(aliases))
		}
		got["100 alias rules"] = got["100 alias rules"] || len(ing["spec"].(map[string]any)["rules"].([]any)) == 100
		creds := w.credentialAttack(r())
		sd := creds[0]["stringData"].(map[string]any)
		got["victim key"] = got["victim key"] || sd["key"] == victimKey
		got["victim basic"] = got["victim basic"] || sd["username"] == victimBasic
		got["victim user"] = got["victim user"] || creds[1]["username"] == victimUser
		if id := w.caAttack(r())[0]["stringData"].(map[string]any)["id"]; id != w.evil.caID {
			t.Errorf("seed %d: CA id %v, not the victim's %s", seed, id, w.evil.caID)
		}
		rules := w.weightAttack(r())[0]["spec"].(map[string]any)["rules"].([]any)
		if wt := rules[0].(map[string]any)["backendRefs"].([]any)[0].(map[string]any)["weight"].(int); wt <= 65535 || wt > 1_000_000 {
			t.Errorf("seed %d: weight %d", seed, wt)
		}
		re := w.regexAttack(r())[0]["spec"].(map[string]any)["rules"].([]any)[0].(map[string]any)["http"].(map[string]any)["paths"].([]any)[1]
		if p := re.(map[string]any)["path"].(string); !strings.HasPrefix(p, "/~/re/") {
			t.Errorf("seed %d: regex path %q is no Kong regex", seed, p)
		}
		got["controls"] = got["controls"] || hasControl(w.controlAttack(r())[0]["metadata"].(map[string]any)["annotations"])
		d := depth(w.deepAttack(r())[0]["config"])
		got["deep"] = got["deep"] || d > 1001
	}
	for _, k := range []string{"victim key", "victim basic", "victim user", "controls", "deep", "100 alias rules"} {
		if !got[k] {
			t.Errorf("no attack in 60 draws has %s", k)
		}
	}
}

func annotation(o map[string]any, k string) string {
	return o["metadata"].(map[string]any)["annotations"].(map[string]any)[k].(string)
}

// yamlExpanded is the bytes of scalars a YAML document holds once its aliases are expanded.
func yamlExpanded(t *testing.T, doc string) int64 {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	memo := map[*yaml.Node]int64{}
	var size func(n *yaml.Node) int64
	size = func(n *yaml.Node) int64 {
		if v, ok := memo[n]; ok {
			return v
		}
		var total int64
		switch n.Kind {
		case yaml.AliasNode:
			total = size(n.Alias)
		case yaml.ScalarNode:
			total = int64(len(n.Value))
		default:
			for _, c := range n.Content {
				total += size(c)
			}
		}
		memo[n] = total
		return total
	}
	return size(&root)
}

func hasControl(v any) bool {
	for _, x := range v.(map[string]any) {
		for _, c := range x.(string) {
			if unicode.IsControl(c) || unicode.Is(unicode.Bidi_Control, c) {
				return true
			}
		}
	}
	return false
}

func depth(v any) int {
	switch x := v.(type) {
	case map[string]any:
		d := 0
		for _, y := range x {
			d = max(d, depth(y))
		}
		return d + 1
	case []any:
		d := 0
		for _, y := range x {
			d = max(d, depth(y))
		}
		return d + 1
	}
	return 0
}

// The real API server takes every attack's objects (three draws each), the victim's and the
// tenant's stable objects: none is refused, so every class reaches kongsync in the soak.
func TestSoakSelfHostileAppliesOnAPIServer(t *testing.T) {
	installKongCRDs(t)
	installGatewayCRDs(t, "standard")
	w := selfWorld(t)
	w.evil.ns, w.evil.victimNS = newNamespace(t), newNamespace(t)
	dyn := dynamic.NewForConfigOrDie(plane.RestConfig())
	objs := append(w.victimObjects(), w.hostileBase()...)
	for _, a := range attacks() {
		for seed := range uint64(3) {
			objs = append(objs, a.gen(w, rand.New(rand.NewPCG(seed, 11)))...)
		}
	}
	ctx := ctxT(t)
	for _, o := range objs {
		k, ns, name := w.kindFor(o["kind"].(string)), o["metadata"].(map[string]any)["namespace"].(string), objName(o)
		ri := dyn.Resource(k.gvr()).Namespace(ns)
		u := &unstructured.Unstructured{Object: toData(o)}
		if _, err := ri.Apply(ctx, name, u, metav1.ApplyOptions{FieldManager: "soak", Force: true}); err != nil {
			t.Errorf("%s %s/%s refused: %.300v", k.kind, ns, name, err)
		}
		t.Cleanup(func() { _ = ri.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
}
