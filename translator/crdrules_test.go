package translator

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kongsync/kongsync/internal/apis/kongcrds"
	"github.com/kongsync/kongsync/store"
)

// crdRule is how kongsync covers one x-kubernetes-validations rule of a Kong CRD it reads:
// either a manifest breaking it (spec is the object's body after metadata) and the field the
// problem names, or why the rule does not apply offline.
type crdRule struct {
	spec, field string
	na          string
}

// kongCRDRules maps "CRD file: rule message" to its coverage. The rules were evaluated by hand
// rather than with apiextensions-apiserver's CEL (about 10 MB more binary; docs/bad-input.md).
var kongCRDRules = map[string]crdRule{
	"kongplugins: Using both config and configFrom fields is not allowed.": {
		spec: "plugin: cors\nconfig: {}\nconfigFrom: {secretKeyRef: {name: s, key: k}}", field: "configFrom"},
	"kongplugins: Using both configFrom and configPatches fields is not allowed.": {
		spec: "plugin: cors\nconfigFrom: {secretKeyRef: {name: s, key: k}}\nconfigPatches: [{path: /a, valueFrom: {secretKeyRef: {name: s, key: k}}}]", field: "configPatches"},
	"kongplugins: The plugin field is immutable": {na: "a transition rule (oldSelf): only an update can break it"},
	"kongclusterplugins: Using both config and configFrom fields is not allowed.": {
		spec: "plugin: cors\nconfig: {}\nconfigFrom: {secretKeyRef: {name: s, key: k, namespace: team}}", field: "configFrom"},
	"kongclusterplugins: Using both configFrom and configPatches fields is not allowed.": {
		spec: "plugin: cors\nconfigFrom: {secretKeyRef: {name: s, key: k, namespace: team}}\nconfigPatches: [{path: /a, valueFrom: {secretKeyRef: {name: s, key: k, namespace: team}}}]", field: "configPatches"},
	"kongclusterplugins: The plugin field is immutable":           {na: "a transition rule (oldSelf): only an update can break it"},
	"kongconsumers: Need to provide either username or custom_id": {spec: "credentials: []", field: ""},
	"kongconsumers: tags entries must not be longer than 128 characters": {
		spec: "username: u\nspec: {tags: [" + strings.Repeat("t", 129) + "]}", field: "spec.tags[0]"},
	"kongconsumers: controlPlaneRef is required once set":                                   {na: "a transition rule (oldSelf) on Konnect's spec.controlPlaneRef"},
	"kongconsumers: spec.controlPlaneRef is immutable when an entity is already Programmed": {na: "a transition rule (oldSelf) on Konnect's spec.controlPlaneRef"},
	"kongconsumers: spec.controlPlaneRef cannot specify namespace for namespaced resource":  {na: konnectOnly},
	"kongconsumers: 'konnectID' type is not supported":                                      {na: konnectOnly},
	"kongconsumers: when type is konnectNamespacedRef, konnectNamespacedRef must be set":    {na: konnectOnly},
	"kongconsumers: when type is konnectNamespacedRef, konnectID must not be set":           {na: konnectOnly},
	"kongconsumers: when type is konnectID, konnectID must be set":                          {na: konnectOnly},
	"kongconsumers: when type is konnectID, konnectNamespacedRef must not be set":           {na: konnectOnly},
	"kongconsumers: when type is kic, konnectID must not be set":                            {na: konnectOnly},
	"kongconsumers: when type is kic, konnectNamespacedRef must not be set":                 {na: konnectOnly},
	"kongconsumers: when type is unset, konnectID must not be set":                          {na: konnectOnly},
	"kongconsumers: when type is unset, konnectNamespacedRef must not be set":               {na: konnectOnly},
	"kongupstreampolicies: Only one of spec.hashOn.(input|cookie|header|uriCapture|queryArg) can be set.": {
		spec: "spec: {algorithm: consistent-hashing, hashOn: {input: ip, header: x}}", field: "spec.hashOn"},
	"kongupstreampolicies: When spec.hashOn.cookie is set, spec.hashOn.cookiePath is required.": {
		spec: "spec: {algorithm: consistent-hashing, hashOn: {cookie: c}}", field: "spec.hashOn.cookiePath"},
	"kongupstreampolicies: When spec.hashOn.cookiePath is set, spec.hashOn.cookie is required.": {
		spec: "spec: {algorithm: consistent-hashing, hashOn: {cookiePath: /}}", field: "spec.hashOn.cookie"},
	"kongupstreampolicies: spec.algorithm must be set to either 'consistent-hashing' or 'sticky-sessions' when spec.hashOn is set.": {
		spec: "spec: {algorithm: round-robin, hashOn: {input: ip}}", field: "spec.algorithm"},
	"kongupstreampolicies: Only one of spec.hashOnFallback.(input|header|uriCapture|queryArg) can be set.": {
		spec: "spec: {algorithm: consistent-hashing, hashOn: {input: ip}, hashOnFallback: {input: path, header: x}}", field: "spec.hashOnFallback"},
	"kongupstreampolicies: spec.algorithm must be set to \"consistent-hashing\" when spec.hashOnFallback is set.": {
		spec: "spec: {algorithm: round-robin, hashOnFallback: {input: ip}}", field: "spec.algorithm"},
	"kongupstreampolicies: spec.hashOnFallback must not be set when spec.hashOn.cookie is set.": {
		spec: "spec: {algorithm: consistent-hashing, hashOn: {cookie: c, cookiePath: /}, hashOnFallback: {input: ip}}", field: "spec.hashOnFallback"},
	"kongupstreampolicies: spec.healthchecks.passive.healthy.interval must not be set.": {
		spec: "spec: {healthchecks: {passive: {healthy: {interval: 5}}}}", field: "spec.healthchecks.passive.healthy.interval"},
	"kongupstreampolicies: spec.healthchecks.passive.unhealthy.interval must not be set.": {
		spec: "spec: {healthchecks: {passive: {unhealthy: {interval: 5}}}}", field: "spec.healthchecks.passive.unhealthy.interval"},
	"kongupstreampolicies: When spec.stickySessions is set, spec.hashOn.input must be set to 'none' (no other hash_on fields allowed).": {
		spec: "spec: {algorithm: sticky-sessions, hashOn: {input: ip}, stickySessions: {cookie: c}}", field: "spec.hashOn"},
	"kongupstreampolicies: spec.stickySessions.cookie is required when spec.stickySessions is set.": {
		spec: "spec: {algorithm: sticky-sessions, hashOn: {input: none}, stickySessions: {cookiePath: /}}", field: "spec.stickySessions.cookie"},
	"kongupstreampolicies: spec.algorithm must be set to 'sticky-sessions' when spec.stickySessions is set.": {
		spec: "spec: {algorithm: consistent-hashing, hashOn: {input: none}, stickySessions: {cookie: c}}", field: "spec.algorithm"},
	"kongvaults: The spec.prefix field is immutable": {na: "a transition rule (oldSelf): only an update can break it"},
	"kongcustomentities: The type field cannot be one of the known Kong entity types": {
		spec: "spec: {type: services, controllerName: kong, fields: {name: s}}", field: "spec"},
	"kongcustomentities: The spec.type field is immutable": {na: "a transition rule (oldSelf): only an update can break it"},
	"kongvaults: tags entries must not be longer than 128 characters": {
		spec: "spec: {backend: env, prefix: ab, tags: [" + strings.Repeat("t", 129) + "]}", field: "spec.tags[0]"},
	"kongvaults: controlPlaneRef is required once set":                                   {na: "a transition rule (oldSelf) on Konnect's spec.controlPlaneRef"},
	"kongvaults: spec.controlPlaneRef is immutable when an entity is already Programmed": {na: "a transition rule (oldSelf) on Konnect's spec.controlPlaneRef"},
	"kongvaults: 'konnectID' type is not supported":                                      {na: konnectOnly},
	"kongvaults: when type is konnectNamespacedRef, konnectNamespacedRef must be set":    {na: konnectOnly},
	"kongvaults: when type is konnectNamespacedRef, konnectID must not be set":           {na: konnectOnly},
	"kongvaults: when type is konnectID, konnectID must be set":                          {na: konnectOnly},
	"kongvaults: when type is konnectID, konnectNamespacedRef must not be set":           {na: konnectOnly},
	"kongvaults: when type is kic, konnectID must not be set":                            {na: konnectOnly},
	"kongvaults: when type is kic, konnectNamespacedRef must not be set":                 {na: konnectOnly},
	"kongvaults: when type is unset, konnectID must not be set":                          {na: konnectOnly},
	"kongvaults: when type is unset, konnectNamespacedRef must not be set":               {na: konnectOnly},
}

