package translator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// This file and engine_random_test.go test the Engine contract: a warm Engine (one that built
// other snapshots before) returns exactly what a cold build (BuildOnce) of the same snapshot
// returns — the same config bytes, hash, problems and Gateway API statuses. They use only the Engine API (NewEngine,
// Build, BuildOnce, Built, Result, Problem, Options) and the store's public API, so that they
// hold whatever the Engine caches internally.

// TestGoldenWarm runs every golden case through a warm Engine, twice: once after the Engine
// built the previous case in sorted order (often a similar case: many objects of the same name
// with other content), once after it built the case half the corpus away (an unrelated case;
// the first case's "previous" is the last). The store is switched from the other case to this
// one object by object — deletes of the objects this case lacks, upserts of its new objects,
// of its objects whose content differs, and of those whose content is the same (a new pointer
// with the same content, as a manifest reload gives), some shared objects deleted first and
// re-added later, all in a shuffled, deterministic order — with a Build after every step. Every
// intermediate build must equal a cold build of the same snapshot, and the final one must match
// kong.yaml and problems.txt (under -update: the cold build, which TestGolden writes) and the
// cold build's config bytes and hash.
func TestGoldenWarm(t *testing.T) {
	dirs := goldenCases(t)
	n := len(dirs)
	for i, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			opts := caseOptions(t, dir)
			cold := coldBuildWith(t, snapshotOf(t, loadObjects(t, dir)), opts)
			checkColdConsistent(t, cold)
			for _, from := range []struct{ label, dir string }{
				{"after-previous", dirs[(i+n-1)%n]},
				{"after-distant", dirs[(i+n/2)%n]},
			} {
				t.Run(from.label, func(t *testing.T) {
					warmGolden(t, from.dir, dir, opts, cold)
				})
			}
		})
	}
}

