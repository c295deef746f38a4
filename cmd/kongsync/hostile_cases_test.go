package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	yamlv3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"
)

const (
	old   = "2020-01-01T00:00:00Z" // a victim's object, created first
	young = "2025-01-01T00:00:00Z" // the hostile tenant's, created later
	// sharedCAID is the id both CA Secrets of the takeover case carry.
	sharedCAID = "5d8e0f4a-1b2c-4d3e-8f9a-0b1c2d3e4f5a"
)

// hostileCases is the catalogue: at least one case of each class of issue 20.
func hostileCases() []hostileCase {
	return []hostileCase{
		{name: "configfrom-alias-bytes", class: "memory: a Secret value's aliases expand to gigabytes",
			write: func(t *testing.T, dir string) {
				objs := routedIngress("evil", "bomb", map[string]string{"konghq.com/plugins": "bomb"})
				objs = append(objs, object("v1", "Secret", "evil", "bomb", nil, obj{"stringData": obj{"config": aliasBomb("minute", 256<<10, 20, 2)}}),
					plugin("evil", "bomb", "rate-limiting", obj{"configFrom": obj{"secretKeyRef": obj{"name": "bomb", "key": "config"}}}))
				writeObjects(t, join(dir, "evil.yaml"), objs...)
			},
			exit: 1, problems: []string{`^problem: KongPlugin evil/bomb: configFrom`}},
		{name: "manifest-alias-bytes", class: "memory: a manifest's aliases expand to gigabytes",
			write: func(t *testing.T, dir string) {
				doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb, namespace: evil}\ndata:\n" +
					indent(aliasBomb("blob", 2500<<10, 20, 2), "  ")
				writeAt(t, join(dir, "bomb.yaml"), doc)
			},
			exit: 1, problems: []string{`^error: \S*bomb.yaml: document 1: `}},
		{name: "manifest-flow-nodes", class: "memory: documents of millions of tiny YAML nodes",
			write: func(t *testing.T, dir string) {
				doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flow%d, namespace: evil}\ndata: {a: [" +
					strings.Repeat("1,", 1400000) + "1]}\n"
				writeAt(t, join(dir, "flow.yaml"), fmt.Sprintf(doc, 1)+"---\n"+fmt.Sprintf(doc, 2))
			},
			exit: 1, problems: []string{`^error: \S*flow.yaml: document 1: document holds more than \d+ YAML nodes`,
				`^error: \S*flow.yaml: document 2: `}},
		{name: "host-aliases-256k", class: "time: 256 KiB of host aliases on one Ingress",
			write: func(t *testing.T, dir string) {
				var aliases []string
				for i, n := 0, 0; n < 250<<10; i++ {
					a := fmt.Sprintf("%x.io", i/2) // each twice
					aliases, n = append(aliases, a), n+len(a)+1
				}
				objs := routedIngress("evil", "aliases", map[string]string{"konghq.com/host-aliases": strings.Join(aliases, ",")})
				spec := objs[len(objs)-1]["spec"].(obj)
				rule := spec["rules"].([]obj)[0]
				for i := range 30 { // the aliases apply to every rule
					spec["rules"] = append(spec["rules"].([]obj), obj{"host": fmt.Sprintf("r%d.evil.example.com", i), "http": rule["http"]})
				}
				writeObjects(t, join(dir, "evil.yaml"), objs...)
			},
			exit: 0, keep: []string{"- 3e80.io"}},
		{name: "consumers-one-key", class: "time and isolation: 6,000 consumers take a victim's key",
			write: writeKeyTakeover, exit: 1,
			problems: []string{`^problem: KongConsumer evil/c-5999: `, `^problem: Secret evil/k-17: `},
			keep:     []string{"username: victim", "key: shared-key"}},
		{name: "basic-auth-takeover", class: "isolation: a younger credential reuses a victim's username",
			write: func(t *testing.T, dir string) {
				writeObjects(t, join(dir, "c.yaml"),
					consumer("default", "alice", "alice", old, "alice-basic"),
					credential("default", "alice-basic", "basic-auth", old, map[string]string{"username": "alice", "password": "alice-pw-0123456789"}),
					consumer("evil", "mallory", "mallory", young, "mallory-basic"),
					credential("evil", "mallory-basic", "basic-auth", young, map[string]string{"username": "alice", "password": "mallory-pw-0123456789"}))
			},
			exit: 1, problems: []string{`^problem: KongConsumer evil/mallory: `}, keep: []string{"username: alice"},
			absent: []string{"username: mallory"}},
		{name: "ca-id-takeover", class: "isolation: another namespace's Secret reuses a CA certificate's id",
			write: writeCATakeover, exit: 1, problems: []string{`^problem: Service default/secure: `},
			check: checkVictimTrust},
		{name: "regex-pcre", class: "Kong's rules: regexes PCRE refuses, and one only PCRE accepts",
			write: writeRegexes, exit: 1,
			problems: []string{`^problem: Ingress evil/paren: spec.rules\[0\].http.paths\[0\].path: `, `^problem: HTTPRoute evil/stars: `},
			keep:     []string{"~/(?<=a)b"}},
		{name: "weights-over-65535", class: "Kong's rules: target weights beyond 65535",
			write: writeWeights, exit: anyExit, check: checkWeights},
		{name: "duplicate-credential-ids", class: "Kong's rules: two credentials with one id",
			write: func(t *testing.T, dir string) {
				id := "0f0f0f0f-1111-4222-8333-444455556666"
				writeObjects(t, join(dir, "c.yaml"),
					consumer("default", "first", "first", old, "first-key"),
					credential("default", "first-key", "key-auth", old, map[string]string{"key": "first-key-value", "id": id}),
					consumer("evil", "second", "second", young, "second-key"),
					credential("evil", "second-key", "key-auth", young, map[string]string{"key": "second-key-value", "id": id}))
			},
			exit: 1, problems: []string{`^problem: (Secret|KongConsumer) evil/second(-key)?: `}, keep: []string{"first-key-value"},
			check: func(t *testing.T, _, out string) {
				if n := strings.Count(out, "0f0f0f0f-1111-4222-8333-444455556666"); n != 1 {
					t.Errorf("the id appears %d times in the config, want 1", n)
				}
			}},
		{name: "deep-plugin-config", class: "memory: a deeply nested plugin config (480 KB)",
			write: func(t *testing.T, dir string) {
				objs := routedIngress("evil", "deep", map[string]string{"konghq.com/plugins": "deep"})
				objs = append(objs, plugin("evil", "deep", "pre-function", obj{"config": nested(8000, 55)}))
				writeObjects(t, join(dir, "evil.yaml"), objs...)
			},
			exit: 1, problems: []string{`^problem: KongPlugin evil/deep: config`},
			check: func(t *testing.T, _, out string) {
				if len(out) > 1<<20 {
					t.Errorf("the config is %d bytes", len(out))
				}
			}},
		{name: "fifo-in-directory", class: "reading: a FIFO among the manifests",
			write: func(t *testing.T, dir string) {
				if err := syscall.Mkfifo(join(dir, "pipe.yaml"), 0o600); err != nil {
					t.Skip("no FIFOs here:", err)
				}
			},
			exit: 1, problems: []string{`^error: \S*pipe.yaml: a named pipe`}},
		{name: "endless-stdin", class: "reading: stdin that never ends", stdin: endless{'x'},
			write: func(*testing.T, string) {}, exit: 1, problems: []string{`^error: -: document 1: input is over the limit`}},
		{name: "json-stream", class: "reading: JSON objects one per line",
			write: func(t *testing.T, dir string) {
				var lines []string
				for _, o := range routedIngress("evil", "js", nil) {
					lines = append(lines, mustJSON(t, o))
				}
				writeAt(t, join(dir, "stream.json"), strings.Join(lines, "\n")+"\n")
			},
			exit: 0, keep: []string{"name: evil.js.js.js.evil.example.com.80"}},
		{name: "merge-key", class: "output: a << key in a plugin config",
			write: func(t *testing.T, dir string) {
				objs := routedIngress("evil", "merge", map[string]string{"konghq.com/plugins": "merge"})
				objs = append(objs, plugin("evil", "merge", "request-transformer", obj{"config": obj{"<<": "x", "y": "n", "~": "null"}}))
				writeObjects(t, join(dir, "evil.yaml"), objs...)
			},
			exit: 0, check: checkMergeKey},
		{name: "stringdata-tls", class: "reading: a TLS Secret written with stringData",
			write: writeStringDataTLS, exit: 0, keep: []string{"- tls.evil.example.com", "BEGIN CERTIFICATE"}},
		{name: "control-characters", class: "output: control characters in an object's strings",
			write: func(t *testing.T, dir string) {
				writeObjects(t, join(dir, "evil.yaml"), routedIngress("evil", "ctl", map[string]string{
					"konghq.com/methods": "GET,\x1b[2J\rPOST\u202e", "konghq.com/path": "/\x07bell"})...)
				writeObjects(t, join(dir, "names.yaml"), object("v1", "Service", "evil", "svc\x1b[31m\u2066", nil, obj{"spec": obj{"ports": []obj{{"port": 80}}}}))
			},
			exit: 1, problems: []string{`^problem: Ingress evil/ctl: metadata.annotations\[konghq.com/methods\]`}},
		{name: "dump-o-private-key", class: "secrets: the written config holds private keys", args: []string{"-o", "out.yaml"}, outFile: "out.yaml",
			write: writeStringDataTLS, exit: 0,
			check: func(t *testing.T, dir, _ string) {
				if m := fileMode(t, join(dir, "out.yaml")); m&0o077 != 0 {
					t.Errorf("out.yaml has mode %v; a config holding private keys must be 0600", m)
				}
			}},
	}
}

