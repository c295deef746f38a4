package translator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/internal/boundedyaml"
	"github.com/kongsync/kongsync/store"
)

// pluginSource is a KongPlugin or a KongClusterPlugin: the object a Kong plugin is made from.
type pluginSource struct {
	ref    store.Ref
	kind   store.Kind
	meta   metav1.Object
	fields *configurationv1.PluginFields
}

// clusterPlugin reports whether the source is a KongClusterPlugin.
func (s pluginSource) clusterPlugin() bool { return s.kind == store.KindKongClusterPlugin }

// lookupPlugin finds what a konghq.com/plugins item names, as KIC does: the KongPlugin of that
// name in the namespace, else the KongClusterPlugin of that name, if this controller serves it
// (KIC's store never holds KongClusterPlugins of another class).
func (t *pluginBuild) lookupPlugin(namespace, name string) (pluginSource, bool) {
	if o, ok := t.snap.Get(store.Ref{Kind: store.KindKongPlugin, Namespace: namespace, Name: name}); ok {
		if p, ok := o.(*configurationv1.KongPlugin); ok {
			return pluginSource{ref: store.Ref{Kind: store.KindKongPlugin, Namespace: p.Namespace, Name: p.Name},
				kind: store.KindKongPlugin, meta: p, fields: &p.PluginFields}, true
		}
	}
	if o, ok := t.snap.Get(store.Ref{Kind: store.KindKongClusterPlugin, Name: name}); ok {
		if p, ok := o.(*configurationv1.KongClusterPlugin); ok && t.servesClusterPlugin(p) {
			return clusterPluginSource(p), true
		}
	}
	return pluginSource{}, false
}

func clusterPluginSource(p *configurationv1.KongClusterPlugin) pluginSource {
	return pluginSource{ref: store.Ref{Kind: store.KindKongClusterPlugin, Name: p.Name},
		kind: store.KindKongClusterPlugin, meta: p, fields: &p.PluginFields}
}

// servesClusterPlugin reports whether a KongClusterPlugin is ours: KIC requires its
// kubernetes.io/ingress.class annotation to name our class, or to be absent when our class is
// the cluster default. KongPlugins carry no class.
func (t *pluginBuild) servesClusterPlugin(p *configurationv1.KongClusterPlugin) bool {
	return t.servesClassAnnotation(p)
}

// pluginPiece is a KongPlugin's or KongClusterPlugin's piece: its template, or false when it
// cannot be built (reported on the source).
type pluginPiece struct {
	p  kong.Plugin
	ok bool
}

// templateFor is the plugin piece of src; the template's pointer is stable while the piece is
// reused, which keys the plugin entities made from it.
func (t *pluginBuild) templateFor(src pluginSource) (*kong.Plugin, bool) {
	pp := piece(t.translation, t.memos.plugins, src.meta, func() *pluginPiece {
		p, ok := t.pluginTemplate(src)
		return &pluginPiece{p: p, ok: ok}
	})
	return &pp.p, pp.ok
}

// pluginTemplate is the Kong plugin a KongPlugin or KongClusterPlugin describes, without the
// entity it attaches to, id or instance_name suffix. It reports a problem on the source and
// returns false when the config cannot be built: the plugin is then left out everywhere.
func (t *pluginBuild) pluginTemplate(src pluginSource) (kong.Plugin, bool) {
	f := src.fields
	if f.PluginName == "" {
		t.problem(src.ref, "plugin", "plugin name is empty; %s skipped", src.kind)
		return kong.Plugin{}, false
	}
	config, ok := t.pluginConfig(src)
	if !ok || !t.configDepthOK(src.ref, src.kind, src.fields, config) {
		return kong.Plugin{}, false
	}
	// run_on is not passed on: Kong 3.x has no such field and rejects it; KIC drops it too once
	// it has filled the plugin's defaults from Kong's schema.
	p := kong.Plugin{Name: kong.String(f.PluginName), Config: config, Tags: objectTags(src.kind, src.meta)}
	if f.Disabled {
		p.Enabled = kong.Bool(false)
	}
	p.Ordering = f.Ordering.DeepCopy()
	if len(f.Protocols) > 0 {
		p.Protocols = kong.StringSlice(f.Protocols...)
	}
	if f.InstanceName != "" {
		p.InstanceName = kong.String(f.InstanceName)
	}
	return p, true
}

