package translator

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

var update = flag.Bool("update", false, "rewrite the golden kong.yaml and problems.txt files")

const goldenDir = "../testdata/golden"

// goldenCases lists the case directories under testdata/golden.
func goldenCases(t testing.TB) []string {
	t.Helper()
	ins, err := filepath.Glob(filepath.Join(goldenDir, "*", "in.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) == 0 {
		t.Fatalf("no golden cases under %s", goldenDir)
	}
	dirs := make([]string, len(ins))
	for i, in := range ins {
		dirs[i] = filepath.Dir(in)
	}
	return dirs
}

// loadObjects reads a case's in.yaml as `kongsync dump` does (store.ReadPaths).
func loadObjects(t testing.TB, dir string) []store.Object {
	t.Helper()
	objs, _ := loadCase(t, dir)
	return objs
}

// loadCase is loadObjects with the refusals: what an API server would refuse.
func loadCase(t testing.TB, dir string) ([]store.Object, []store.Refusal) {
	t.Helper()
	objs, refused, notes, err := store.ReadPaths([]string{filepath.Join(dir, "in.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if n.Err {
			t.Fatalf("decoding in.yaml: %s", n)
		}
	}
	return objs, refused
}

// caseOptions are the translator options of a golden case: DefaultOptions, with what the
// case's optional options.yaml sets (kongVersion: the Kong version translated for, Kong Enterprise
// when it reads as one, e.g. 3.9.1.0-enterprise-edition; hardening:
// the opt-in refusals, by their flags' names: refuse-external-name-services: true;
// featureGates: KIC's gates by name, RewriteURIs: true, KongServiceFacade: true; enable-drain-support and
// gateway-to-reconcile: those flags' values; routerFlavor: Kong's router_flavor, e.g. expressions;
// now: the clock of the CA certificates' expiry check, RFC 3339; entitySchemas: custom entity
// types' schemas besides the bundled ones, each {schema: Kong's GET /schemas answer} or {err:
// why it could not be read}).
func caseOptions(t testing.TB, dir string) Options {
	t.Helper()
	opts := DefaultOptions()
	opts.EntitySchemas = BundledEntitySchemas()
	b, err := os.ReadFile(filepath.Join(dir, "options.yaml"))
	if os.IsNotExist(err) {
		return opts
	}
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		KongVersion  string `json:"kongVersion"`
		RouterFlavor string `json:"routerFlavor"`
		Hardening    struct {
			ExternalName bool `json:"refuse-external-name-services"`
			Unmanaged    bool `json:"refuse-unmanaged-endpoint-slices"`
		} `json:"hardening"`
		// FeatureGates are KIC's gates the translator acts on, as --feature-gates names them.
		FeatureGates struct {
			RewriteURIs       bool `json:"RewriteURIs"`
			KongServiceFacade bool `json:"KongServiceFacade"`
		} `json:"featureGates"`
		DrainSupport       bool   `json:"enable-drain-support"`
		GatewayToReconcile string `json:"gateway-to-reconcile"`
		// Now is the clock of the CA certificates' expiry check (RFC 3339); unset, none.
		Now string `json:"now"`
		// EntitySchemas are added to the bundled ones (which every case translates with).
		EntitySchemas map[string]struct {
			Schema string `json:"schema"`
			Err    string `json:"err"`
		} `json:"entitySchemas"`
	}
	if err := yaml.UnmarshalStrict(b, &o); err != nil {
		t.Fatalf("%s/options.yaml: %v", dir, err)
	}
	opts.Hardening = Hardening{RefuseExternalNameServices: o.Hardening.ExternalName,
		RefuseUnmanagedEndpointSlices: o.Hardening.Unmanaged}
	opts.Features.RewriteURIs = o.FeatureGates.RewriteURIs
	opts.Features.KongServiceFacade = o.FeatureGates.KongServiceFacade
	opts.DrainSupport, opts.GatewayToReconcile = o.DrainSupport, o.GatewayToReconcile
	for typ, es := range o.EntitySchemas {
		s := EntitySchema{Err: es.Err}
		if es.Schema != "" {
			if s, err = ParseEntitySchema([]byte(es.Schema)); err != nil {
				t.Fatalf("%s/options.yaml: entitySchemas.%s: %v", dir, typ, err)
			}
		}
		opts.EntitySchemas[typ] = s
	}
	if o.Now != "" {
		now, err := time.Parse(time.RFC3339, o.Now)
		if err != nil {
			t.Fatalf("%s/options.yaml: now: %v", dir, err)
		}
		opts.Now = func() time.Time { return now }
	}
	if o.KongVersion != "" {
		if opts.KongVersion, err = ParseKongVersion(o.KongVersion); err != nil {
			t.Fatalf("%s/options.yaml: %v", dir, err)
		}
		opts.KongEnterprise = IsKongEnterprise(o.KongVersion)
	}
	if o.RouterFlavor != "" {
		if opts.RouterFlavor, err = ParseRouterFlavor(o.RouterFlavor); err != nil {
			t.Fatalf("%s/options.yaml: %v", dir, err)
		}
	}
	return opts
}

func translateObjects(t testing.TB, objs []store.Object) Result {
	t.Helper()
	return translateObjectsWith(t, objs, DefaultOptions())
}

func translateObjectsWith(t testing.TB, objs []store.Object, opts Options) Result {
	t.Helper()
	snap, err := store.NewSnapshot(objs...)
	if err != nil {
		t.Fatal(err)
	}
	return coldResult(snap, opts)
}

func problemsText(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestGolden translates every testdata/golden/<case>/in.yaml and compares the YAML document with
// kong.yaml and the problems with problems.txt (absent when there are none), the manifest
// reader's refusals included (what an API server would refuse; those objects are translated
// all the same, so kong.yaml also pins the translator on them). Every output must
// also pass decK's offline validation. Run with -update to rewrite the files, then review them.
// These are cold builds (BuildOnce); TestGoldenWarm checks the same files with warm Engines.
func TestGolden(t *testing.T) {
	for _, dir := range goldenCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			objs, refused := loadCase(t, dir)
			opts := caseOptions(t, dir)
			res := translateObjectsWith(t, objs, opts)
			got, err := document.YAML(res.Document)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join(dir, "kong.yaml"), got, false)
			checkGolden(t, filepath.Join(dir, "problems.txt"), []byte(problemsText(WithRefusals(res.Problems, refused))), true)
			checkGolden(t, filepath.Join(dir, "status.txt"), []byte(statusText(res)), true)
			checkCauses(t, res.Problems)
			if err := validateWithDeck(got); err != nil {
				t.Errorf("decK rejects the output: %v", err)
			}
		})
	}
}