// warmGolden builds case fromDir with a new Engine, switches the store to case toDir step by
// step (a Build after each, compared with a cold build), and checks the final build; all with
// toDir's options.
func warmGolden(t *testing.T, fromDir, toDir string, opts Options, cold Built) {
	t.Helper()
	st := store.New()
	fromObjs := uniqueObjects(loadObjects(t, fromDir))
	for _, o := range fromObjs {
		upsertOrFail(t, st, o)
	}
	eng := NewEngine(opts)
	if _, err := eng.Build(st.Snapshot()); err != nil {
		t.Fatalf("building %s: %v", filepath.Base(fromDir), err)
	}
	ops := switchOps(fromObjs, uniqueObjects(loadObjects(t, toDir)),
		fmt.Sprintf("%s>%s", filepath.Base(fromDir), filepath.Base(toDir)))
	var last Built
	for step, op := range ops {
		op.apply(t, st)
		snap := st.Snapshot()
		got, err := eng.Build(snap)
		if err != nil {
			t.Fatalf("step %d/%d (%s): Build: %v", step+1, len(ops), op, err)
		}
		if msg := builtMismatch(got, coldBuildWith(t, snap, opts)); msg != "" {
			t.Fatalf("from %s, step %d/%d (%s): the warm build differs from a cold build of the same snapshot:\n%s",
				filepath.Base(fromDir), step+1, len(ops), op, msg)
		}
		last = got
	}
	if len(ops) == 0 { // both cases are empty
		var err error
		if last, err = eng.Build(st.Snapshot()); err != nil {
			t.Fatal(err)
		}
	}
	// The same snapshot once more, and a new snapshot object of the same content: both warm.
	again, err := eng.Build(st.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if msg := builtMismatch(again, last); msg != "" {
		t.Fatalf("building the same snapshot again gives another result:\n%s", msg)
	}
	if msg := builtMismatch(last, cold); msg != "" {
		t.Fatalf("from %s: the final warm build differs from the cold build of the case:\n%s", filepath.Base(fromDir), msg)
	}
	gotYAML, err := document.YAML(last.Document)
	if err != nil {
		t.Fatal(err)
	}
	gotProblems := problemsText(last.Problems)
	if *update { // TestGolden rewrites the files from the cold build: compare with that
		wantYAML, err := document.YAML(cold.Document)
		if err != nil {
			t.Fatal(err)
		}
		compareText(t, "kong.yaml (cold build)", gotYAML, wantYAML)
		compareText(t, "problems (cold build)", []byte(gotProblems), []byte(problemsText(cold.Problems)))
		return
	}
	compareText(t, filepath.Join(toDir, "kong.yaml"), gotYAML, readGolden(t, filepath.Join(toDir, "kong.yaml"), false))
	_, refused := loadCase(t, toDir) // problems.txt holds the reader's refusals too
	compareText(t, filepath.Join(toDir, "problems.txt"), []byte(problemsText(WithRefusals(last.Problems, refused))),
		readGolden(t, filepath.Join(toDir, "problems.txt"), true))
}

// storeOp is one step of switching a store from one set of objects to another.
type storeOp struct {
	del  *store.Ref   // delete this ref
	obj  store.Object // else upsert this object
	what string       // "new", "changed", "same content", "re-add", "delete", "delete (re-added later)"
}

func (op storeOp) String() string {
	if op.del != nil {
		return op.what + " " + op.del.String()
	}
	ref, _ := store.RefOf(op.obj)
	return "upsert " + op.what + " " + ref.String()
}

func (op storeOp) apply(t testing.TB, st *store.Store) {
	t.Helper()
	if op.del != nil {
		if !st.Delete(*op.del) {
			t.Fatalf("%s: not in the store", op)
		}
		return
	}
	changed, err := st.Upsert(op.obj)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	if !changed && op.obj.GetResourceVersion() == "" {
		t.Fatalf("%s: the store ignored an object without resourceVersion", op)
	}
}

// switchOps lists the single-object steps that turn a store holding from into one holding to
// (both without duplicate refs), in a shuffled order seeded by label: deletes and upserts
// interleave. Every object of to is upserted, also those of equal content; every third shared
// object whose content changes is deleted first and re-added by a later step.
func switchOps(from, to []store.Object, label string) []storeOp {
	old := map[store.Ref]store.Object{}
	for _, o := range from {
		ref, _ := store.RefOf(o)
		old[ref] = o
	}
	inTo := map[store.Ref]bool{}
	var ops []storeOp
	type pair struct{ del, add int } // indexes into ops of a delete and its later re-add
	var pairs []pair
	changed := 0
	for _, o := range to {
		ref, _ := store.RefOf(o)
		inTo[ref] = true
		prev, shared := old[ref]
		switch {
		case !shared:
			ops = append(ops, storeOp{obj: o, what: "new"})
		case reflect.DeepEqual(prev, o):
			ops = append(ops, storeOp{obj: o, what: "same content"})
		default:
			changed++
			if changed%3 == 0 {
				r := ref
				pairs = append(pairs, pair{len(ops), len(ops) + 1})
				ops = append(ops, storeOp{del: &r, what: "delete (re-added later)"}, storeOp{obj: o, what: "re-add"})
			} else {
				ops = append(ops, storeOp{obj: o, what: "changed"})
			}
		}
	}
	for _, o := range from {
		if ref, _ := store.RefOf(o); !inTo[ref] {
			ops = append(ops, storeOp{del: &ref, what: "delete"})
		}
	}
	h := fnv.New64a()
	h.Write([]byte(label))
	r := rand.New(rand.NewPCG(h.Sum64(), 7))
	perm := r.Perm(len(ops))
	pos := make([]int, len(ops)) // pos[i]: where ops[i] goes
	for dst, src := range perm {
		pos[src] = dst
	}
	for _, p := range pairs { // a re-add must follow its delete
		if pos[p.del] > pos[p.add] {
			pos[p.del], pos[p.add] = pos[p.add], pos[p.del]
		}
	}
	out := make([]storeOp, len(ops))
	for i, op := range ops {
		out[pos[i]] = op
	}
	return out
}

// uniqueObjects keeps the last object of each ref, in the order refs first appear: the objects
// a store (or store.NewSnapshot) holds after upserting objs in order.
func uniqueObjects(objs []store.Object) []store.Object {
	at := map[store.Ref]int{}
	var out []store.Object
	for _, o := range objs {
		ref, err := store.RefOf(o)
		if err != nil {
			panic(err)
		}
		if i, ok := at[ref]; ok {
			out[i] = o
			continue
		}
		at[ref] = len(out)
		out = append(out, o)
	}
	return out
}

// upsertOrFail upserts o (kept by the store: do not modify it afterwards).
func upsertOrFail(t testing.TB, st *store.Store, o store.Object) {
	t.Helper()
	if _, err := st.Upsert(o); err != nil {
		t.Fatal(err)
	}
}

func snapshotOf(t testing.TB, objs []store.Object) *store.Snapshot {
	t.Helper()
	snap, err := store.NewSnapshot(objs...)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// coldBuild is BuildOnce with default options, failing the test on error.
func coldBuild(t testing.TB, snap *store.Snapshot) Built {
	t.Helper()
	return coldBuildWith(t, snap, DefaultOptions())
}

func coldBuildWith(t testing.TB, snap *store.Snapshot, opts Options) Built {
	t.Helper()
	b, err := BuildOnce(snap, opts)
	if err != nil {
		t.Fatalf("cold build: %v", err)
	}
	return b
}

// warmMatchesCold builds snap with eng and cold, failing (naming what) when their configs
// differ; it returns the cold build.
func warmMatchesCold(t testing.TB, eng *Engine, snap *store.Snapshot, opts Options, what string) Built {
	t.Helper()
	got, err := eng.Build(snap)
	if err != nil {
		t.Fatal(err)
	}
	want := coldBuildWith(t, snap, opts)
	if !bytes.Equal(got.Config.Bytes(), want.Config.Bytes()) {
		t.Fatalf("%s: warm build differs from a cold one:\n%s", what, firstDiff(got.Config.Bytes(), want.Config.Bytes()))
	}
	return want
}

// checkColdConsistent checks that a cold build's config is the plain encoding of its document
// and its hash Kong's hash of those bytes: the reference the warm builds are compared with.
func checkColdConsistent(t testing.TB, b Built) {
	t.Helper()
	js, err := document.JSON(b.Document)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Config.Bytes(), js) {
		t.Fatalf("cold build: Config differs from document.JSON of its document\n%s", bytesExcerpt(b.Config.Bytes(), js))
	}
	if b.Hash() != document.Hash(js) {
		t.Fatalf("cold build: hash %s, document.Hash of its bytes %s", b.Hash(), document.Hash(js))
	}
}

// builtMismatch describes how got differs from want (config bytes, hash, problems, the Gateway
// API routes' parent statuses and the Gateways' statuses), with diff-friendly excerpts, or
// returns "" when they are the same. It also checks that got's Config is the encoding of got's
// Document.
func builtMismatch(got, want Built) string {
	var b strings.Builder
	gb, wb := got.Config.Bytes(), want.Config.Bytes()
	if !bytes.Equal(gb, wb) {
		fmt.Fprintf(&b, "config JSON differs (%d bytes warm, %d cold); indented:\n", len(gb), len(wb))
		var gi, wi bytes.Buffer
		gerr, werr := json.Indent(&gi, gb, "", " "), json.Indent(&wi, wb, "", " ")
		if gerr != nil || werr != nil || bytes.Equal(gi.Bytes(), wi.Bytes()) {
			fmt.Fprintf(&b, "(indenting: %v / %v)\n%s", gerr, werr, bytesExcerpt(gb, wb))
		} else {
			b.WriteString(lineDiff("warm", "cold", gi.Bytes(), wi.Bytes()))
		}
	}
	if gh, wh := got.Hash(), want.Hash(); gh != wh {
		fmt.Fprintf(&b, "hash differs: warm %s, cold %s\n", gh, wh)
	}
	if gh := document.Hash(gb); gh != got.Hash() {
		fmt.Fprintf(&b, "warm hash %s is not the hash of its own bytes (%s)\n", got.Hash(), gh)
	}
	if js, err := document.JSON(got.Document); err != nil || !bytes.Equal(js, gb) {
		fmt.Fprintf(&b, "warm Config is not document.JSON of the warm Document (err %v)\n%s", err, bytesExcerpt(gb, js))
	}
	if !slices.Equal(got.Problems, want.Problems) {
		b.WriteString("problems differ\n")
		b.WriteString(lineDiff("warm", "cold", []byte(problemsText(got.Problems)), []byte(problemsText(want.Problems))))
	}
	if !sameStatuses(got.Result, want.Result) {
		b.WriteString("Gateway API statuses differ\n")
		b.WriteString(lineDiff("warm", "cold", []byte(statusFields(got.Result)), []byte(statusFields(want.Result))))
	}
	return b.String()
}

// sameStatuses reports whether two results have the same Parents and Gateways, every field (a
// nil and an empty list alike: status writers do not tell them apart): deeply equal, or else
// rendered alike.
func sameStatuses(a, b Result) bool {
	if reflect.DeepEqual(a.Parents, b.Parents) && reflect.DeepEqual(a.Gateways, b.Gateways) {
		return true
	}
	return statusFields(a) == statusFields(b)
}

// statusFields renders a result's Parents and Gateways with every field, one line per parentRef
// and per listener (a nil and an empty list print alike: status writers do not tell them apart).
func statusFields(r Result) string {
	var b strings.Builder
	for _, p := range r.Parents {
		fmt.Fprintf(&b, "parent %+v\n", p)
	}
	for _, g := range r.Gateways {
		fmt.Fprintf(&b, "gateway %s: %d listeners\n", g.Gateway, len(g.Listeners))
		for _, l := range g.Listeners {
			fmt.Fprintf(&b, "  listener %+v\n", l)
		}
	}
	return b.String()
}

func readGolden(t testing.TB, path string, optional bool) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !(optional && os.IsNotExist(err)) {
		t.Fatal(err)
	}
	return b
}

