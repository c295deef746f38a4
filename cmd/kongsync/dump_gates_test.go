package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gatedManifests holds a TCPRoute (a GatewayAlpha kind), two KongCustomEntities (read with the
// KongCustomEntity gate, on by default), two BackendTLSPolicies (a kind of KIC's kongsync does
// not read) and an Ingress with konghq.com/rewrite.
const gatedManifests = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kong}
spec: {controllerName: konghq.com/kic-gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: kong, namespace: default}
spec:
  gatewayClassName: kong
  listeners: [{name: tcp, protocol: TCP, port: 1025}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: echo, namespace: default}
spec:
  parentRefs: [{name: kong}]
  rules: [{backendRefs: [{group: "", kind: Service, name: echo, port: 1025}]}]
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongCustomEntity
metadata: {name: one, namespace: default}
spec: {type: degraphql_routes, controllerName: kong, fields: {uri: /one, query: "query{ one }"}}
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongCustomEntity
metadata: {name: two, namespace: default}
spec: {type: degraphql_routes, controllerName: kong, fields: {uri: /two, query: "query{ two }"}}
---
apiVersion: gateway.networking.k8s.io/v1alpha3
kind: BackendTLSPolicy
metadata: {name: one, namespace: default}
---
apiVersion: gateway.networking.k8s.io/v1alpha3
kind: BackendTLSPolicy
metadata: {name: two, namespace: default}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: rw
  namespace: default
  annotations: {konghq.com/rewrite: /new/$1}
spec:
  ingressClassName: kong
  rules:
  - http:
      paths:
      - {path: /~/old/(.*), pathType: ImplementationSpecific, backend: {service: {name: echo, port: {number: 1025}}}}
---
apiVersion: v1
kind: Service
metadata: {name: echo, namespace: default}
spec: {ports: [{port: 1025}]}
`

func TestDumpFeatureGatesAndUnreadKinds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(path, []byte(gatedManifests), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		args      []string
		code      int
		out, nout []string // in stdout, not in stdout
		err, nerr []string // in stderr, not in stderr
	}{
		{name: "KIC's defaults, gate not named", code: 1,
			out:  []string{"tcproute.default.echo.0", "degraphql_routes:\n  - query: query{ one }\n    uri: /one\n  - query: query{ two }"},
			nout: []string{"request-transformer"},
			err: []string{"1 TCPRoute object(s) translated, as KIC's translator does", "give --feature-gates GatewayAlpha=false",
				"2 BackendTLSPolicy object(s) skipped: a kind of KIC's not read by kongsync",
				"konghq.com/rewrite]: URI rewriting (KIC's RewriteURIs feature gate) is not supported"},
			nerr: []string{"KongCustomEntity"}},
		{name: "custom entities off", args: []string{"--feature-gates", "KongCustomEntity=false"}, code: 1,
			nout: []string{"degraphql_routes"},
			err:  []string{"2 KongCustomEntity object(s) not translated: a kind of KIC's not read: the KongCustomEntity feature gate is off"}},
		{name: "gates named", args: []string{"--feature-gates", "GatewayAlpha=false,RewriteURIs=true"}, code: 0,
			out: []string{"uri: /new/$(uri_captures[1])"}, nout: []string{"tcproute.default.echo.0"},
			err: []string{"1 TCPRoute object(s) not translated: the GatewayAlpha feature gate is off"}},
		{name: "gate on", args: []string{"--feature-gates", "GatewayAlpha=true,RewriteURIs=true"}, code: 0,
			out: []string{"tcproute.default.echo.0", "request-transformer"}, nerr: []string{"TCPRoute object(s)"}},
		{name: "refused gate", args: []string{"--feature-gates", "FillIDs=false,KongCustomEntity=false"}, code: exitError,
			err: []string{"not supported by kongsync: FillIDs=false"}},
		// The sync loop's gate: offline, nothing is rejected, so the configuration is the default's.
		{name: "fallback gate", args: []string{"--feature-gates", "FallbackConfiguration=true"}, code: 1,
			out: []string{"tcproute.default.echo.0"}, nout: []string{"request-transformer"}},
		{name: "other flags", args: []string{"--gateway-to-reconcile", "default/other", "--enable-drain-support"}, code: 1,
			nout: []string{"tcproute.default.echo.0"}},
		{name: "bad gateway", args: []string{"--gateway-to-reconcile", "kong"}, code: exitError},
	} {
		code, out, errs := runDump(t, append(tc.args, "--check-objects=false", "-f", path)...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", tc.name, code, tc.code, errs)
		}
		check := func(what, s string, want []string, present bool) {
			for _, w := range want {
				if strings.Contains(s, w) != present {
					t.Errorf("%s: %s has %q: %v, want %v\n%s", tc.name, what, w, !present, present, s)
				}
			}
		}
		check("stdout", out, tc.out, true)
		check("stdout", out, tc.nout, false)
		check("stderr", errs, tc.err, true)
		check("stderr", errs, tc.nerr, false)
		for _, k := range []string{"KongCustomEntity object(s)", "BackendTLSPolicy object(s)"} {
			if n := strings.Count(errs, k); n > 1 {
				t.Errorf("%s: %s noted %d times, want once", tc.name, k, n)
			}
		}
	}
}