// pluginConfig builds the config as KIC does: config (an empty object when absent) with each
// configPatch applied in order, or, when configFrom is set, the Secret value it names (JSON, or
// else YAML). Setting both is an error. Numbers keep their exact text.
func (t *pluginBuild) pluginConfig(src pluginSource) (kong.Configuration, bool) {
	f := src.fields
	raw := []byte(f.Config)
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = []byte("{}")
	}
	if f.ConfigFrom != nil && len(f.ConfigPatches) > 0 {
		// KIC patches an empty config and then finds it set beside configFrom; the CRD refuses it.
		t.problem(src.ref, "configPatches", "configPatches and configFrom are both set; %s skipped", src.kind)
		return nil, false
	}
	var doc any
	if err := decodeJSON(raw, &doc); err != nil {
		t.problem(src.ref, "config", "config is not valid JSON: %v; %s skipped", err, src.kind)
		return nil, false
	}
	for i, p := range f.ConfigPatches {
		field := fmt.Sprintf("configPatches[%d]", i)
		val, ok := t.pluginSecretValue(src, p.ValueFrom.SecretValue, field+".valueFrom.secretKeyRef")
		if !ok {
			return nil, false
		}
		var v any
		if decodeJSON(val, &v) != nil { // the decoder's message would quote the Secret's data
			t.problem(src.ref, field, "the Secret value is not valid JSON; %s skipped", src.kind)
			return nil, false
		}
		if err := boundedyaml.CheckJSON(val, secretValueLimits()); err != nil {
			t.problem(src.ref, field, "the Secret value %v; %s skipped", err, src.kind)
			return nil, false
		}
		var err error
		if doc, err = jsonPointerAdd(doc, p.Path, v); err != nil {
			t.problem(src.ref, field+".path", "cannot apply patch at %s: %v; %s skipped", quoteShort(p.Path), err, src.kind)
			return nil, false
		}
	}
	config, ok := doc.(map[string]any)
	if !ok {
		t.problem(src.ref, "config", "config must be a JSON object; %s skipped", src.kind)
		return nil, false
	}
	if f.ConfigFrom == nil {
		return config, true
	}
	if len(config) > 0 {
		t.problem(src.ref, "configFrom", "config and configFrom are both set; %s skipped", src.kind)
		return nil, false
	}
	return t.configFromSecret(src)
}

// secretValueLimits bound a Secret value read as a plugin's config or a patch of it. Its JSON,
// YAML aliases expanded, may be no larger than a Secret may hold (1 MiB, the API server's
// limit): a config cannot need more than its Secret, and a few hundred kilobytes of aliases
// would otherwise expand to gigabytes and take the process down with every other tenant's
// config. Its depth is bounded by Kong's own (maxPluginConfigDepth).
func secretValueLimits() boundedyaml.Limits {
	return boundedyaml.Limits{MaxBytes: corev1.MaxSecretSize, MaxDepth: maxPluginConfigDepth}
}

// configFromSecret reads configFrom's Secret value as the whole config: JSON (numbers keep their
// text), or else YAML converted as kubectl would (boundedyaml), both within secretValueLimits.
func (t *pluginBuild) configFromSecret(src pluginSource) (kong.Configuration, bool) {
	field := "configFrom.secretKeyRef"
	val, ok := t.pluginSecretValue(src, src.fields.ConfigFrom.SecretValue, field)
	if !ok {
		return nil, false
	}
	var config map[string]any
	if decodeJSON(val, &config) == nil {
		if err := boundedyaml.CheckJSON(val, secretValueLimits()); err != nil {
			return nil, t.secretValueProblem(src, field, err)
		}
		return config, true
	}
	js, err := boundedyaml.ToJSON(val, secretValueLimits())
	if err != nil || decodeJSON(js, &config) != nil {
		return nil, t.secretValueProblem(src, field, err)
	}
	return config, true
}