// anyExit accepts exit status 0 or 1 (a problem or a silent fix are both right), never 2.
const anyExit = -1

func indent(s, by string) string {
	return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by) + "\n"
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustJSON(t *testing.T, o obj) string {
	t.Helper()
	b, err := yaml.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

func writeKeyTakeover(t *testing.T, dir string) {
	objs := []obj{consumer("default", "victim", "victim", old, "victim-key"),
		credential("default", "victim-key", "key-auth", old, map[string]string{"key": "shared-key"})}
	for i := range 6000 {
		objs = append(objs, consumer("evil", fmt.Sprintf("c-%d", i), fmt.Sprintf("c-%d", i), young, fmt.Sprintf("k-%d", i)),
			credential("evil", fmt.Sprintf("k-%d", i), "key-auth", young, map[string]string{"key": "shared-key"}))
	}
	writeObjects(t, join(dir, "consumers.yaml"), objs...)
}

func writeCATakeover(t *testing.T, dir string) {
	victimCA, _ := pemPair(t, "victim CA", true)
	evilCA, _ := pemPair(t, "evil CA", true)
	caSecret := func(ns, created, cert string) obj {
		return object("v1", "Secret", ns, "ca", obj{"creationTimestamp": created, "labels": obj{"konghq.com/ca-cert": "true"}},
			obj{"stringData": obj{"id": sharedCAID, "cert": cert}})
	}
	objs := append(backend("default", "secure"), ingressTo("default", "secure", "secure.example.com", "/", "Prefix", nil),
		caSecret("default", young, victimCA), caSecret("evil", old, evilCA))
	objs[0]["metadata"].(obj)["annotations"] = obj{"konghq.com/protocol": "https", "konghq.com/tls-verify": "true",
		"konghq.com/ca-certificates-secrets": "ca"}
	writeObjects(t, join(dir, "ca.yaml"), objs...)
}

func writeRegexes(t *testing.T, dir string) {
	objs := append(backend("evil", "paren"), ingressTo("evil", "paren", "re.evil.example.com", "/~/price(usd", "ImplementationSpecific", nil))
	objs = append(objs, backend("evil", "look")...)
	objs = append(objs, ingressTo("evil", "look", "look.evil.example.com", "/~/(?<=a)b", "ImplementationSpecific", nil))
	objs = append(objs, backend("evil", "stars")...)
	objs = append(objs, object("gateway.networking.k8s.io/v1", "HTTPRoute", "evil", "stars", nil, obj{"spec": obj{
		"parentRefs": []obj{{"name": "gw"}},
		"rules": []obj{{"matches": []obj{{"path": obj{"type": "RegularExpression", "value": "/a**"}}},
			"backendRefs": []obj{{"kind": "Service", "name": "stars", "port": 80}}}}}}))
	writeObjects(t, join(dir, "evil.yaml"), objs...)
}

func writeWeights(t *testing.T, dir string) {
	w2 := backend("evil", "w2")
	w2[1]["endpoints"] = []obj{{"addresses": []string{"10.9.9.8"}}} // a target of its own
	objs := append(backend("evil", "w1"), w2...)
	objs = append(objs, object("gateway.networking.k8s.io/v1", "HTTPRoute", "evil", "w", nil, obj{"spec": obj{
		"parentRefs": []obj{{"name": "gw"}},
		"rules":      []obj{{"backendRefs": []obj{{"kind": "Service", "name": "w1", "port": 80, "weight": 1000000}, {"kind": "Service", "name": "w2", "port": 80, "weight": 1}}}}}}))
	writeObjects(t, join(dir, "evil.yaml"), objs...)
}

var weightLine = regexp.MustCompile(`(?m)^\s*weight: (\d+)$`)

func checkWeights(t *testing.T, _, out string) {
	ms := weightLine.FindAllStringSubmatch(out, -1)
	if len(ms) < 2 {
		t.Fatalf("found %d target weights; want both backends' targets in the config", len(ms))
	}
	for _, m := range ms {
		if w, _ := strconv.Atoi(m[1]); w > 65535 {
			t.Errorf("a target weight %d is beyond Kong's 65535", w)
		}
	}
}

func checkMergeKey(t *testing.T, _, out string) {
	var v3 map[string]any
	if err := yamlv3.Unmarshal([]byte(out), &v3); err != nil {
		t.Fatalf("yaml.v3 cannot read the config: %v", err)
	}
	js, err := yaml.YAMLToJSON([]byte(out))
	if err != nil {
		t.Fatalf("sigs.k8s.io/yaml cannot read the config: %v", err)
	}
	for _, want := range []string{`"\u003c\u003c":"x"`, `"y":"n"`, `"~":"null"`} {
		if !strings.Contains(string(js), want) && !strings.Contains(string(js), strings.ReplaceAll(want, `\u003c`, "<")) {
			t.Errorf("the config read back lacks %s", want)
		}
	}
}

func writeStringDataTLS(t *testing.T, dir string) {
	cert, key := pemPair(t, "tls.evil.example.com", false, "tls.evil.example.com")
	objs := backend("evil", "tls")
	ing := ingressTo("evil", "tls", "tls.evil.example.com", "/", "Prefix", nil)
	ing["spec"].(obj)["tls"] = []obj{{"hosts": []string{"tls.evil.example.com"}, "secretName": "tls"}}
	objs = append(objs, ing, object("v1", "Secret", "evil", "tls", nil, obj{"type": "kubernetes.io/tls",
		"stringData": obj{"tls.crt": cert, "tls.key": key}}))
	writeObjects(t, join(dir, "tls.yaml"), objs...)
}

// checkVictimTrust: the victim's Service trusts no CA certificate under the id the other
// namespace's older Secret took (that Secret's certificate may be in Kong, for its own
// namespace's Services, but the victim's Service does not reference it).
func checkVictimTrust(t *testing.T, _, out string) {
	var doc struct {
		Services []struct {
			Name           string   `json:"name"`
			CACertificates []string `json:"ca_certificates"`
		} `json:"services"`
	}
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range doc.Services {
		if strings.HasPrefix(s.Name, "default.secure.") {
			found = true
			if slices.Contains(s.CACertificates, sharedCAID) {
				t.Errorf("service %s trusts the CA certificate id another namespace's Secret holds", s.Name)
			}
		}
	}
	if !found {
		t.Error("no service default.secure.* in the config")
	}
}
