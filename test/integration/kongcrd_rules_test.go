//go:build integration

package integration

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
	"github.com/kongsync/kongsync/status"
)

// kongResource is the dynamic client of a configuration.konghq.com resource in ns ("" for a
// cluster-scoped one).
func kongResource(version, resource, ns string) dynamic.ResourceInterface {
	r := dynamic.NewForConfigOrDie(plane.RestConfig()).Resource(
		schema.GroupVersionResource{Group: "configuration.konghq.com", Version: version, Resource: resource})
	if ns == "" {
		return r
	}
	return r.Namespace(ns)
}

// kongObject is a configuration.konghq.com object of kind at version with the given top-level
// fields and class annotation (none if empty).
func kongObject(version, kind, ns, name, class string, fields map[string]any) *unstructured.Unstructured {
	md := map[string]any{"name": name}
	if ns != "" {
		md["namespace"] = ns
	}
	if class != "" {
		md["annotations"] = map[string]any{"kubernetes.io/ingress.class": class}
	}
	obj := map[string]any{"apiVersion": "configuration.konghq.com/" + version, "kind": kind, "metadata": md}
	for k, v := range fields {
		obj[k] = v
	}
	return &unstructured.Unstructured{Object: obj}
}

// Kong's published CRDs refuse, by their OpenAPI schemas and CEL rules, what KIC relies on them
// to refuse; kongsync never sees those objects. One or two representative rules per kind read.
func TestPublishedCRDRulesRefuse(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	secretRef := map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "k"}}
	for _, tc := range []struct {
		name, version, resource, kind string
		fields                        map[string]any
		want                          string
	}{
		{"plugin config and configFrom", "v1", "kongplugins", "KongPlugin",
			map[string]any{"plugin": "acl", "config": map[string]any{"allow": []any{"a"}}, "configFrom": secretRef},
			"Using both config and configFrom fields is not allowed."},
		{"plugin configFrom and configPatches", "v1", "kongplugins", "KongPlugin",
			map[string]any{"plugin": "acl", "configFrom": secretRef,
				"configPatches": []any{map[string]any{"path": "/allow", "valueFrom": secretRef}}},
			"Using both configFrom and configPatches fields is not allowed."},
		{"plugin without a name", "v1", "kongplugins", "KongPlugin", map[string]any{"config": map[string]any{}},
			"plugin: Required value"},
		{"plugin protocol", "v1", "kongplugins", "KongPlugin", map[string]any{"plugin": "acl", "protocols": []any{"ftp"}},
			`protocols[0]: Unsupported value: "ftp"`},
		{"plugin run_on", "v1", "kongplugins", "KongPlugin", map[string]any{"plugin": "acl", "run_on": "third"},
			`run_on: Unsupported value: "third"`},
		{"plugin config not an object", "v1", "kongplugins", "KongPlugin", map[string]any{"plugin": "acl", "config": []any{1}},
			"config: Invalid value"},
		{"cluster plugin config and configFrom", "v1", "kongclusterplugins", "KongClusterPlugin",
			map[string]any{"plugin": "acl", "config": map[string]any{}, "configFrom": map[string]any{
				"secretKeyRef": map[string]any{"name": "s", "key": "k", "namespace": ns}}},
			"Using both config and configFrom fields is not allowed."},
		{"cluster plugin secret without namespace", "v1", "kongclusterplugins", "KongClusterPlugin",
			map[string]any{"plugin": "acl", "configFrom": secretRef}, "namespace: Required value"},
		{"consumer without username or custom_id", "v1", "kongconsumers", "KongConsumer", map[string]any{"credentials": []any{"c"}},
			"Need to provide either username or custom_id"},
		{"consumer tag too long", "v1", "kongconsumers", "KongConsumer",
			map[string]any{"username": "u", "spec": map[string]any{"tags": []any{strings.Repeat("t", 129)}}},
			"tags entries must not be longer than 128 characters"},
		{"upstream policy two hash inputs", "v1beta1", "kongupstreampolicies", "KongUpstreamPolicy",
			map[string]any{"spec": map[string]any{"hashOn": map[string]any{"input": "ip", "header": "x"}}},
			"Only one of spec.hashOn.(input|cookie|header|uriCapture|queryArg) can be set."},
		{"upstream policy algorithm", "v1beta1", "kongupstreampolicies", "KongUpstreamPolicy",
			map[string]any{"spec": map[string]any{"algorithm": "random"}}, `spec.algorithm: Unsupported value: "random"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objNS := ns
			if tc.kind == "KongClusterPlugin" {
				objNS = ""
			}
			obj := kongObject(tc.version, tc.kind, objNS, "refused", "", tc.fields)
			_, err := kongResource(tc.version, tc.resource, objNS).Create(ctxT(t), obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("created or refused for another reason: %v; want %q", err, tc.want)
			}
		})
	}
	// The plugin name is immutable (a transition rule: only an update can break it).
	plugins := kongResource("v1", "kongplugins", ns)
	p, err := plugins.Create(ctxT(t), kongObject("v1", "KongPlugin", ns, "fixed", "", map[string]any{"plugin": "acl"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Object["plugin"] = "cors"
	if _, err := plugins.Update(ctxT(t), p, metav1.UpdateOptions{}); err == nil || !strings.Contains(err.Error(), "The plugin field is immutable") {
		t.Errorf("changing the plugin name: %v", err)
	}
}

// What the CRDs let through but kongsync or Kong refuse is a problem and a Warning Event on the
// object, and Programmed=False/Invalid on it; what works is Programmed=True. A restarted
// kongsync over the same state writes no status.
func TestKongObjectsProgrammedAndRefused(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	ctx := ctxT(t)
	plugins, consumers := kongResource("v1", "kongplugins", ns), kongResource("v1", "kongconsumers", ns)
	for _, o := range []struct {
		r   dynamic.ResourceInterface
		obj *unstructured.Unstructured
	}{
		{plugins, kongObject("v1", "KongPlugin", ns, "good", "", map[string]any{"plugin": "key-auth", "run_on": "first"})},
		// The CRD lets any plugin name through; Kong refuses a plugin it does not have.
		{plugins, kongObject("v1", "KongPlugin", ns, "unknown", "", map[string]any{"plugin": "no-such-plugin"})},
		// The CRD cannot know that the Secret key is missing; the translator skips the plugin.
		{plugins, kongObject("v1", "KongPlugin", ns, "nokey", "", map[string]any{"plugin": "acl",
			"configFrom": map[string]any{"secretKeyRef": map[string]any{"name": "conf", "key": "absent"}}})},
		{plugins, kongObject("v1", "KongPlugin", ns, "unused", "", map[string]any{"plugin": "cors"})},
		{consumers, kongObject("v1", "KongConsumer", ns, "alice", "kong", map[string]any{"username": "alice-" + ns})},
		{consumers, kongObject("v1", "KongConsumer", ns, "nocreds", "kong", map[string]any{"username": "nocreds-" + ns,
			"credentials": []any{"missing"}})},
		{consumers, kongObject("v1", "KongConsumer", ns, "theirs", "other", map[string]any{"username": "theirs-" + ns})},
	} {
		if _, err := o.r.Create(ctx, o.obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	conf := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "conf"}, Data: map[string][]byte{"k": []byte("{}")}}
	if _, err := admin.CoreV1().Secrets(ns).Create(ctx, conf, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	a := app{ns: ns, name: "web", host: "programmed.example.com"}
	ing := a.ingress()
	ing.Annotations = map[string]string{"konghq.com/plugins": "good, unknown, nokey"}
	if _, err := admin.CoreV1().Services(ns).Create(ctx, a.service(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kong := newDouble(t)
	in := startKongsync(t, "programmed", ns, []*kongdouble.Server{kong}, statusConfig)
	waitDouble(t, kong, "the good plugin and consumer, without the refused plugin", func() bool {
		c := kong.Config()
		return hasHost(kong, "programmed.example.com") && strings.Contains(c, `"key-auth"`) &&
			strings.Contains(c, `"alice-`+ns+`"`) && !strings.Contains(c, "no-such-plugin") && !strings.Contains(c, `"run_on"`)
	})
	waitEvent(t, ns, "KongPlugin", "unknown", "KongConfigurationApplyFailed")
	waitEvent(t, ns, "KongPlugin", "nokey", "KongConfigurationTranslationFailed")
	waitEvent(t, ns, "KongConsumer", "nocreds", "KongConfigurationTranslationFailed")
	want := map[string]string{"good": "True/Programmed", "unknown": "False/Invalid", "nokey": "False/Invalid",
		"unused": "False/Pending", "alice": "True/Programmed", "nocreds": "False/Invalid"}
	for name, w := range want {
		r := plugins
		if name == "alice" || name == "nocreds" {
			r = consumers
		}
		waitProgrammed(t, r, name, w)
	}
	if got := programmedOf(t, consumers, "theirs"); got != "Unknown/Pending" {
		t.Errorf("a consumer of another class: Programmed %s, want the CRD's default left alone", got)
	}
	in.stop()

	// A restart over the same state writes nothing.
	passes := make(chan status.ProgrammedPass, 64)
	startKongsync(t, "programmed-again", ns, []*kongdouble.Server{kong}, func(c *runner.Config) {
		statusConfig(c)
		c.Hooks.ProgrammedStatusPass = func(p status.ProgrammedPass) {
			select {
			case passes <- p:
			default:
			}
		}
	})
	for {
		select {
		case p := <-passes:
			if p.Writes != 0 || p.Failed != 0 {
				t.Fatalf("restart pass %+v wrote", p)
			}
			if p.Held && p.Checked == len(want) {
				return
			}
		case <-ctx.Done():
			t.Fatal("no pass over the configuration Kong holds after the restart")
		}
	}
}

// programmedOf is "status/reason" of the object's Programmed condition ("" if none), with
// its observedGeneration checked against the object's generation.
func programmedOf(t *testing.T, r dynamic.ResourceInterface, name string) string {
	t.Helper()
	u, err := r.Get(ctxT(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return programmedIn(u)
}

func programmedIn(u *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != "Programmed" {
			continue
		}
		s := m["status"].(string) + "/" + m["reason"].(string)
		if g, _ := m["observedGeneration"].(int64); m["status"] != "Unknown" && g != u.GetGeneration() {
			s += " (stale generation)"
		}
		return s
	}
	return ""
}

// waitProgrammed watches the object until its Programmed condition is want.
func waitProgrammed(t *testing.T, r dynamic.ResourceInterface, name, want string) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	u, err := r.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if programmedIn(u) == want {
		return
	}
	w, err := r.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: u.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	last := programmedIn(u)
	for ev := range w.ResultChan() {
		if ev.Type != watch.Modified {
			continue
		}
		if last = programmedIn(ev.Object.(*unstructured.Unstructured)); last == want {
			return
		}
	}
	t.Fatalf("%s: Programmed %q, want %q", name, last, want)
}