// secretValueProblem reports a configFrom value that cannot be the config: over a bound (named),
// or neither a JSON nor a YAML object (the parsers' messages would quote the Secret's data).
func (t *pluginBuild) secretValueProblem(src pluginSource, field string, err error) bool {
	var le *boundedyaml.LimitError
	if errors.As(err, &le) {
		t.problem(src.ref, field, "the Secret value %v; %s skipped", le, src.kind)
		return false
	}
	t.problem(src.ref, field, "the Secret value is neither a JSON nor a YAML object; %s skipped", src.kind)
	return false
}

// pluginSecretValue reads a Secret key for a plugin: in the KongPlugin's own namespace, or in
// the namespace the KongClusterPlugin's reference names.
func (t *pluginBuild) pluginSecretValue(src pluginSource, ref configurationv1.SecretValueFromSource, field string) ([]byte, bool) {
	ns := src.meta.GetNamespace()
	if src.clusterPlugin() {
		ns = ref.Namespace
	}
	s, ok := t.snap.Secret(ns, ref.Secret)
	if !ok {
		t.missingRef(src.ref, field, "Secret %s/%s does not exist; %s skipped", ns, ref.Secret, src.kind)
		return nil, false
	}
	v, ok := secretData(s)[ref.Key]
	if !ok {
		t.problem(src.ref, field, "Secret %s/%s has no key %s; %s skipped", ns, ref.Secret, quoteShort(ref.Key), src.kind)
		return nil, false
	}
	return v, true
}

// decodeJSON decodes exactly one JSON value, keeping numbers as their text.
func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("unexpected data after the value")
	}
	return nil
}

// jsonPointerAdd applies an RFC 6902 "add" of v at path to doc, creating missing objects on the
// way (KIC applies its patches with EnsurePathExistsOnAdd); the empty path replaces the whole
// document. Array elements are addressed by index or "-" (append).
func jsonPointerAdd(doc any, path string, v any) (any, error) {
	if path == "" {
		return v, nil
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("a JSON pointer starts with /")
	}
	tokens := strings.Split(path[1:], "/")
	for i := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(tokens[i], "~1", "/"), "~0", "~")
	}
	return addAt(doc, tokens, v)
}

func addAt(node any, tokens []string, v any) (any, error) {
	tok, last := tokens[0], len(tokens) == 1
	switch n := node.(type) {
	case map[string]any:
		if last {
			n[tok] = v
			return n, nil
		}
		child, ok := n[tok]
		if !ok || child == nil {
			child = map[string]any{}
		}
		c, err := addAt(child, tokens[1:], v)
		if err != nil {
			return nil, err
		}
		n[tok] = c
		return n, nil
	case []any:
		i, err := arrayIndex(tok, len(n), last)
		if err != nil {
			return nil, err
		}
		if last {
			return append(n[:i], append([]any{v}, n[i:]...)...), nil
		}
		c, err := addAt(n[i], tokens[1:], v)
		if err != nil {
			return nil, err
		}
		n[i] = c
		return n, nil
	}
	return nil, fmt.Errorf("%s is not inside an object or array", strconv.Quote(tok))
}

// arrayIndex parses an array token: an index up to len (len or "-" only where adding).
func arrayIndex(tok string, n int, adding bool) (int, error) {
	if tok == "-" && adding {
		return n, nil
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || i > n || (i == n && !adding) || (len(tok) > 1 && tok[0] == '0') {
		return 0, fmt.Errorf("bad array index %s", strconv.Quote(tok))
	}
	return i, nil
}

// pluginBuild is the plugin family's view of one build: the build context and the plugin
// pieces it keeps, which the engine hands it.
type pluginBuild struct {
	*translation
	memos *pluginPieceMemos
}

// pluginPieceMemos are the plugin pieces the engine keeps between builds.
type pluginPieceMemos struct {
	plugins *memo[metav1.Object, *pluginPiece]
}
