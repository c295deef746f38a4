package translator

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kongsync/kongsync/store"
)

// TestEngineFlavorSwitch: an Engine whose options switch between router flavors builds what a
// cold build of the new flavor builds, both ways.
func TestEngineFlavorSwitch(t *testing.T) {
	dir := filepath.Join(goldenDir, "expressions-ingress-annotations")
	st, _ := store.Load(loadObjects(t, dir))
	snap := st.Snapshot()
	expr := DefaultOptions()
	expr.RouterFlavor = RouterExpressions
	e := NewEngine(DefaultOptions())
	for _, opts := range []Options{DefaultOptions(), expr, DefaultOptions(), expr} {
		e.SetOptions(opts)
		built := warmMatchesCold(t, e, snap, opts, fmt.Sprintf("flavor %q", opts.RouterFlavor))
		if hasExpr := bytes.Contains(built.Config.Bytes(), []byte(`"expression"`)); hasExpr != opts.RouterFlavor.Expressions() {
			t.Fatalf("flavor %q: expression routes %v", opts.RouterFlavor, hasExpr)
		}
	}
}

// A regex path nested deeper than Rust's regex crate allows (250) passes Go's parser but Kong's
// expressions router refuses it, and with it the whole configuration: the path is skipped with
// a problem, and one nested less deep is translated.
func TestExprRegexNestLimit(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("(", n) + "a" + strings.Repeat(")", n) }
	dir := t.TempDir()
	in := `apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: deep, namespace: default}
spec:
  ingressClassName: kong
  rules:
  - host: deep.example.com
    http:
      paths:
      - {path: "/~/deep/` + nest(300) + `", pathType: ImplementationSpecific, backend: {service: {name: web, port: {number: 80}}}}
      - {path: "/~/ok/` + nest(100) + `", pathType: ImplementationSpecific, backend: {service: {name: web, port: {number: 80}}}}
`
	if err := os.WriteFile(filepath.Join(dir, "in.yaml"), []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := store.Load(loadObjects(t, dir))
	opts := DefaultOptions()
	opts.RouterFlavor = RouterExpressions
	b, err := BuildOnce(st.Snapshot(), opts)
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b.Config.Bytes())
	if strings.Contains(cfg, "/deep/") || !strings.Contains(cfg, "/ok/") {
		t.Errorf("want the 300-deep path skipped and the 100-deep one translated:\n%.600s", cfg)
	}
	found := false
	for _, p := range b.Problems {
		found = found || (p.Object.Name == "deep" && strings.Contains(p.Reason, "nest limit"))
	}
	if !found {
		t.Errorf("no nest-limit problem on the Ingress: %v", b.Problems)
	}
}
