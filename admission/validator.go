// Package admission is kongsync's validating admission webhook (KIC's --admission-webhook-*
// flags, the same AdmissionReview v1 endpoint at "/" that Kong's chart registers). It refuses an
// object when applying it would give the cluster's translation a problem it does not have
// without it: the one translation engine runs on the store's snapshot with the object as it is
// now (or without it) and with the object as it would be, and the problems that only the second
// has are the refusal's message. See docs/operations.md, "Admission webhook".
package admission

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	gosync "sync"

	"github.com/blang/semver/v4"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/informer"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// Source hands out snapshots of the controller's store; *store.Store is one.
type Source interface {
	Snapshot() *store.Snapshot
}

// Verdict is the answer to one request.
type Verdict struct {
	Allowed bool
	// Message says why an object is refused: the problems it would cause, one per line.
	Message string
	// Warnings are shown by kubectl on success: problems that another object applied later can
	// resolve (a Service or Secret not created yet), and kinds kongsync does not read.
	Warnings []string
}

// Fetch reads an object from the API server: the store keeps only the Secrets something
// references, so a Secret that the object under review is the first to reference must be read
// (a nil object and no error when it does not exist).
type Fetch func(ctx context.Context, ref store.Ref) (store.Object, error)

// Validator judges objects against the controller's store. Safe for concurrent use; requests
// are judged one at a time (each runs two translations on its engine).
type Validator struct {
	src    Source
	opts   translator.Options
	synced func() bool
	watch  []string // watched namespaces; none means all
	// Fetch, if set, reads the Secrets the object references that the store lacks.
	Fetch Fetch
	// KongVersion, if set, is the Kong version the sync loop translates for (Loop.KongVersion):
	// objects are judged for it, so that a feature the Kong lacks is judged as it is translated.
	KongVersion func() semver.Version
	// RouterFlavor, if set, is the router flavor the sync loop translates for
	// (Loop.RouterFlavor): objects are judged by the routes Kong is sent for it.
	RouterFlavor func() translator.RouterFlavor
	// EntitySchemas, if set, gives Kong's schemas of custom entity types (Loop.EntitySchemas,
	// which reads those it lacks): KongCustomEntities are judged against them, as KIC's webhook
	// judges them against the schema it reads from Kong. Unset, the options' schemas are used.
	EntitySchemas func(ctx context.Context, types []string) translator.EntitySchemas
	// NotRead are the kinds the controller does not read with its feature gates (KongCustomEntity
	// with its gate off), each with why: their objects pass, with a warning saying so.
	NotRead map[store.Kind]string

	mu     gosync.Mutex
	engine *translator.Engine
}

// New returns a Validator translating with opts, as the sync loop does. synced reports whether
// the store holds the whole cluster: before that, objects are let through unchecked (with a
// warning), since a partial store would blame them for what is only not listed yet.
// namespaces are the watched ones (--watch-namespace; empty: all); objects elsewhere are not
// kongsync's and pass.
func New(src Source, opts translator.Options, synced func() bool, namespaces []string) *Validator {
	return &Validator{src: src, opts: opts, synced: synced, watch: namespaces, engine: translator.NewEngine(opts)}
}

// Review judges one request. An error means the request itself is unusable (HTTP 500, as KIC
// answers: with failurePolicy Fail the API server then refuses the change).
func (v *Validator) Review(ctx context.Context, req *admissionv1.AdmissionRequest) (Verdict, error) {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return Verdict{Allowed: true}, nil
	}
	obj, unread, err := decode(req.Object.Raw, req.Namespace, req.Name)
	if err != nil {
		return Verdict{}, err
	}
	if k, err := store.KindOf(obj); obj != nil && err == nil && v.NotRead[k] != "" {
		return Verdict{Allowed: true, Warnings: []string{"kongsync does not read " + describe(obj) + ": " + v.NotRead[k]}}, nil
	}
	switch {
	case obj == nil:
		return Verdict{Allowed: true, Warnings: unread}, nil
	case !v.watched(obj.GetNamespace()):
		return Verdict{Allowed: true}, nil
	case !v.synced():
		return Verdict{Allowed: true, Warnings: []string{"kongsync is still reading the cluster: " + describe(obj) + " was not validated"}}, nil
	}
	var old store.Object
	if req.Operation == admissionv1.Update && len(req.OldObject.Raw) > 0 {
		if old, _, err = decode(req.OldObject.Raw, req.Namespace, req.Name); err != nil {
			return Verdict{}, err
		}
	}
	added, err := v.newProblems(ctx, obj, old)
	if err != nil {
		return Verdict{}, err
	}
	return judge(obj, added), nil
}

func (v *Validator) watched(ns string) bool {
	return ns == "" || len(v.watch) == 0 || slices.Contains(v.watch, ns)
}

