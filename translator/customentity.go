package translator

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/kongsync/kongsync/document"
	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// The custom entity family: KongCustomEntities → Kong's custom entities, as KIC v3.5.13's
// FillCustomEntities makes them. A KongCustomEntity of our class (spec.controllerName) is
// checked against Kong's schema of its type (Options.EntitySchemas, never fetched here); when
// its parentRef names a KongPlugin or KongClusterPlugin, the custom entity stage
// (customstage.go) makes one entity per Kong service, route or consumer that plugin is attached
// to, with the schema's foreign keys set to their ids; otherwise one entity, its fields as
// given. Entities carry no id or tags (KIC sets none; Kong's schemas of such types have no
// tags). This file is the pieces: what one KongCustomEntity is, whatever it attaches to.

// Bounds on what one KongCustomEntity makes: its fields, and all the entities it makes together
// (its fields once per attachment), so that a small object attached to many Kong services
// cannot grow the configuration without bound.
const (
	maxCustomFieldsBytes  = 64 << 10
	maxCustomFieldsDepth  = 64
	maxCustomEntityBytes  = 4 << 20
	maxCustomEntityCopies = 10000
)

// customMemos are what the custom entity family keeps between builds.
type customMemos struct {
	customs *memo[*kva.KongCustomEntity, *customPiece]
	// entities are the last build's entities by what they were made of, reused (their pointers,
	// so their JSON) while that is the same.
	entities map[customKey]*document.CustomEntity
}

// customBuild is the custom entity family's view of a build, which assemble hands it.
type customBuild struct {
	*translation
	memos *customMemos
}

// customPiece is one KongCustomEntity checked against its type's schema: its fields, the
// schema's foreign keys it takes from the plugin's attachments, and the plugin.
type customPiece struct {
	ok     bool
	typ    string
	fields map[string]any // as decoded (numbers as written); shared, never modified
	size   int            // bytes of spec.fields
	base   []byte         // the fields' JSON: the entity when nothing is filled in
	// foreign are the schema's foreign keys to services, routes and consumers, in schema order;
	// requiredForeign those of them Kong requires and the fields leave unset.
	foreign         []customForeign
	requiredForeign []customForeign
	plugin          pluginRef // the KongPlugin or KongClusterPlugin (by namespace:name, as KIC keys it)
	attached        bool      // spec.parentRef names a plugin
}

// customForeign is a foreign-key field and the entity type it points at.
type customForeign struct{ field, ref string }

// customKey is what an entity is made of: its KongCustomEntity's piece and the ids filled in.
type customKey struct {
	piece *customPiece
	combo customCombo
}

// customCombo is the ids one entity's foreign keys take: KIC's combination of the plugin's
// attachments, at most one of service and route, with a consumer or not.
type customCombo struct{ service, route, consumer string }

// idFor is the combination's id of entity type ref ("" when it has none).
func (c customCombo) idFor(ref string) string {
	switch ref {
	case "services":
		return c.service
	case "routes":
		return c.route
	}
	return c.consumer
}

func customRef(e *kva.KongCustomEntity) store.Ref {
	return store.Ref{Kind: store.KindKongCustomEntity, Namespace: e.Namespace, Name: e.Name}
}

// servesCustomEntity is KIC's filter for KongCustomEntities: spec.controllerName names our
// class, or is empty while our IngressClass is the cluster default and the object has no
// kubernetes.io/ingress.class annotation naming another class (its reconciler's and its
// store's filters together).
func (t *customBuild) servesCustomEntity(e *kva.KongCustomEntity) bool {
	return e.ServedByClass(t.opts.IngressClass, t.defaultClass)
}

// customPieceOf is the piece of a served KongCustomEntity.
func (t *customBuild) customPieceOf(e *kva.KongCustomEntity) *customPiece {
	return piece(t.translation, t.memos.customs, e, func() *customPiece { return t.buildCustomPiece(e) })
}

