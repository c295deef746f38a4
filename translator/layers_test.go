package translator

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The translator is one Go package in layers, read top to bottom: the engine (the stage order
// and what each stage hands the next), the families (one per kind of route source, each owning
// its memo and kept state), the shared builders more than one family uses, the core (the
// per-build context, the memo machinery, problems) and the vocabulary every layer speaks.
// A file references only files of its own layer or below; a family file references no other
// family's files. layers is the one place that says which file is where: a new file must be
// added to it, and a family file's name starts with its family.
type layer struct {
	rank   int    // higher is above
	family string // for the families layer: the family, which is also the file prefix
}

var (
	engineLayer  = layer{rank: 5}
	builderLayer = layer{rank: 3}
	coreLayer    = layer{rank: 2}
	vocabLayer   = layer{rank: 1}
)

func family(name string) layer { return layer{rank: 4, family: name} }

var layers = map[string]layer{
	// The plugin stage attaches plugins to what every family made, so it sits with the engine;
	// the plugin family is the plugin pieces.
	"engine.go":           engineLayer,
	"assemble.go":         engineLayer,
	"check.go":            engineLayer,
	"pluginattach.go":     engineLayer,
	"pluginrels.go":       engineLayer,
	"pluginstage.go":      engineLayer,
	"pluginglobal.go":     engineLayer,
	"pluginentity.go":     engineLayer,
	"pluginstagebuild.go": engineLayer,
	// The custom entity stage reads the plugin stage's relations (what each plugin is attached
	// to); its pieces are a family.
	"customstage.go": engineLayer,

	"ingress.go":        family("ingress"),
	"ingressclass.go":   family("ingress"),
	"ingressstage.go":   family("ingress"),
	"ingressservice.go": family("ingress"),
	"ingressfacade.go":  family("ingress"),
	"ingressident.go":   family("ingress"),
	"ingressoverlap.go": family("ingress"),
	"ingressshare.go":   family("ingress"),
	"ingresspaths.go":   family("ingress"),
	"ingressbudget.go":  family("ingress"),
	"ingresstypes.go":   family("ingress"),
	"ingressbuild.go":   family("ingress"),
	"ingressexpr.go":    family("ingress"),

	"gwroute.go":     family("gw"),
	"gwbackend.go":   family("gw"),
	"gwfilters.go":   family("gw"),
	"gwgateway.go":   family("gw"),
	"gwgrpc.go":      family("gw"),
	"gwhttp.go":      family("gw"),
	"gwl4.go":        family("gw"),
	"gwparents.go":   family("gw"),
	"gwstage.go":     family("gw"),
	"gwexpr.go":      family("gw"),
	"gwexprmatch.go": family("gw"),
	"gwexprtie.go":   family("gw"),
	"gwgrpcexpr.go":  family("gw"),
	"gwexprorder.go": family("gw"),
	"gwhttpmatch.go": family("gw"),
	"gwgrpcmatch.go": family("gw"),

	"streamassemble.go": family("stream"),
	"streamingress.go":  family("stream"),

	"consumer.go":            family("consumer"),
	"consumerclaims.go":      family("consumer"),
	"consumergroup.go":       family("consumer"),
	"consumerstage.go":       family("consumer"),
	"consumercredentials.go": family("consumer"),
	"consumertypes.go":       family("consumer"),
	"consumerbuild.go":       family("consumer"),
	"consumerentry.go":       family("consumer"),
	"consumerclaimkeys.go":   family("consumer"),

	"plugin.go":      family("plugin"),
	"plugindepth.go": family("plugin"),

	"vault.go":   family("vault"),
	"license.go": family("license"),

	"customentity.go": family("custom"),

	"servicesettings.go":  builderLayer,
	"routesettings.go":    builderLayer,
	"regexcheck.go":       builderLayer,
	"endpointslice.go":    builderLayer,
	"upstreampolicy.go":   builderLayer,
	"kongingress.go":      builderLayer,
	"certtls.go":          builderLayer,
	"certca.go":           builderLayer,
	"classparams.go":      builderLayer,
	"class.go":            builderLayer,
	"annotationparser.go": builderLayer,
	"refgrant.go":         builderLayer,
	"uniqueids.go":        builderLayer,
	"routeexpr.go":        builderLayer,
	"routematch.go":       builderLayer, // the flavor-neutral description of a route's match
	"routerender.go":      builderLayer, // its rendering: traditional fields, or expression and priority
	"routerenderexpr.go":  builderLayer,
	"routepriority.go":    builderLayer,

	"translator.go":   coreLayer,
	"api.go":          coreLayer,
	"memo.go":         coreLayer,
	"parallel.go":     coreLayer,
	"memoreaders.go":  coreLayer,
	"memoview.go":     coreLayer,
	"memokinds.go":    coreLayer,
	"problem.go":      coreLayer,
	"kongversion.go":  coreLayer,
	"customschema.go": coreLayer, // Kong's entity schemas, read and checked against, like the Kong version

	"annotations.go": vocabLayer,
	"tags.go":        vocabLayer,
	"names.go":       vocabLayer,
	"ids.go":         vocabLayer,
	"pathcheck.go":   vocabLayer,
	"rewriteuri.go":  vocabLayer, // konghq.com/rewrite to request-transformer's replace.uri
	"sort.go":        vocabLayer,
	"defaults.go":    vocabLayer,
	"refs.go":        vocabLayer,
	"pluginref.go":   vocabLayer,
	"gwtransform.go": vocabLayer, // the Gateway API's transforms of names and matches, pure
}

// TestLayers fails when a file references a file of a higher layer or another family's file
// (references resolved by the type checker: package-level names, methods and fields), when a
// file is not in layers, or when a family file's name does not start with its family. The
// violations still to remove are listed in layerDebts; one that is gone must leave that list,
// so it only shrinks.
func TestLayers(t *testing.T) {
	edges, files := fileReferences(t)
	var got []string
	for _, f := range files {
		l, ok := layers[f]
		if !ok {
			t.Errorf("%s is in no layer: add it to layers (layers_test.go)", f)
			continue
		}
		if l.family != "" && !strings.HasPrefix(f, l.family) {
			got = append(got, "name "+f)
		}
		for _, to := range edges[f] {
			if lt, ok := layers[to]; ok && !below(l, lt) {
				got = append(got, f+" -> "+to)
			}
		}
	}
	for _, v := range got {
		if !slices.Contains(layerDebts, v) {
			t.Errorf("layer violation: %s (%s references a higher layer or another family)", v, strings.Fields(v)[0])
		}
	}
	for _, v := range layerDebts {
		if !slices.Contains(got, v) {
			t.Errorf("layerDebts lists %q, which no longer holds: remove it", v)
		}
	}
}

// below reports whether a file of layer from may reference a file of layer to.
func below(from, to layer) bool {
	if from.rank != to.rank {
		return from.rank > to.rank
	}
	return from.family == to.family
}

// fileReferences type-checks the package's non-test files and returns, per file, the files it
// references (sorted), and the file names.
func fileReferences(t *testing.T) (map[string][]string, []string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-json", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type listed struct {
		ImportPath, Dir, Export string
		GoFiles                 []string
	}
	exports := map[string]string{}
	var target listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		target = p // the package itself comes last
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, f := range target.GoFiles {
		af, err := parser.ParseFile(fset, filepath.Join(target.Dir, f), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, af)
	}
	lookup := func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) }
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check(target.ImportPath, fset, files, info)
	if err != nil {
		t.Fatalf("type check: %v", err)
	}
	edges := map[string][]string{}
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() || (obj.Parent() != pkg.Scope() && !isMember(obj)) {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from != to && !slices.Contains(edges[from], to) {
			edges[from] = append(edges[from], to)
		}
	}
	for _, l := range edges {
		slices.Sort(l)
	}
	return edges, target.GoFiles
}

// isMember reports whether obj is a method or a struct field.
func isMember(obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Func:
		return o.Type().(*types.Signature).Recv() != nil
	case *types.Var:
		return o.IsField()
	}
	return false
}