func compareText(t testing.TB, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("warm build: %s differs\n%s", what, lineDiff("warm", "want", got, want))
	}
}

// lineDiff is a short diff of two texts: the differing lines, with three lines of context,
// from an LCS of the region between their common prefix and suffix (which, when large, is
// shown cut instead).
func lineDiff(gotName, wantName string, got, want []byte) string {
	a, b := strings.SplitAfter(string(got), "\n"), strings.SplitAfter(string(want), "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	const ctx, maxLines = 3, 80
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n@@ line %d @@\n", gotName, wantName, max(pre-ctx, 0)+1)
	lines := 0
	emit := func(prefix, line string) {
		if lines++; lines == maxLines {
			out.WriteString("... (cut)\n")
		}
		if lines < maxLines {
			out.WriteString(prefix + strings.TrimSuffix(line, "\n") + "\n")
		}
	}
	for _, l := range a[max(pre-ctx, 0):pre] {
		emit(" ", l)
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > 4_000_000 {
		for _, l := range ma {
			emit("-", l)
		}
		for _, l := range mb {
			emit("+", l)
		}
	} else {
		// LCS table over the middle, then a walk emitting - (only in got) and + (only in want).
		lcs := make([][]int32, len(ma)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(mb)+1)
		}
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				emit(" ", ma[i])
				i, j = i+1, j+1
			case j >= len(mb) || i < len(ma) && lcs[i+1][j] >= lcs[i][j+1]:
				emit("-", ma[i])
				i++
			default:
				emit("+", mb[j])
				j++
			}
		}
	}
	for _, l := range a[len(a)-suf : min(len(a)-suf+ctx, len(a))] {
		emit(" ", l)
	}
	return out.String()
}

// bytesExcerpt shows where two byte strings first differ, with some context.
func bytesExcerpt(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-200, 0)
	cut := func(b []byte) []byte { return b[min(from, len(b)):min(i+200, len(b))] }
	return fmt.Sprintf("first difference at byte %d:\nwarm: …%s…\ncold: …%s…\n", i, cut(got), cut(want))
}
