package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/yaml"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/safetext"
	"github.com/kongsync/kongsync/runner"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/translator"
)

// Exit statuses of diff: the same configuration, a different one, or no comparison made.
const (
	diffSame      = 0
	diffDifferent = 1
	diffError     = 2
)

// diffFlags are diff's settings.
type diffFlags struct {
	files      stringList
	kubeconfig string
	namespaces stringList
	adminURL   string
	token      string
	caFile     string
	skipVerify bool
	opts       translator.Options
	translate  translateFlags   // --feature-gates, --gateway-to-reconcile, --enable-drain-support
	version    kongVersionFlag  // --kong-version; unset: the Kong's own
	flavor     routerFlavorFlag // --router-flavor; unset: the Kong's own
	compare    document.CompareOptions
	format     string
}

// diffJSON is diff's --format json output: the entity-level report, whether Kong's
// configuration equals the translation and, when Kong reported holding exactly its bytes, the
// hash.
type diffJSON struct {
	Equal bool   `json:"equal"`
	Hash  string `json:"hash,omitempty"`
	document.DiffReport
}

func newDiffFlagSet(f *diffFlags, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&f.files, "f", "manifest file or directory (recursive), or - for stdin; repeatable (else the cluster)")
	fs.Var(&f.files, "filename", "same as -f")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "without -f: the cluster's kubeconfig; else $KUBECONFIG; else the in-cluster config")
	fs.Var(&f.namespaces, "watch-namespace", "without -f: namespace to read (repeatable; all when unset), as the controller's flag")
	fs.StringVar(&f.adminURL, "kong-admin-url", "http://localhost:8001", "Kong admin API URL")
	fs.StringVar(&f.token, "kong-admin-token", "", "Kong-Admin-Token header value")
	fs.StringVar(&f.caFile, "kong-admin-ca-cert-file", "", "PEM CA bundle for the admin API")
	fs.BoolVar(&f.skipVerify, "kong-admin-tls-skip-verify", false, "do not verify the admin API certificate")
	f.opts = translator.DefaultOptions()
	f.opts.Now = time.Now // KIC's expiry check of CA certificates
	fs.StringVar(&f.opts.IngressClass, "ingress-class", f.opts.IngressClass, "the ingress class to translate")
	fs.StringVar(&f.opts.ClusterDomain, "cluster-domain", "", "cluster domain appended to Service DNS names (as the controller's flag)")
	fs.StringVar(&f.opts.GatewayControllerName, "gateway-api-controller-name", f.opts.GatewayControllerName, "GatewayClass controllerName served")
	defineHardeningFlags(fs, &f.opts.Hardening)
	defineTranslateFlags(fs, &f.translate)
	f.version = kongVersionFlag{v: &f.opts.KongVersion, enterprise: &f.opts.KongEnterprise, fromKong: true}
	fs.Var(&f.version, "kong-version", "Kong Gateway `version` to translate for (e.g. 3.11.0); default: the version the Kong at --kong-admin-url reports in GET /, as the controller does")
	f.flavor = routerFlavorFlag{f: &f.opts.RouterFlavor, fromKong: true}
	fs.Var(&f.flavor, "router-flavor", "Kong's router_flavor to translate for (traditional, traditional_compatible, expressions); "+
		"default: the one the Kong at --kong-admin-url reports in GET /, as the controller does")
	fs.BoolVar(&f.compare.IgnoreIDs, "ignore-ids", false, "match and compare entities without their ids")
	fs.BoolVar(&f.compare.IgnoreTags, "ignore-tags", false, "leave tags out of the comparison")
	fs.StringVar(&f.format, "format", "text", "output: text (one line per difference) or json (added, removed, changed with fields)")
	fs.BoolVar(&f.compare.Strict, "strict", false, "also report fields only Kong has (a real Kong fills in defaults and timestamps)")
	return fs
}

