package sync_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/blang/semver/v4"
	"github.com/go-logr/logr"
	"sigs.k8s.io/yaml"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/sync/fallback"
	"github.com/kongsync/kongsync/translator"
)

// annBroken marks, in KIC's golden corpus, the objects its harness's mock Admin API rejects.
const annBroken = "test.konghq.com/broken"

// kicGoldenDir finds KIC's golden corpus: $KIC_GOLDEN_DIR, else shared/kic-golden beside a
// parent of the working directory.
func kicGoldenDir() string {
	if d := os.Getenv("KIC_GOLDEN_DIR"); d != "" {
		return d
	}
	for d, _ := os.Getwd(); d != filepath.Dir(d); d = filepath.Dir(d) {
		if fi, err := os.Stat(filepath.Join(d, "shared", "kic-golden")); err == nil && fi.IsDir() {
			return filepath.Join(d, "shared", "kic-golden")
		}
	}
	return ""
}

// fallbackCases are KIC's ten fallback-config-* cases. kic-compat.sh (../shared/tools) skips
// them, as they need a Kong that rejects objects: this test is where they run.
var fallbackCases = []string{
	"fallback-config-gateway-api", "fallback-config-ingress", "fallback-config-ingress-class", "fallback-config-kong",
	"fallback-config-kong-cluster-plugin", "fallback-config-kong-custom-entities-ee", "fallback-config-kong-plugin",
	"fallback-config-kong-upstream-policy", "fallback-config-secret", "fallback-config-service",
}

// TestKICFallbackGoldenLive runs each fallback-config-* case of KIC's corpus, with each of its
// *_settings.yaml variants, through the live sync loop with the real translator, as KIC's golden
// harness runs KongClient.Update (internal/dataplane/kong_client_golden_test.go): the Kong double
// answers the first push with KIC's flattened errors naming every object annotated
// test.konghq.com/broken, the loop computes the fallback configuration by KIC's rules and
// pushes it, and the configuration the double then holds must equal the case's golden, ids and
// tags included, compared as kongcmp.py compares (document.Compare, strict). It runs with
// FallbackConfiguration alone and with --use-last-valid-config-for-fallback (nothing valid yet:
// the same golden, as in KIC's harness); and with the gate off, kongsync's default, the double
// holds a cold build of the case without the rejected objects only.
func TestKICFallbackGoldenLive(t *testing.T) {
	dir := kicGoldenDir()
	if dir == "" {
		t.Skip("KIC's golden corpus not found (set KIC_GOLDEN_DIR or check out beside shared/kic-golden)")
	}
	for _, name := range fallbackCases {
		for _, v := range caseVariants(t, filepath.Join(dir, name)) {
			t.Run(name+"/"+v.name, func(t *testing.T) {
				want := readYAMLDoc(t, filepath.Join(dir, name, v.name+"_golden.yaml"))
				for _, mode := range []struct {
					name           string
					gate, lastGood bool
				}{{"exclude", true, false}, {"last-valid", true, true}, {"gate-off", false, false}} {
					t.Run(mode.name, func(t *testing.T) {
						c := loadCase(t, filepath.Join(dir, name, "in.yaml"), v.facade)
						if strings.HasSuffix(name, "-ee") {
							// KIC's -ee cases use Enterprise plugins (degraphql): Kong must have them.
							c.plugins = append(slices.Clone(kongdouble.BundledPlugins), "degraphql")
							// The loop reads the double's schemas before it publishes anything (a
							// translation made while they are read is held back); the cold builds
							// compared with use the bundled ones, which the double serves.
						}
						r := runFallback(t, c, mode.gate, mode.lastGood)
						got, plan, want := r.doc, r.plan, want
						if !mode.gate {
							named := c.namedInStore()
							if ex := plan.ExcludedRefs(); !slices.Equal(ex, named) {
								t.Errorf("gate off: left out %v, want only the objects Kong named, %v", ex, named)
							}
							var hash string
							want, hash = coldWithout(t, c, named)
							if !r.synced {
								// Leaving them out changed nothing: the configuration Kong refused is
								// not posted again, and Kong keeps what it held (here nothing).
								if hash != r.desired || got != nil {
									t.Errorf("gate off, nothing pushed after the rejection: desired %s, cold build %s, Kong holds %v",
										r.desired, hash, got)
								}
								return
							}
						}
						if !r.synced {
							t.Fatalf("the fallback configuration did not reach Kong: posts %s", postStatuses(r.kong))
						}
						diffs := document.Compare(want, got, document.CompareOptions{Strict: true, ShowSecrets: true})
						for _, d := range diffs {
							t.Error(d)
						}
						if len(diffs) > 0 {
							t.Logf("left out: %v", plan.ExcludedRefs())
						}
					})
				}
			})
		}
	}
}