// buildCustomPiece checks the entity as KIC does, in its order: the type, its schema, the
// fields against it, then the plugin named. What fails skips the entity, with a problem.
func (t *customBuild) buildCustomPiece(e *kva.KongCustomEntity) *customPiece {
	ref := customRef(e)
	p := &customPiece{typ: e.Spec.EntityType}
	if msg := customTypeProblem(p.typ); msg != "" {
		t.problem(ref, "spec.type", "%s; KongCustomEntity skipped", msg)
		return p
	}
	schema, ok := t.customSchema(ref, p.typ)
	if !ok {
		return p
	}
	if p.fields, ok = t.customFields(ref, e.Spec.Fields); !ok {
		return p
	}
	p.size = len(e.Spec.Fields)
	if f, msg := checkCustomFields(schema, p.fields); f != "" {
		t.problem(ref, "spec.fields."+f, "%s (Kong's schema of %s); KongCustomEntity skipped", msg, p.typ)
		return p
	}
	for _, f := range schema.Fields {
		if f.Type != "foreign" || (f.Reference != "services" && f.Reference != "routes" && f.Reference != "consumers") {
			continue
		}
		fk := customForeign{field: f.Name, ref: f.Reference}
		p.foreign = append(p.foreign, fk)
		if v := p.fields[f.Name]; f.Required && !f.HasDefault && v == nil {
			p.requiredForeign = append(p.requiredForeign, fk)
		}
	}
	if !t.customParent(ref, e, p) {
		return p
	}
	var err error
	if p.base, err = encodeCustom(p.fields); err != nil {
		t.problem(ref, "spec.fields", "cannot be encoded: %v; KongCustomEntity skipped", err)
		return p
	}
	p.ok = true
	return p
}

// customSchema is the schema of typ, or false with a problem (none when it is being read).
func (t *customBuild) customSchema(ref store.Ref, typ string) (EntitySchema, bool) {
	s, known := t.opts.EntitySchemas[typ]
	switch {
	case s.Pending:
		return s, false
	case !known:
		t.problem(ref, "spec.type", "Kong's schema of entity type %s is not known (without a Kong, kongsync knows "+
			"those of %v); KongCustomEntity skipped", typ, BundledEntityTypes())
		return s, false
	case s.Err != "":
		t.problem(ref, "spec.type", "failed to fetch entity schema for entity type %s: %s; KongCustomEntity skipped",
			typ, s.Err)
		return s, false
	}
	return s, true
}

