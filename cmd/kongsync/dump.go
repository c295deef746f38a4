package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/safetext"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// Exit statuses of dump: a config was written but some objects were rejected (exitProblems),
// or nothing could be written at all (exitError).
const (
	exitOK       = 0
	exitProblems = 1
	exitError    = 2
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// dumpCommand renders the Kong configuration of manifest files: the same translator as the live
// controller, no cluster needed. Problems go to stderr; the config of everything else still goes
// to stdout (or -o), and the exit status is 1 when any object or document was rejected.
func dumpCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dump", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var files stringList
	fs.Var(&files, "f", "manifest file or directory (recursive), or - for stdin; repeatable")
	fs.Var(&files, "filename", "same as -f")
	out := fs.String("o", "", "write the config to this file instead of stdout (readable by its owner only: created 0600, replaced atomically)")
	format := fs.String("format", "yaml", "output format: yaml or json")
	allow := fs.Bool("allow-problems", false, "exit 0 even when objects were rejected")
	checked := fs.Bool("check-objects", true, "report, as problems, what an API server would refuse in the manifests (false: do not check, e.g. test fixtures)")
	opts := translator.DefaultOptions()
	opts.Now = time.Now               // KIC's expiry check of CA certificates
	opts.AssumeMissingGateways = true // manifests rarely carry the cluster's Gateways (issue 12)
	fs.StringVar(&opts.IngressClass, "ingress-class", opts.IngressClass, "the ingress class to translate")
	// The controller's default (KIC's), so that dump and the live controller translate alike.
	opts.ClusterDomain = ""
	fs.StringVar(&opts.ClusterDomain, "cluster-domain", opts.ClusterDomain, "cluster domain appended to Service DNS names (as the controller's flag)")
	fs.StringVar(&opts.GatewayControllerName, "gateway-api-controller-name", opts.GatewayControllerName, "GatewayClass controllerName served (as the controller's flag)")
	fs.Var(&kongVersionFlag{v: &opts.KongVersion, enterprise: &opts.KongEnterprise}, "kong-version", kongVersionUsage)
	opts.RouterFlavor = translator.RouterTraditionalCompatible
	fs.Var(&routerFlavorFlag{f: &opts.RouterFlavor}, "router-flavor", routerFlavorUsage)
	defineHardeningFlags(fs, &opts.Hardening)
	var tf translateFlags
	defineTranslateFlags(fs, &tf)
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if err := tf.apply(&opts); err != nil {
		fmt.Fprintln(stderr, "kongsync dump:", err)
		return exitError
	}
	if len(files) == 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "kongsync dump: give manifests with -f PATH (repeatable), and no other arguments")
		return exitError
	}
	if *format != "yaml" && *format != "json" {
		fmt.Fprintf(stderr, "kongsync dump: --format must be yaml or json, not %q\n", *format)
		return exitError
	}
	objs, refused, notes, err := store.ReadPathsChecked(files, stdin, *checked)
	if err != nil {
		fmt.Fprintln(stderr, "kongsync dump:", err)
		return exitError
	}
	objs, gateNotes := store.GateKinds(objs, tf.gatewayAlpha(), !tf.gates.named["GatewayAlpha"])
	objs, facadeNotes := store.GateFacades(objs, tf.gates.featureGates["KongServiceFacade"])
	objs, customNotes := store.GateCustomEntities(objs, tf.customEntity())
	gateNotes = append(append(gateNotes, facadeNotes...), customNotes...)
	st, loadNotes := store.Load(objs)
	notes = append(append(store.CollapseUnread(notes), gateNotes...), loadNotes...)
	res, body, err := translateAndEncode(st.Snapshot(), opts, *format)
	if err != nil {
		fmt.Fprintln(stderr, "kongsync dump:", err)
		return exitError
	}
	if err := write(*out, body, stdout); err != nil {
		fmt.Fprintln(stderr, "kongsync dump:", err)
		return exitError
	}
	if n := assumedGateways(res.Parents); n != "" {
		notes = append(notes, store.Note{Source: "gateway-api", Msg: n})
	}
	rejected := report(stderr, notes, translator.WithRefusals(res.Problems, refused))
	if rejected && !*allow {
		return exitProblems
	}
	return exitOK
}

// translateAndEncode translates once and writes the config as JSON (the bytes Kong is sent:
// the encoded build) or as YAML of the same document. YAML needs no JSON encoding and no md5,
// so it is made from the translation alone: a 10k-Ingress dump then never holds the ~18 MB of
// JSON pieces beside the document.
func translateAndEncode(snap *store.Snapshot, opts translator.Options, format string) (translator.Result, net.Buffers, error) {
	if format == "json" {
		b, err := translator.BuildOnce(snap, opts)
		if err != nil {
			return translator.Result{}, nil, err
		}
		return b.Result, net.Buffers{b.Config.Bytes(), []byte{'\n'}}, nil
	}
	res := translator.TranslateOnce(snap, opts)
	body, _, err := document.YAMLPieces(res.Document)
	return res, body, err
}

// write puts the config on stdout, or into the file -o names, readable by its owner only.
func write(path string, body net.Buffers, stdout io.Writer) error {
	if path == "" || path == "-" {
		_, err := body.WriteTo(stdout)
		return err
	}
	return writePrivate(path, body)
}

// report prints notes and problems on stderr and says whether anything was rejected.
func report(stderr io.Writer, notes []store.Note, problems []translator.Problem) bool {
	rejected := printFindings(stderr, notes, problems)
	if rejected {
		fmt.Fprintf(stderr, "kongsync dump: %d problem(s), %d note(s); the config of everything else was written\n", len(problems), len(notes))
	}
	return rejected
}

// printFindings prints the reader's notes and the problems, one line each, as dump and diff
// report them, and says whether anything was rejected. Problems escape themselves
// (Problem.String); a note quotes file paths and reader errors, escaped here.
func printFindings(stderr io.Writer, notes []store.Note, problems []translator.Problem) bool {
	rejected := len(problems) > 0
	for _, n := range notes {
		level := "note"
		if n.Err {
			level, rejected = "error", true
		}
		fmt.Fprintf(stderr, "%s: %s\n", level, safetext.Escape(n.String()))
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "problem: %s\n", p)
	}
	return rejected
}

// assumedGateways words, once, the offline exception: routes whose parent Gateway or
// GatewayClass is not among the manifests were translated as if it existed and were kongsync's.
func assumedGateways(parents []translator.ParentStatus) string {
	var gws []string
	for _, p := range parents {
		if p.Assumed && !slices.Contains(gws, p.Gateway) {
			gws = append(gws, p.Gateway)
		}
	}
	if len(gws) == 0 {
		return ""
	}
	return fmt.Sprintf("%d parent Gateway(s) (%s) or their GatewayClass are not among the manifests; "+
		"assumed to exist and be served by kongsync, their checks skipped", len(gws), strings.Join(gws, ", "))
}