// variant is a case's settings: default (KIC's defaults), or a *_settings.yaml file's.
type variant struct {
	name   string
	facade bool // feature_flags KongServiceFacade
}

func caseVariants(t *testing.T, dir string) []variant {
	out := []variant{{name: "default"}}
	files, _ := filepath.Glob(filepath.Join(dir, "*_settings.yaml"))
	for _, f := range files {
		var s struct {
			FeatureFlags map[string]bool `json:"feature_flags"`
		}
		b, err := os.ReadFile(f)
		if err == nil {
			err = yaml.Unmarshal(b, &s)
		}
		if err != nil {
			t.Fatal(err)
		}
		v := variant{name: strings.TrimSuffix(filepath.Base(f), "_settings.yaml"), facade: s.FeatureFlags["KongServiceFacade"]}
		for k := range s.FeatureFlags {
			if k != "KongServiceFacade" {
				t.Fatalf("%s: feature flag %s not handled by this test", f, k)
			}
		}
		out = append(out, v)
	}
	return out
}

func readYAMLDoc(t *testing.T, path string) map[string]any {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// fallbackCase is a case's input as kongsync dump reads it, and the objects KIC's harness names.
type fallbackCase struct {
	objs    []store.Object
	broken  []kongdouble.TaggedObject
	opts    translator.Options
	plugins []string // the double's plugins (nil: Kong's bundled ones)
}

// loadCase reads in.yaml as `kongsync dump -f` does with KIC's defaults (and the facade gate),
// and lists the annotated objects among every object decoded, gated out or not, as KIC's harness
// lists them from its whole cache.
func loadCase(t *testing.T, in string, facade bool) fallbackCase {
	objs, _, _, err := store.ReadPathsChecked([]string{in}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var c fallbackCase
	for _, o := range objs {
		if o.GetAnnotations()[annBroken] != "true" {
			continue
		}
		ref, err := store.RefOf(o)
		if err != nil {
			t.Fatal(err)
		}
		gvk := ref.Kind.GVK()
		c.broken = append(c.broken, kongdouble.TaggedObject{Name: ref.Name, Namespace: ref.Namespace, Kind: gvk.Kind,
			Group: gvk.Group, Version: gvk.Version, UID: string(o.GetUID())})
	}
	if len(c.broken) == 0 {
		t.Fatalf("%s: no object annotated %s", in, annBroken)
	}
	objs, _ = store.GateKinds(objs, false, true)
	c.objs, _ = store.GateFacades(objs, facade)
	c.opts = translator.DefaultOptions()
	c.opts.AssumeMissingGateways = true // as dump: the corpus carries no Gateways
	c.opts.RouterFlavor = translator.RouterTraditionalCompatible
	c.opts.Features.KongServiceFacade = facade
	return c
}

// fallbackRun is what runFallback saw once the loop settled.
type fallbackRun struct {
	kong    *kongdouble.Server
	doc     map[string]any // what the double holds (nil: nothing)
	plan    fallback.Plan  // the loop's latest
	desired string         // the loop's latest configuration hash
	synced  bool           // the double holds it
}

// runFallback runs the loop against a double that rejects the case's first push, and waits for
// the loop to settle: the double holds the loop's latest configuration, or (the gate off) the
// loop rebuilt after the rejection a configuration the double had refused, which it does not
// post again.
func runFallback(t *testing.T, c fallbackCase, gate, lastGood bool) fallbackRun {
	st, _ := store.Load(c.objs)
	lv := startLive(t, st, c.opts, kongdouble.Options{Plugins: c.plugins}, func(k *kongdouble.Server) { k.RejectObjects(1, c.broken...) },
		func(cfg *kongsync.Config) {
			cfg.FallbackConfiguration, cfg.UseLastValidConfigForFallback = gate, lastGood
		})
	rejected := func() bool {
		return slices.ContainsFunc(lv.kong.Posts(), func(r kongdouble.Request) bool { return r.Status == 400 })
	}
	rebuilds := int64(1)
	if named := c.namedInStore(); gate || len(named) > 0 {
		rebuilds = 2 // the rejection left something out: the loop rebuilt
	}
	lv.waitFor("the loop to settle after the rejection", func() bool {
		rs, st := lv.loop.Replicas(), lv.loop.Stats()
		if !rejected() || len(rs) != 1 || st.RejectedObjects == 0 || st.Builds < rebuilds {
			return false
		}
		return rs[0].Synced || !gate && rs[0].RejectedHash == lv.loop.DesiredHash()
	})
	r := fallbackRun{kong: lv.kong, doc: lv.kong.Document(), plan: lv.loop.Fallback(), desired: lv.loop.DesiredHash(),
		synced: lv.loop.Replicas()[0].Synced}
	if gate && len(r.plan.Broken) == 0 {
		t.Fatalf("the loop reports no broken object after the rejection of %v", c.broken)
	}
	return r
}

// live is a running loop with the real translator, against one Kong double.
type live struct {
	t      *testing.T
	st     *store.Store
	kong   *kongdouble.Server
	loop   *kongsync.Loop
	events chan struct{} // the loop did something: look again

	mu     gosync.Mutex
	builds []kongsync.TranslationStats // every build's, in order
}

// lastBuild is the latest build's statistics.
func (lv *live) lastBuild() kongsync.TranslationStats {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	if len(lv.builds) == 0 {
		return kongsync.TranslationStats{}
	}
	return lv.builds[len(lv.builds)-1]
}

// startLive starts the loop on st, translating with opts (its Kong version, router flavor and
// edition following the double's, as runner wires it), against a double made with dopts;
// prepare sets the double up before the loop first reaches it, and cfg tunes the loop's
// configuration.
func startLive(t *testing.T, st *store.Store, opts translator.Options, dopts kongdouble.Options,
	prepare func(*kongdouble.Server), cfg func(*kongsync.Config)) *live {
	lv := &live{t: t, st: st, kong: kongdouble.New(dopts), events: make(chan struct{}, 1)}
	t.Cleanup(lv.kong.Close)
	if prepare != nil {
		prepare(lv.kong)
	}
	engine := translator.NewEngine(opts)
	c := kongsync.Config{
		Source: st, Build: engine.Build, Replicas: []string{lv.kong.URL()},
		Window: time.Millisecond, MaxDelay: 5 * time.Millisecond, LoadBudget: 1, Logger: logr.Discard(),
		RetryRejectedBase: time.Millisecond, RetryRejectedMax: 10 * time.Millisecond,
		SetKongVersion:    func(v semver.Version) { opts.KongVersion = v; engine.SetOptions(opts) },
		SetRouterFlavor:   func(f translator.RouterFlavor) { opts.RouterFlavor = f; engine.SetOptions(opts) },
		SetKongEnterprise: func(e bool) { opts.KongEnterprise = e; engine.SetOptions(opts) },
		SetEntitySchemas:  func(s translator.EntitySchemas) { opts.EntitySchemas = s; engine.SetOptions(opts) },
		Observe: func(e kongsync.Event) {
			if e.Type == kongsync.EventBuild {
				lv.mu.Lock()
				lv.builds = append(lv.builds, *e.Build)
				lv.mu.Unlock()
			}
			select {
			case lv.events <- struct{}{}:
			default:
			}
		},
	}
	if cfg != nil {
		cfg(&c)
	}
	var err error
	if lv.loop, err = kongsync.New(c); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- lv.loop.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return lv
}

// waitFor waits until cond holds, looking again at every request the double answers and every
// loop event.
func (lv *live) waitFor(what string, cond func() bool) {
	lv.t.Helper()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for {
		ch := lv.kong.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-lv.events:
		case <-timeout.C:
			lv.t.Fatalf("waiting for %s: posts %s, replicas %+v", what, postStatuses(lv.kong), lv.loop.Replicas())
		}
	}
}

// synced waits until the double holds the loop's latest configuration, and returns its hash.
func (lv *live) synced() string {
	lv.t.Helper()
	lv.waitFor("Kong to hold the latest configuration", func() bool {
		rs := lv.loop.Replicas()
		return len(rs) == 1 && rs[0].Synced && lv.loop.DesiredHash() != ""
	})
	return lv.loop.DesiredHash()
}

func postStatuses(k *kongdouble.Server) string {
	var out []string
	for _, p := range k.Posts() {
		out = append(out, fmt.Sprint(p.Status))
	}
	return strings.Join(out, ",")
}

// namedInStore lists, sorted, the rejected objects the store holds but IngressClasses, which
// kongsync's default never leaves out.
func (c fallbackCase) namedInStore() []store.Ref {
	snap, _ := store.NewSnapshot(c.objs...)
	var out []store.Ref
	for _, b := range c.broken {
		ref := store.Ref{Kind: store.Kind(b.Kind), Namespace: b.Namespace, Name: b.Name}
		if _, ok := snap.Get(ref); ok && ref.Kind != store.KindIngressClass {
			out = append(out, ref)
		}
	}
	slices.SortFunc(out, fallback.CompareRefs)
	return out
}

// coldWithout is a cold build of the case without the given objects, decoded as Kong would, and
// its hash. Its entity schemas are the bundled ones, those the double serves (the live loop reads
// them from it).
func coldWithout(t *testing.T, c fallbackCase, refs []store.Ref) (map[string]any, string) {
	st, _ := store.Load(c.objs)
	opts := c.opts
	opts.EntitySchemas = translator.BundledEntitySchemas()
	b, err := translator.BuildOnce(st.Snapshot().Without(refs...), opts)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b.Config.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc, b.Config.Hash()
}