// diffCommand compares the configuration a Kong replica holds (GET /config) with the one
// kongsync translates from manifests (-f) or from the cluster, entity by entity. Secret fields
// are redacted on both sides as /debug/config redacts them (document.CompareOptions): a changed
// secret is reported, its values never. Its output is for terminals: names and config keys are
// escaped (safetext), in the JSON output as \u escapes.
func diffCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stdout = safetext.Writer{W: stdout}
	f := &diffFlags{}
	if err := newDiffFlagSet(f, stderr).Parse(args); err != nil {
		return diffError
	}
	if f.format != "text" && f.format != "json" {
		fmt.Fprintf(stderr, "kongsync diff: --format %q: want text or json\n", f.format)
		return diffError
	}
	if err := f.translate.apply(&f.opts); err != nil {
		fmt.Fprintln(stderr, "kongsync diff:", err)
		return diffError
	}
	diffs, same, err := runDiff(ctx, f, stdin, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "kongsync diff:", err)
		return diffError
	}
	if f.format == "json" {
		return writeDiffJSON(stdout, stderr, diffs, same)
	}
	for _, d := range diffs {
		fmt.Fprintln(stdout, d)
	}
	if same != "" {
		fmt.Fprintf(stderr, "kongsync diff: Kong holds exactly this configuration (hash %s)\n", same)
		return diffSame
	}
	if len(diffs) == 0 {
		fmt.Fprintln(stderr, "kongsync diff: no difference")
		return diffSame
	}
	fmt.Fprintf(stderr, "kongsync diff: %d difference(s) (-: only in kongsync's configuration, +: only in Kong, ~: a field differs)\n", len(diffs))
	return diffDifferent
}

// writeDiffJSON prints the report as one JSON document; the exit status is text's.
func writeDiffJSON(stdout, stderr io.Writer, diffs []document.Difference, same string) int {
	out := diffJSON{Equal: same != "" || len(diffs) == 0, Hash: same, DiffReport: document.Report(diffs)}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "<redacted>" as it reads
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(stderr, "kongsync diff:", err)
		return diffError
	}
	_, _ = stdout.Write(b.Bytes())
	if out.Equal {
		return diffSame
	}
	return diffDifferent
}

// runDiff builds the expected configuration and compares it with Kong's. same is the hash when
// Kong reports holding exactly the expected bytes (no comparison needed).
func runDiff(ctx context.Context, f *diffFlags, stdin io.Reader, stderr io.Writer) ([]document.Difference, string, error) {
	rep, err := diffReplica(f)
	if err != nil {
		return nil, "", err
	}
	if err := translateForKong(ctx, f, rep); err != nil {
		return nil, "", err
	}
	built, err := expectedConfig(ctx, f, rep, stdin, stderr)
	if err != nil {
		return nil, "", err
	}
	if hash, err := rep.Status(ctx); err == nil && hash == built.Hash() {
		return nil, hash, nil
	}
	live, err := rep.LiveConfig(ctx)
	if err != nil {
		return nil, "", err
	}
	actual, err := decodeConfig([]byte(live))
	if err != nil {
		return nil, "", fmt.Errorf("Kong's configuration: %w", err)
	}
	expected, err := decodeConfig(built.Config.Bytes())
	if err != nil {
		return nil, "", err
	}
	return document.Compare(expected, actual, f.compare), "", nil
}

// translateForKong sets the Kong version and router flavor not given as flags to what the Kong
// reports in GET /, as the controller translates for it. A Kong whose GET / cannot be used fails
// the diff only if something is to be read from it.
func translateForKong(ctx context.Context, f *diffFlags, rep *kongsync.Replica) error {
	if f.version.set && f.flavor.set {
		return nil
	}
	root, err := rep.Root(ctx)
	if err != nil {
		return fmt.Errorf("Kong's version and router flavor (give --kong-version and --router-flavor to translate for them): %w", err)
	}
	if !f.version.set {
		f.opts.KongVersion, f.opts.KongEnterprise = root.Version, root.Enterprise
	}
	if !f.flavor.set {
		f.opts.RouterFlavor = root.RouterFlavor
	}
	return nil
}