const konnectOnly = "on Konnect's parts of spec.controlPlaneRef; kongsync (like KIC) reads only its type: a manifest breaking the rule is served when the type is kic or unset, skipped otherwise"

// kongCRDKinds are the CRDs of the Kong kinds kongsync reads, by file, with their kind and
// apiVersion.
var kongCRDKinds = map[string][2]string{
	"kongplugins":          {"KongPlugin", "configuration.konghq.com/v1"},
	"kongclusterplugins":   {"KongClusterPlugin", "configuration.konghq.com/v1"},
	"kongconsumers":        {"KongConsumer", "configuration.konghq.com/v1"},
	"kongupstreampolicies": {"KongUpstreamPolicy", "configuration.konghq.com/v1beta1"},
	"tcpingresses":         {"TCPIngress", "configuration.konghq.com/v1beta1"}, // no rules today
	"udpingresses":         {"UDPIngress", "configuration.konghq.com/v1beta1"}, // no rules today
	"kongvaults":           {"KongVault", "configuration.konghq.com/v1alpha1"},
	"kongcustomentities":   {"KongCustomEntity", "configuration.konghq.com/v1alpha1"},
}

// TestKongCRDRulesCovered reads every x-kubernetes-validations rule of the published CRDs of
// the Kong kinds kongsync reads and requires each to be in kongCRDRules (and every entry to
// still exist). For each covered rule, a manifest breaking it, read as dump reads manifests and
// translated, must give a problem on that object and field.
func TestKongCRDRulesCovered(t *testing.T) {
	files, err := kongcrds.Files()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		crd := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "configuration.konghq.com_"), ".yaml")
		if _, ok := kongCRDKinds[crd]; !ok {
			continue
		}
		for _, msg := range crdRuleMessages(t, f) {
			key := crd + ": " + msg
			seen[key] = true
			if _, ok := kongCRDRules[key]; !ok {
				t.Errorf("rule %q is neither covered nor listed as not applicable", key)
			}
		}
	}
	keys := make([]string, 0, len(kongCRDRules))
	for k := range kongCRDRules {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if !seen[key] {
			t.Errorf("kongCRDRules lists %q, which the CRDs no longer have", key)
			continue
		}
		if r := kongCRDRules[key]; r.na == "" {
			t.Run(key, func(t *testing.T) { checkRuleBroken(t, strings.SplitN(key, ":", 2)[0], r) })
		}
	}
}