// customFields decodes spec.fields as KIC does, into an object (null is an empty one), within
// maxCustomFieldsBytes and maxCustomFieldsDepth. Numbers keep their exact text.
func (t *customBuild) customFields(ref store.Ref, raw json.RawMessage) (map[string]any, bool) {
	if len(raw) == 0 {
		t.problem(ref, "spec.fields", "missing (the CRD requires it); KongCustomEntity skipped")
		return nil, false
	}
	if len(raw) > maxCustomFieldsBytes {
		t.problem(ref, "spec.fields", "%d bytes, more than the %d kongsync takes; KongCustomEntity skipped",
			len(raw), maxCustomFieldsBytes)
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var fields map[string]any
	if err := dec.Decode(&fields); err != nil || dec.More() {
		t.problem(ref, "spec.fields", "not a JSON object (KIC reads the entity's fields from one); KongCustomEntity skipped")
		return nil, false
	}
	if fields == nil {
		fields = map[string]any{}
	}
	if nestingExceeds(fields, maxCustomFieldsDepth) {
		t.problem(ref, "spec.fields", "nests more than %s levels; KongCustomEntity skipped", strconv.Itoa(maxCustomFieldsDepth))
		return nil, false
	}
	return fields, true
}

// customParent resolves spec.parentRef as KIC does: only group configuration.konghq.com and kind
// KongPlugin or KongClusterPlugin attach (another reference leaves the entity unattached, with a
// problem saying so); another namespace needs a ReferenceGrant there; the plugin must exist
// (a KongClusterPlugin of our class). It returns false when the entity is skipped.
func (t *customBuild) customParent(ref store.Ref, e *kva.KongCustomEntity, p *customPiece) bool {
	pr := e.Spec.ParentRef
	if pr == nil {
		return true
	}
	group, kind := deref(pr.Group), deref(pr.Kind)
	if group != kva.SchemeGroupVersion.Group || (kind != "KongPlugin" && kind != "KongClusterPlugin") {
		t.problem(ref, "spec.parentRef", "attaches only with group %s and kind KongPlugin or KongClusterPlugin "+
			"(group %s, kind %s); the entity is translated unattached, as KIC does", kva.SchemeGroupVersion.Group,
			quoteShort(group), quoteShort(kind))
		return true
	}
	ns := e.Namespace
	if pns := deref(pr.Namespace); pns != "" && pns != e.Namespace {
		if !t.grantAllows(ref, pns, kva.SchemeGroupVersion.Group, "KongPlugin", pr.Name) {
			t.missingRef(ref, "spec.parentRef", "no ReferenceGrant in namespace %s allows the reference to %s %s; "+
				"KongCustomEntity skipped", pns, kind, quoteShort(pr.Name))
			return false
		}
		ns = pns
	}
	if !t.customPluginExists(kind, ns, pr.Name) {
		where := " in namespace " + ns
		if kind == "KongClusterPlugin" {
			where = " (or is of another class)"
		}
		t.missingRef(ref, "spec.parentRef", "%s %s does not exist%s; KongCustomEntity skipped", kind, quoteShort(pr.Name), where)
		return false
	}
	p.plugin, p.attached = pluginRef{namespace: ns, name: pr.Name}, true
	return true
}

// customPluginExists reports whether the KongPlugin ns/name, or the KongClusterPlugin name of
// our class, exists. A KongClusterPlugin without class is ours while our IngressClass is the
// default: the piece then reads that IngressClass, so that it is made again when that changes.
func (t *customBuild) customPluginExists(kind, ns, name string) bool {
	if kind == "KongPlugin" {
		_, ok := t.snap.Get(store.Ref{Kind: store.KindKongPlugin, Namespace: ns, Name: name})
		return ok
	}
	o, ok := t.snap.Get(store.Ref{Kind: store.KindKongClusterPlugin, Name: name})
	if ok && o.GetAnnotations()[annIngressClass] == "" {
		t.snap.Get(store.Ref{Kind: store.KindIngressClass, Name: t.opts.IngressClass})
	}
	return ok && t.servesClassAnnotation(o)
}

// encodeCustom is an entity's JSON: compact, keys sorted, HTML not escaped, numbers as given.
// Decoded JSON always encodes; an error would be a bug, reported rather than panicking.
func encodeCustom(fields map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fields); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// CustomEntityParent is the object a KongCustomEntity depends on, as KIC's fallback
// configuration resolves it (resolveKongCustomEntityDependencies): the KongPlugin its
// spec.parentRef names in its own namespace (a reference to another namespace resolves to none
// there), or the KongClusterPlugin it names; false without such a reference. The Kong
// services, routes and consumers its entities are attached to come through that plugin.
func CustomEntityParent(e *kva.KongCustomEntity) (store.Ref, bool) {
	pr := e.Spec.ParentRef
	if pr == nil || deref(pr.Group) != kva.SchemeGroupVersion.Group {
		return store.Ref{}, false
	}
	switch deref(pr.Kind) {
	case "KongPlugin":
		if ns := deref(pr.Namespace); ns != "" && ns != e.Namespace {
			return store.Ref{}, false
		}
		return store.Ref{Kind: store.KindKongPlugin, Namespace: e.Namespace, Name: pr.Name}, true
	case "KongClusterPlugin":
		return store.Ref{Kind: store.KindKongClusterPlugin, Name: pr.Name}, true
	}
	return store.Ref{}, false
}
