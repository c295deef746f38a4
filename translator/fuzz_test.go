package translator

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// FuzzAnnotationsAndPaths sets every annotation the translator reads, on an Ingress and on its
// Service, to the same arbitrary value, and uses arbitrary path and host strings: translation
// must never panic, must give the same bytes twice, must not produce what Kong rejects
// (kongInvariants), and must keep problem texts short whatever the value's size.
func FuzzAnnotationsAndPaths(f *testing.F) {
	for _, seed := range [][3]string{
		{"true", "/foo", "example.com"}, {"", "", ""}, {",,,", "//", "*"}, {"-1", "/~/(.*)$", "a.b"},
		{"grpc,http", "/#/x", "*.example.com"}, {"99999999999999999999", "\x00/\xff", "ü"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	keys := []string{annStripPath, annPreserveHost, annProtocols, annRedirectCode, annRegexPriority,
		annMethods, annSNIs, annHostAliases, annHeadersPrefix + "x", annHeadersSeparator, annPathHandling,
		annRequestBuffering, annResponseBuffering, annRegexPrefix, annTags, annPlugins, annForceSSLRedirect,
		annProtocol, annPath, annConnectTimeout, annReadTimeout, annWriteTimeout, annRetries, annHostHeader,
		annTLSVerify, annTLSVerifyDepth, annClientCert, annCACertSecrets, annServiceUpstream}
	f.Fuzz(func(t *testing.T, value, path, host string) {
		anns := map[string]string{}
		for _, k := range keys {
			anns[k] = value
		}
		class := "kong"
		prefix := networkingv1.PathTypePrefix
		backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
			Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}
		objs := []store.Object{
			&networkingv1.Ingress{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fuzz", Annotations: anns},
				Spec: networkingv1.IngressSpec{
					IngressClassName: &class, DefaultBackend: &backend,
					TLS: []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: value}},
					Rules: []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{
						HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
							{Path: path, PathType: &prefix, Backend: backend},
							{Path: path, Backend: backend},
						}}}}},
				},
			},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", Annotations: anns},
				Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		}
		res := translateObjects(t, objs)
		a, _ := document.JSON(res.Document)
		b, _ := document.JSON(translateObjects(t, objs).Document)
		if !bytes.Equal(a, b) {
			t.Fatal("two translations of the same objects differ")
		}
		if err := kongInvariants(res.Document); err != nil {
			t.Fatalf("output Kong would reject: %v\n%s", err, a)
		}
		for _, p := range res.Problems {
			if len(p.Reason) > 2000 {
				t.Fatalf("problem text of %d bytes", len(p.Reason))
			}
		}
	})
}

// maxFuzzManifest bounds a fuzzed manifest set; larger inputs only slow the fuzzer down.
const maxFuzzManifest = 128 << 10

// FuzzTranslateManifests decodes an arbitrary manifest stream with the store's reader, then
// translates it: no panic, the same bytes and problems twice and with the objects loaded in
// reverse order, output that encodes as JSON and that decK's offline validation accepts. Seeds:
// every testdata/golden/*/in.yaml (read at run time, so new cases seed it too) and, in
// testdata/fuzz/FuzzTranslateManifests, KIC's golden inputs (see testdata/fuzz/SOURCE).
func FuzzTranslateManifests(f *testing.F) {
	ins, _ := filepath.Glob(filepath.Join(goldenDir, "*", "in.yaml"))
	for _, in := range ins {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > maxFuzzManifest {
			t.Skip()
		}
		objs, _, _ := store.DecodeManifests("fuzz.yaml", bytes.NewReader(in))
		st, notes := store.Load(objs)
		res := coldResult(st.Snapshot(), DefaultOptions())
		a, err := document.JSON(res.Document)
		if err != nil {
			t.Fatalf("document does not encode: %v", err)
		}
		again := coldResult(st.Snapshot(), DefaultOptions())
		if b, _ := document.JSON(again.Document); !bytes.Equal(a, b) || problemsText(res.Problems) != problemsText(again.Problems) {
			t.Fatal("two translations of the same snapshot differ")
		}
		if len(notes) == 0 { // without duplicate refs, load order must not matter
			rev := make([]store.Object, len(objs))
			for i, o := range objs {
				rev[len(objs)-1-i] = o
			}
			st2, _ := store.Load(rev)
			res2 := coldResult(st2.Snapshot(), DefaultOptions())
			if b, _ := document.JSON(res2.Document); !bytes.Equal(a, b) || problemsText(res.Problems) != problemsText(res2.Problems) {
				t.Fatal("translation depends on the order objects were loaded in")
			}
		}
		y, err := document.YAML(res.Document)
		if err != nil {
			t.Fatalf("document does not encode as YAML: %v", err)
		}
		if err := kongInvariants(res.Document); err != nil {
			t.Fatalf("output Kong would reject: %v\n%s", err, y)
		}
		if fuzzing() {
			return // decK's validation costs ~150 ms an input: run on the seeds only
		}
		if err := validateWithDeck(y); err != nil && !onlyGeneratedCredentialFields(err) {
			t.Fatalf("decK rejects the output: %v\n%s", err, y)
		}
	})
}

