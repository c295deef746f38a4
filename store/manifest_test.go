package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecodeManifests(t *testing.T) {
	cases := []struct {
		name     string
		in       string
		objs     []string // "Kind ns/name"
		notes    []string // substrings, in order
		errNotes int
	}{
		{name: "multi-doc", in: "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: x}\n",
			objs: []string{"Service default/a", "Secret x/s"}},
		{name: "list", in: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: networking.k8s.io/v1\n  kind: IngressClass\n  metadata: {name: kong}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n",
			objs: []string{"IngressClass kong"}, notes: []string{"document 1: items[1]: ConfigMap c: kind not translated by kongsync unless labelled"}},
		{name: "json", in: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"j","namespace":"ns1"}}`,
			objs: []string{"Service ns1/j"}},
		{name: "unknown kind is a note, not an error", in: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
			notes: []string{"Deployment d: kind not translated"}},
		{name: "old apiVersion", in: "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: old}\n",
			notes: []string{"unsupported apiVersion extensions/v1beta1"}, errNotes: 1},
		{name: "bad field type names the object", in: "apiVersion: v1\nkind: Service\nmetadata: {name: bad, namespace: ns1}\nspec: {ports: [{port: eighty}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: good}\n",
			objs: []string{"Service default/good"}, notes: []string{"document 1: Service ns1/bad: cannot decode"}, errNotes: 1},
		{name: "invalid yaml", in: "a: [\n---\napiVersion: v1\nkind: Service\nmetadata: {name: after}\n",
			objs: []string{"Service default/after"}, notes: []string{"document 1: invalid YAML"}, errNotes: 1},
		{name: "no name", in: "apiVersion: v1\nkind: Service\nmetadata: {}\n", notes: []string{"metadata.name is empty"}, errNotes: 1},
		{name: "KongUpstreamPolicy (v1beta1)", in: "apiVersion: configuration.konghq.com/v1beta1\nkind: KongUpstreamPolicy\nmetadata: {name: p}\nspec: {algorithm: latency, slots: 20}\n",
			objs: []string{"KongUpstreamPolicy default/p"}},
		{name: "KongUpstreamPolicy at another version", in: "apiVersion: configuration.konghq.com/v1\nkind: KongUpstreamPolicy\nmetadata: {name: p}\n",
			notes: []string{"unsupported apiVersion configuration.konghq.com/v1"}, errNotes: 1},
		{name: "Namespace is cluster-scoped", in: "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a, labels: {team: a}}\n",
			objs: []string{"Namespace team-a"}},
		{name: "empty and comments", in: "\n# nothing\n---\n", objs: nil},
		{name: "not utf-8", in: "apiVersion: v1\nkind: Service\nmetadata: {name: \xff}\n", notes: []string{"not valid UTF-8"}, errNotes: 1},
		{name: "JSON stream, one object a line", in: " \n" + svcJSON("a") + "\n" + svcJSON("b") + "\n\n" + svcJSON("c") + "\n",
			objs: []string{"Service default/a", "Service default/b", "Service default/c"}},
		{name: "JSON stream, concatenated, a bad one named by number", in: svcJSON("a") + svcJSON("b") + `{"kind":"Service"}` + svcJSON("d"),
			objs: []string{"Service default/a", "Service default/b", "Service default/d"}, notes: []string{"document 3: Service : missing apiVersion or kind"}, errNotes: 1},
		{name: "JSON stream then YAML", in: svcJSON("a") + "\n---\napiVersion: v1\nkind: Service\nmetadata: {name: yml}\n",
			objs: []string{"Service default/a", "Service default/yml"}},
		{name: "JSON stream with a brace in a string", in: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"a","annotations":{"x":"}{\"]"}}}` + svcJSON("b"),
			objs: []string{"Service default/a", "Service default/b"}},
		{name: "JSON stream cut short", in: svcJSON("a") + `{"apiVersion":"v1","kind":`,
			objs: []string{"Service default/a"}, notes: []string{"document 2: invalid YAML"}, errNotes: 1},
		{name: "a comment first is YAML, as for kubectl", in: "# c\n" + svcJSON("a") + "\n",
			objs: []string{"Service default/a"}},
		{name: "separators with a comment or spaces", in: svcYAML("a") + "--- # next\n" + svcYAML("b") + "---   \n" + svcYAML("c") + "---\t\n" + svcYAML("d"),
			objs: []string{"Service default/a", "Service default/b", "Service default/c", "Service default/d"}},
		{name: "invalid separator skips its document only", in: svcYAML("a") + "--- !!map\n" + svcYAML("b") + "---\n" + svcYAML("c") + "----\n" + svcYAML("d"),
			objs: []string{"Service default/a", "Service default/c"},
			notes: []string{`document 2: invalid document separator "--- !!map" (kubectl refuses the whole file); skipped up to the next ---`,
				`document 4: invalid document separator "----"`}, errNotes: 2},
		{name: "invalid separator first", in: "---x\n" + svcYAML("a") + "---\n" + svcYAML("b"),
			objs: []string{"Service default/b"}, notes: []string{`document 1: invalid document separator "---x"`}, errNotes: 1},
		{name: "leading separator, CRLF and no final newline", in: "---\r\napiVersion: v1\r\nkind: Service\r\nmetadata: {name: a}\r\n---\r\napiVersion: v1\nkind: Service\nmetadata: {name: b}",
			objs: []string{"Service default/a", "Service default/b"}},
		{name: "a ConfigMap labelled konghq.com/ca-cert is read, another is not", in: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, labels: {konghq.com/ca-cert: \"true\"}}\ndata: {id: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: o, labels: {konghq.com/ca-cert: \"false\"}}\n",
			objs: []string{"ConfigMap default/ca"}, notes: []string{"document 2: ConfigMap o: kind not translated by kongsync unless labelled"}},
		{name: "a --- inside a block scalar still separates, as for kubectl", in: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata:\n  x: |\n---\n" + svcYAML("b"),
			objs: []string{"Service default/b"}, notes: []string{"document 1: ConfigMap m: kind not translated by kongsync unless labelled"}},
		{name: "alias bomb by bytes", in: aliasBomb(280<<10, 5000) + "---\n" + svcYAML("after"),
			objs: []string{"Service default/after"}, notes: []string{"document 1: document expands to more than 3145728 bytes of JSON (YAML aliases expanded); skipped"}, errNotes: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs, notes, err := DecodeManifests("in.yaml", strings.NewReader(c.in))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				r, _ := RefOf(o)
				got = append(got, r.String())
			}
			if strings.Join(got, ",") != strings.Join(c.objs, ",") {
				t.Errorf("objects = %v, want %v", got, c.objs)
			}
			if len(notes) != len(c.notes) {
				t.Fatalf("notes = %v, want %d like %v", notes, len(c.notes), c.notes)
			}
			errs := 0
			for i, n := range notes {
				if !strings.Contains(n.String(), c.notes[i]) {
					t.Errorf("note %q does not contain %q", n, c.notes[i])
				}
				if n.Err {
					errs++
				}
			}
			if errs != c.errNotes {
				t.Errorf("error notes = %d, want %d", errs, c.errNotes)
			}
		})
	}
}