// checkGolden compares got with the file, or rewrites it under -update. An optional file that
// should be empty is absent.
func checkGolden(t *testing.T, path string, got []byte, optional bool) {
	t.Helper()
	if *update {
		if optional && len(got) == 0 {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !(optional && os.IsNotExist(err)) {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update and review the diff)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

// coldResult is a cold Engine build's result: what `kongsync dump` translates.
func coldResult(snap *store.Snapshot, opts Options) Result {
	b, err := BuildOnce(snap, opts)
	if err != nil {
		panic(err)
	}
	return b.Result
}

// statusText renders the Gateway API statuses of a result, one line per route parentRef and per
// listener (status.txt of a golden case; absent when there are none).
func statusText(res Result) string {
	var b strings.Builder
	cond := func(ok bool, reason string) string {
		if reason == "" {
			return "Unknown"
		}
		if ok {
			return "True (" + reason + ")"
		}
		return "False (" + reason + ")"
	}
	for _, p := range res.Parents {
		fmt.Fprintf(&b, "%s parentRefs[%d] Gateway %s", p.Route, p.Index, p.Gateway)
		if p.SectionName != "" {
			fmt.Fprintf(&b, " section %s", p.SectionName)
		}
		fmt.Fprintf(&b, ": Accepted=%s ResolvedRefs=%s listeners=%s", cond(p.Accepted, p.Reason),
			cond(p.ResolvedRefs, p.ResolvedRefsReason), strings.Join(p.Listeners, ","))
		if p.Assumed {
			b.WriteString(" assumed")
		}
		if p.ResolvedRefsMessage != "" {
			b.WriteString(" refs: " + p.ResolvedRefsMessage)
		}
		b.WriteByte('\n')
	}
	for _, g := range res.Gateways {
		for _, l := range g.Listeners {
			fmt.Fprintf(&b, "%s listener %s: kinds=%s attached=%d ResolvedRefs=%s\n", g.Gateway, l.Name,
				strings.Join(l.SupportedKinds, ","), l.AttachedRoutes, cond(l.ResolvedRefs, l.ResolvedRefsReason))
		}
	}
	return b.String()
}

// causeWording is what a problem of each Cause but Invalid says, and only such a problem.
var causeWording = map[Cause]*regexp.Regexp{
	MissingRef: regexp.MustCompile(`\bnot found\b|\bdoes not exist\b|\bno ReferenceGrant\b`),
	Deprecated: regexp.MustCompile(`\bno longer supported\b|\bis deprecated\b`),
}

// checkCauses checks that each problem's Cause and wording agree, so that a new problem of a
// missing reference or a deprecation is not left Invalid (the admission webhook would refuse
// what it should only warn about), and that no Invalid problem reads like one.
func checkCauses(t *testing.T, ps []Problem) {
	t.Helper()
	for _, p := range ps {
		for cause, re := range causeWording {
			if says := re.MatchString(p.Reason); says != (p.Cause == cause) {
				t.Errorf("problem %q has cause %d; its wording says %v for cause %d", p, p.Cause, says, cause)
			}
		}
	}
}