// newProblems translates the store's snapshot with old (or without the object when old is
// nil), then with obj, and returns the problems only the second translation has.
func (v *Validator) newProblems(ctx context.Context, obj, old store.Object) ([]translator.Problem, error) {
	ref, err := store.RefOf(obj)
	if err != nil {
		return nil, err
	}
	snap, err := v.snapshot(ctx, obj)
	if err != nil {
		return nil, err
	}
	before := snap
	if old != nil {
		before, err = snap.With(old)
	} else if _, ok := snap.Get(ref); ok {
		before = snap.Without(ref) // created, yet in the store: judge it against the cluster without it
	}
	if err != nil {
		return nil, err
	}
	after, err := snap.With(obj)
	if err != nil {
		return nil, err
	}
	opts := v.liveOptions(ctx, after)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.engine.SetOptions(opts) // nothing to do while the version, flavor and schemas stay
	b := v.engine.Translate(before)
	had := make(map[translator.Problem]bool, len(b.Problems))
	for _, p := range b.Problems {
		had[p] = true
	}
	a := v.engine.Translate(after)
	var added []translator.Problem
	for _, p := range append(a.Problems, v.pluginProblems(before, after, obj)...) {
		if !had[p] {
			had[p] = true
			added = append(added, p)
		}
	}
	return added, nil
}

// liveOptions are the options objects are judged with: the sync loop's Kong version and router
// flavor, where it reports them, and Kong's schemas of the custom entity types of snap (the
// snapshot with the object under review).
func (v *Validator) liveOptions(ctx context.Context, snap *store.Snapshot) translator.Options {
	opts := v.opts
	if v.KongVersion != nil {
		opts.KongVersion = v.KongVersion()
	}
	if v.RouterFlavor != nil {
		opts.RouterFlavor = v.RouterFlavor()
	}
	if v.EntitySchemas != nil {
		if types := translator.CustomEntityTypes(snap); len(types) > 0 {
			opts.EntitySchemas = v.EntitySchemas(ctx, types)
		} else {
			opts.EntitySchemas = nil
		}
	}
	return opts
}

// snapshot is the store's snapshot with the Secrets obj references that the store lacks,
// fetched (those that do not exist stay missing: a problem then says so).
func (v *Validator) snapshot(ctx context.Context, obj store.Object) (*store.Snapshot, error) {
	snap := v.src.Snapshot()
	if v.Fetch == nil {
		return snap, nil
	}
	var fetched []store.Object
	for _, ref := range informer.SecretRefs(obj) {
		if _, ok := snap.Get(ref); ok {
			continue
		}
		o, err := v.Fetch(ctx, ref)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", ref, err)
		}
		if o != nil {
			fetched = append(fetched, o)
		}
	}
	if len(fetched) == 0 {
		return snap, nil
	}
	return snap.With(fetched...)
}

// pluginProblems are the problems of the plugins obj is or changes (a Secret they read) in
// after that they do not have in before: a build finds a plugin's problems only where it is
// attached, and a plugin is often created before what uses it.
func (v *Validator) pluginProblems(before, after *store.Snapshot, obj store.Object) []translator.Problem {
	var plugins []store.Object
	switch obj.(type) {
	case *configurationv1.KongPlugin, *configurationv1.KongClusterPlugin:
		plugins = []store.Object{obj}
	case *corev1.Secret:
		for _, k := range []store.Kind{store.KindKongPlugin, store.KindKongClusterPlugin} {
			for _, p := range after.Objects(k) {
				if translator.PluginReadsSecret(p, obj.GetNamespace(), obj.GetName()) {
					plugins = append(plugins, p)
				}
			}
		}
	}
	var out []translator.Problem
	for _, p := range plugins {
		had := map[translator.Problem]bool{}
		ref, _ := store.RefOf(p)
		if old, ok := before.Get(ref); ok {
			for _, q := range translator.PluginProblems(before, old, v.opts) {
				had[q] = true
			}
		}
		for _, q := range translator.PluginProblems(after, p, v.opts) {
			if !had[q] {
				out = append(out, q)
			}
		}
	}
	return out
}

// decode reads the object of a request into the store's type; nil with a warning for a kind
// kongsync does not read. The request's namespace and name win over the object's (an object
// created with generateName has no name yet).
func decode(raw []byte, namespace, name string) (store.Object, []string, error) {
	objs, notes, err := store.DecodeManifests("request", bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	if len(objs) != 1 {
		var msgs []string
		for _, n := range notes {
			if n.Err {
				return nil, nil, fmt.Errorf("cannot read the object: %s", n.Msg)
			}
			msgs = append(msgs, "kongsync does not read this object: "+n.Msg)
		}
		return nil, msgs, nil
	}
	obj := objs[0]
	if namespace != "" {
		obj.SetNamespace(namespace)
	}
	if name != "" {
		obj.SetName(name)
	}
	return obj, nil, nil
}

func describe(obj store.Object) string {
	if ref, err := store.RefOf(obj); err == nil {
		return ref.String()
	}
	return obj.GetName()
}