// expectedConfig translates the manifests, or the cluster, as dump and the controller do, with
// the Kong's schemas of the custom entity types (as the controller reads them); problems are
// printed, the configuration of everything else compared.
func expectedConfig(ctx context.Context, f *diffFlags, rep *kongsync.Replica, stdin io.Reader, stderr io.Writer) (translator.Built, error) {
	var snap *store.Snapshot
	var notes []store.Note
	var refusals []store.Refusal
	opts := f.opts
	if len(f.files) > 0 {
		objs, refused, readNotes, err := store.ReadPaths(f.files, stdin)
		if err != nil {
			return translator.Built{}, err
		}
		objs, gateNotes := store.GateKinds(objs, f.translate.gatewayAlpha(), !f.translate.gates.named["GatewayAlpha"])
		objs, facadeNotes := store.GateFacades(objs, f.translate.gates.featureGates["KongServiceFacade"])
		objs, customNotes := store.GateCustomEntities(objs, f.translate.customEntity())
		gateNotes = append(append(gateNotes, facadeNotes...), customNotes...)
		st, loadNotes := store.Load(objs)
		notes, refusals = append(append(store.CollapseUnread(readNotes), gateNotes...), loadNotes...), refused
		snap, opts.AssumeMissingGateways = st.Snapshot(), true
	} else {
		cfg := runner.Defaults()
		cfg.Kubeconfig, cfg.WatchNamespaces = f.kubeconfig, f.namespaces
		cfg.GatewayAlpha = f.translate.gatewayAlpha()
		cfg.Features.KongServiceFacade = f.translate.gates.featureGates["KongServiceFacade"]
		cfg.DisableKongCustomEntity = !f.translate.customEntity()
		var err error
		if snap, err = runner.ClusterSnapshot(ctx, cfg, logr.Discard()); err != nil {
			return translator.Built{}, err
		}
	}
	opts.EntitySchemas = kongSchemas(ctx, rep, snap)
	b, err := translator.BuildOnce(snap, opts)
	if err != nil {
		return b, err
	}
	printFindings(stderr, notes, translator.WithRefusals(b.Problems, refusals))
	return b, nil
}

// kongSchemas reads the Kong's schemas of the snapshot's custom entity types (GET
// /schemas/<type>, at most kongsync.MaxSchemaTypes), as the controller does; a type that cannot
// be read has Err set, and its KongCustomEntities get a problem.
func kongSchemas(ctx context.Context, rep *kongsync.Replica, snap *store.Snapshot) translator.EntitySchemas {
	types := translator.CustomEntityTypes(snap)
	if len(types) == 0 {
		return nil
	}
	out := translator.EntitySchemas{}
	for i, typ := range types {
		if i == kongsync.MaxSchemaTypes {
			break
		}
		s, err := rep.Schema(ctx, typ)
		if err != nil {
			s = translator.EntitySchema{Err: "reading Kong's schema: " + err.Error()}
		}
		out[typ] = s
	}
	return out
}

func diffReplica(f *diffFlags) (*kongsync.Replica, error) {
	client, err := kongsync.NewHTTPClient(kongsync.TLSOptions{CAFile: f.caFile, InsecureSkipVerify: f.skipVerify})
	if err != nil {
		return nil, err
	}
	return kongsync.NewReplica(f.adminURL, kongsync.ReplicaOptions{Client: client, Token: f.token})
}

// decodeConfig reads a declarative configuration in JSON or YAML; empty means no entity.
func decodeConfig(b []byte) (map[string]any, error) {
	js, err := yaml.YAMLToJSON(b)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		return nil, err
	}
	if m == nil && len(b) > 0 && string(js) != "null" {
		return nil, errors.New("not a declarative configuration")
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}