// generatedCredentialField is decK's schema complaint about a credential field Kong generates
// when it is absent (docs/kic-differences.md: kongsync sends such credentials as KIC does).
var generatedCredentialField = regexp.MustCompile(`err=consumers\.\d+\.(jwt_secrets|hmacauth_credentials|oauth2_credentials|mtls_auth_credentials)\.\d+: (secret|client_secret|id) is required$`)

// onlyGeneratedCredentialFields reports whether every decK schema error is such a complaint.
func onlyGeneratedCredentialFields(err error) bool {
	n := 0
	for _, line := range strings.Split(err.Error(), "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "validation error:") {
			if !generatedCredentialField.MatchString(line) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// FuzzAnnotationParsers checks each annotation parser's contract on arbitrary values: no
// panic, and whatever a parser accepts is within what Kong accepts (integers in range, known
// protocols and redirect codes, non-empty trimmed list items, upper-case methods).
func FuzzAnnotationParsers(f *testing.F) {
	for _, s := range []string{"", "0", "-1", "301", "999", "http,https", " a , ,b ", "get", "v1", "*.a.b", "2147483647", "+5", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, it := range splitList(v) {
			if it == "" || it != strings.TrimSpace(it) || strings.Contains(it, ",") {
				t.Fatalf("splitList(%q) gave item %q", v, it)
			}
		}
		if n, err := parseIntRange(v, 0, maxRetries); err == nil && (n < 0 || n > maxRetries) {
			t.Fatalf("parseIntRange(%q) = %d", v, n)
		}
		if n, err := parseRedirectCode(v); err == nil && n != 301 && n != 302 && n != 307 && n != 308 && n != 426 {
			t.Fatalf("parseRedirectCode(%q) = %d", v, n)
		}
		if ps, err := parseProtocols(v); err == nil {
			for _, p := range ps {
				if !validProtocol(p) {
					t.Fatalf("parseProtocols(%q) gave %q", v, p)
				}
			}
		}
		if ms, err := parseMethods(v); err == nil {
			for _, m := range ms {
				if m == "" || strings.ToUpper(m) != m {
					t.Fatalf("parseMethods(%q) gave %q", v, m)
				}
			}
		}
		if p, err := parseServicePath(v); err == nil && !strings.HasPrefix(p, "/") {
			t.Fatalf("parseServicePath(%q) = %q", v, p)
		}
		if ph, err := parsePathHandling(v); err == nil && ph != "v0" && ph != "v1" {
			t.Fatalf("parsePathHandling(%q) = %q", v, ph)
		}
		_, _ = parseSNIs(v)
		_, _ = parseHostAliases(v)
		_ = splitHeaderValues(v, ",")
		_ = parsePluginRefs(v, "ns")
		_, _ = parseStrictBool(v)
		_, _ = parseLooseBool(v)
	})
}

// kongHost is Kong's route host rule, loosely: a wildcard only as the leftmost or rightmost label,
// otherwise letters (either case), digits, '-', '.' and '_'.
var kongHost = regexp.MustCompile(`^(\*\.)?[0-9A-Za-z][0-9A-Za-z\-._]*(\.\*)?$`)

// fuzzing reports whether go test runs with -fuzz (not just the seed corpus).
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// kongInvariants checks, cheaply, what Kong or decK would reject the whole configuration for:
// route paths that are neither absolute nor regex, bad route hosts, duplicate names, ids or SNIs,
// targets that are not host:port with a port in 1-65535 or whose weight is outside 0-65535, and
// header regexes PCRE2 does not compile.
func kongInvariants(d *document.Document) error {
	seen := map[string]bool{}
	once := func(kind, v string) error {
		if seen[kind+"\x00"+v] {
			return fmt.Errorf("duplicate %s %q", kind, v)
		}
		seen[kind+"\x00"+v] = true
		return nil
	}
	for _, s := range d.Services {
		if err := errors.Join(once("service name", *s.Name), once("service id", *s.ID)); err != nil {
			return err
		}
		for _, r := range s.Routes {
			if err := errors.Join(once("route name", *r.Name), once("route id", *r.ID)); err != nil {
				return err
			}
			for _, p := range r.Paths {
				if !strings.HasPrefix(*p, "/") && !strings.HasPrefix(*p, "~") || kongPathProblem(*p) != "" {
					return fmt.Errorf("route %s: path %q", *r.Name, *p)
				}
			}
			stream := len(r.Protocols) > 0
			for _, p := range r.Protocols {
				stream = stream && streamProtocol(*p)
			}
			// Kong's stream routes match on sources, destinations or SNIs only, and need one.
			if stream && (len(r.Paths)+len(r.Hosts)+len(r.Methods)+len(r.Headers) > 0 ||
				len(r.Sources)+len(r.Destinations)+len(r.SNIs) == 0) {
				return fmt.Errorf("route %s: a stream route needs sources, destinations or snis and no HTTP fields", *r.Name)
			}
			for _, h := range r.Hosts {
				if !kongHost.MatchString(*h) || strings.Count(*h, "*") > 1 {
					return fmt.Errorf("route %s: host %q", *r.Name, *h)
				}
			}
			for name, vs := range r.Headers {
				for _, v := range vs {
					if re, ok := strings.CutPrefix(v, kongHeaderRegexPrefix); ok && pcreProblem(re) != "" {
						return fmt.Errorf("route %s: header %s: regex %q", *r.Name, name, re)
					}
				}
			}
		}
	}
	for _, u := range d.Upstreams {
		if err := once("upstream", *u.Name); err != nil {
			return err
		}
		for _, tg := range u.Targets {
			host, port, err := net.SplitHostPort(*tg.Target)
			if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
				return fmt.Errorf("upstream %s: target %q", *u.Name, *tg.Target)
			}
			if tg.Weight != nil && (*tg.Weight < 0 || *tg.Weight > maxTargetWeight) {
				return fmt.Errorf("upstream %s: target %q: weight %d outside Kong's 0-65535", *u.Name, *tg.Target, *tg.Weight)
			}
		}
	}
	for _, c := range d.Certificates {
		for _, sni := range c.SNIs {
			if err := once("SNI", *sni.Name); err != nil {
				return err
			}
		}
	}
	return pluginInvariants(d, seen)
}