// checkRuleBroken reads a manifest whose object breaks the rule, next to a Service that uses
// it (for a KongUpstreamPolicy) and an Ingress routing there, and wants a problem on its field.
func checkRuleBroken(t *testing.T, crd string, r crdRule) {
	kind := kongCRDKinds[crd]
	ns := "namespace: team, "
	if kind[0] == "KongClusterPlugin" || kind[0] == "KongVault" {
		ns = ""
	}
	manifest := "apiVersion: " + kind[1] + "\nkind: " + kind[0] + "\nmetadata: {name: obj, " + ns +
		"annotations: {kubernetes.io/ingress.class: kong}}\n" + r.spec + `
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: team, annotations: {konghq.com/upstream-policy: obj}}
spec: {ports: [{port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: team}
spec: {ingressClassName: kong, defaultBackend: {service: {name: web, port: {number: 80}}}}
`
	path := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, refused, notes, err := store.ReadPaths([]string{path}, nil)
	if err != nil || len(notes) > 0 {
		t.Fatalf("reading: %v %v", err, notes)
	}
	ps := WithRefusals(translateObjects(t, objs).Problems, refused)
	want := store.Ref{Kind: store.Kind(kind[0]), Namespace: strings.TrimSuffix(strings.TrimPrefix(ns, "namespace: "), ", "), Name: "obj"}
	for _, p := range ps {
		if p.Object == want && p.Field == r.field {
			return
		}
	}
	t.Errorf("no problem on %s field %q; problems:\n%s", want, r.field, problemsText(ps))
}

// crdRuleMessages returns the message of every x-kubernetes-validations rule in a CRD file.
func crdRuleMessages(t *testing.T, file string) []string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if rules, ok := x["x-kubernetes-validations"].([]any); ok {
				for _, r := range rules {
					m, _ := r.(map[string]any)
					msg, _ := m["message"].(string)
					if msg == "" {
						msg, _ = m["rule"].(string)
					}
					msgs = append(msgs, msg)
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
	return msgs
}