func svcYAML(name string) string {
	return "apiVersion: v1\nkind: Service\nmetadata: {name: " + name + "}\n"
}

func svcJSON(name string) string {
	return `{"apiVersion":"v1","kind":"Service","metadata":{"name":"` + name + `"}}`
}

// aliasBomb is a ConfigMap whose one value of size bytes is aliased n times: a document of about
// size bytes that expands to size*n.
func aliasBomb(size, n int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  v: &v \"" + strings.Repeat("x", size) + "\"\n  l:\n")
	for range n {
		b.WriteString("  - *v\n")
	}
	return b.String()
}

func TestReadPathsWalksDirectoriesInOrder(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	svcYAML := func(n string) string {
		return "apiVersion: v1\nkind: Service\nmetadata: {name: " + n + "}\nspec: {ports: [{port: 80}]}\n"
	}
	write("b.yaml", svcYAML("b"))
	write("a/z.yml", svcYAML("z"))
	write("c.json", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"c"},"spec":{"ports":[{"port":80}]}}`)
	write("README.md", "not a manifest")
	objs, _, notes, err := ReadPaths([]string{dir, "-"}, strings.NewReader(svcYAML("stdin")))
	if err != nil || len(notes) != 0 {
		t.Fatalf("err=%v notes=%v", err, notes)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.GetName())
	}
	if strings.Join(got, " ") != "z b c stdin" {
		t.Fatalf("order = %v", got)
	}
	if _, _, _, err := ReadPaths([]string{filepath.Join(dir, "missing.yaml")}, nil); err == nil {
		t.Fatal("a missing path must be an error")
	}
}

func TestLoadNotesDuplicates(t *testing.T) {
	_, notes := Load([]Object{svc("a", "x", ""), svc("a", "x", "")})
	if len(notes) != 1 || !strings.Contains(notes[0].String(), "Service a/x: defined more than once") {
		t.Fatalf("notes = %v", notes)
	}
}