// pluginInvariants: plugin ids and instance names unique, every referenced entity present.
func pluginInvariants(d *document.Document, seen map[string]bool) error {
	users := map[string]bool{}
	for _, c := range d.Consumers {
		if c.Username != nil {
			users[*c.Username] = true
		}
	}
	for _, p := range d.Plugins {
		if p.ID == nil || p.Name == nil || *p.Name == "" || seen["plugin id\x00"+*p.ID] {
			return fmt.Errorf("plugin %v: missing or duplicate name or id", p.Name)
		}
		seen["plugin id\x00"+*p.ID] = true
		if p.InstanceName != nil {
			if seen["plugin instance\x00"+*p.InstanceName] {
				return fmt.Errorf("duplicate plugin instance_name %q", *p.InstanceName)
			}
			seen["plugin instance\x00"+*p.InstanceName] = true
		}
		switch {
		case p.Route != nil && !seen["route name\x00"+*p.Route.Name]:
			return fmt.Errorf("plugin %s: route %s not in the document", *p.ID, *p.Route.Name)
		case p.Service != nil && !seen["service name\x00"+*p.Service.Name]:
			return fmt.Errorf("plugin %s: service %s not in the document", *p.ID, *p.Service.Name)
		case p.Consumer != nil && !users[*p.Consumer.ID]:
			return fmt.Errorf("plugin %s: consumer %s not in the document", *p.ID, *p.Consumer.ID)
		}
	}
	return nil
}

// TestKongInvariantsCatch makes sure the fuzz target's cheap check can fail.
func TestKongInvariantsCatch(t *testing.T) {
	route := func(path, host string) *document.Route {
		return &document.Route{Route: kong.Route{Name: kong.String("r"), ID: kong.String("1"),
			Paths: []*string{kong.String(path)}, Hosts: []*string{kong.String(host)}}}
	}
	svc := func(r *document.Route) *document.Service {
		return &document.Service{Service: kong.Service{Name: kong.String("s"), ID: kong.String("2")}, Routes: []*document.Route{r}}
	}
	up := func(target string) *document.Upstream {
		return &document.Upstream{Upstream: kong.Upstream{Name: kong.String("u")}, Targets: []*kong.Target{{Target: kong.String(target)}}}
	}
	good := &document.Document{Services: []*document.Service{svc(route("/a", "a.example.com"))}, Upstreams: []*document.Upstream{up("10.0.0.1:80")}}
	if err := kongInvariants(good); err != nil {
		t.Fatalf("good document rejected: %v", err)
	}
	for name, d := range map[string]*document.Document{
		"relative path":    {Services: []*document.Service{svc(route("a", "a.example.com"))}},
		"regex without ~/": {Services: []*document.Service{svc(route("~a", "a.example.com"))}},
		"dot segment":      {Services: []*document.Service{svc(route("/a/../b", "a.example.com"))}},
		"bad regex":        {Services: []*document.Service{svc(route("~/a(", "a.example.com"))}},
		"bad host":         {Services: []*document.Service{svc(route("/a", "a b"))}},
		"port 0":           {Upstreams: []*document.Upstream{up("10.0.0.1:0")}},
		"no port":          {Upstreams: []*document.Upstream{up("10.0.0.1")}},
		"weight too big": {Upstreams: []*document.Upstream{{Upstream: kong.Upstream{Name: kong.String("u")},
			Targets: []*kong.Target{{Target: kong.String("10.0.0.1:80"), Weight: kong.Int(65536)}}}}},
		"header regex": {Services: []*document.Service{svc(&document.Route{Route: kong.Route{Name: kong.String("r"), ID: kong.String("1"),
			Paths: kong.StringSlice("/"), Headers: map[string][]string{"x": {"~*a("}}}})}},
		"two services": {Services: []*document.Service{svc(route("/a", "a.example.com")), svc(route("/b", "b.example.com"))}},
	} {
		if kongInvariants(d) == nil {
			t.Errorf("%s: not caught", name)
		}
	}
}
