package translator

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/kongsync/kongsync/document"
	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// The custom entity stage: the served KongCustomEntities' pieces (customentity.go) made into
// entities, with the foreign keys KIC fills from what the parent plugin is attached to. It runs
// after the plugin stage, whose relations (who asks for which plugin) it reads, so it sits with
// the engine. KIC's rules (kongstate.FillCustomEntities): a schema field to services takes the
// Kong services the plugin is attached to through annotated Services, or, when there are none,
// the Kong services of the routes it is attached to; one to routes, those routes; one to
// consumers, those consumers. Combined as KIC combines a plugin's attachments (with consumers,
// every service or route with every consumer), one entity each; no attachment at all, one
// entity without them. Entities of a type are sorted by namespace, name, then the service,
// route and consumer ids.

// customOut is one entity made, with what it sorts by.
type customOut struct {
	typ, ns, name string
	combo         customCombo
	e             *document.CustomEntity
}

// customEntities makes the custom entity lists of the document from the served
// KongCustomEntities, rels being the plugin stage's relations of this build.
func (t *customBuild) customEntities(doc *document.Document, rels map[pluginRef]*pluginRels) []*document.CustomEntities {
	objs := t.snap.Objects(store.KindKongCustomEntity)
	if len(objs) == 0 {
		t.memos.entities = nil
		return nil
	}
	var served []*kva.KongCustomEntity
	var pieces []*customPiece
	for _, o := range objs {
		if e, ok := o.(*kva.KongCustomEntity); ok && t.servesCustomEntity(e) {
			if p := t.customPieceOf(e); p.ok {
				served, pieces = append(served, e), append(pieces, p)
			}
		}
	}
	prev := t.memos.entities
	next := make(map[customKey]*document.CustomEntity, len(prev))
	var ids *customIDs
	var out []customOut
	for i, e := range served {
		p := pieces[i]
		combos := []customCombo{{}}
		if p.attached && len(p.foreign) > 0 && rels[p.plugin] != nil {
			if ids == nil {
				ids = newCustomIDs(doc, rels, pieces)
			}
			combos = t.customCombos(customRef(e), p, rels[p.plugin], ids)
		}
		out = t.customMade(e, p, combos, prev, next, out)
	}
	if t.keep {
		t.memos.entities = next
	}
	return groupCustom(out)
}

// customMade appends the entities of one KongCustomEntity, one per combination, reusing the
// last build's; none when a combination leaves a foreign key Kong requires unset.
func (t *customBuild) customMade(e *kva.KongCustomEntity, p *customPiece, combos []customCombo,
	prev, next map[customKey]*document.CustomEntity, out []customOut) []customOut {
	for _, c := range combos {
		for _, fk := range p.requiredForeign {
			if c.idFor(fk.ref) == "" {
				t.problem(customRef(e), "spec.fields."+fk.field, "required by Kong's schema of %s, and not filled in: "+
					"the plugin of spec.parentRef is attached to no %s; KongCustomEntity skipped", p.typ, strings.TrimSuffix(fk.ref, "s"))
				return out
			}
		}
	}
	mark := len(out)
	for _, c := range combos {
		k := customKey{piece: p, combo: c}
		ent := prev[k]
		if ent == nil {
			raw := p.base
			if c != (customCombo{}) {
				m := maps.Clone(p.fields)
				for _, fk := range p.foreign {
					if id := c.idFor(fk.ref); id != "" {
						m[fk.field] = map[string]any{"id": id}
					}
				}
				var err error
				if raw, err = encodeCustom(m); err != nil {
					t.problem(customRef(e), "spec.fields", "cannot be encoded: %v; KongCustomEntity skipped", err)
					return out[:mark]
				}
			}
			ent = document.NewCustomEntity(raw, e.Namespace, e.Name)
		}
		next[k] = ent
		out = append(out, customOut{typ: p.typ, ns: e.Namespace, name: e.Name, combo: c, e: ent})
	}
	return out
}

// customCombos are KIC's combinations of the ids the plugin's attachments give the entity's
// foreign keys (rels.GetCombinations), each id once; none when nothing fills them. An entity
// that would be copied more than maxCustomEntityCopies times, or past maxCustomEntityBytes in
// all, is skipped with a problem.
func (t *customBuild) customCombos(ref store.Ref, p *customPiece, rel *pluginRels, ids *customIDs) []customCombo {
	var svcs, routes, consumers []string
	has := func(r string) bool {
		return slices.ContainsFunc(p.foreign, func(f customForeign) bool { return f.ref == r })
	}
	if has("services") {
		if len(rel.services) > 0 {
			svcs = idsOf(rel.services, ids.services)
		} else {
			svcs = idsOf(rel.routes, ids.routeServices)
		}
	}
	if has("routes") {
		routes = idsOf(rel.routes, ids.routes)
	}
	if has("consumers") {
		consumers = idsOf(rel.consumers, ids.consumers)
	}
	l := len(svcs) + len(routes)
	n := l * max(len(consumers), 1)
	if l == 0 {
		n = len(consumers)
	}
	if n > maxCustomEntityCopies || n*max(p.size, 1) > maxCustomEntityBytes {
		t.problem(ref, "spec.parentRef", "the plugin's attachments would make %d entities of %d bytes each (at most %d "+
			"entities and %d bytes in all); KongCustomEntity skipped", n, p.size, maxCustomEntityCopies, maxCustomEntityBytes)
		return nil
	}
	out := make([]customCombo, 0, n)
	add := func(c customCombo) {
		out = append(out, c)
	}
	if len(consumers) == 0 {
		consumers = []string{""}
	}
	for _, c := range consumers {
		if l == 0 {
			add(customCombo{consumer: c})
		}
		for _, s := range svcs {
			add(customCombo{service: s, consumer: c})
		}
		for _, r := range routes {
			add(customCombo{route: r, consumer: c})
		}
	}
	if len(out) == 1 && out[0] == (customCombo{}) {
		return []customCombo{{}} // no attachment fills a key: the entity as given
	}
	return out
}

// idsOf are the ids of the targets, in order, each once; targets without one are left out.
func idsOf(targets []pluginTarget, byName map[string]string) []string {
	var out []string
	for _, tg := range targets {
		if id := byName[tg.name]; id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// customIDs are the ids of the document's entities that the served custom entities' plugins
// are attached to, by name: Kong services, routes (and their Kong service), consumers by
// username. Only those names are indexed, in one walk of the document.
type customIDs struct {
	services, routes, routeServices, consumers map[string]string
}

func newCustomIDs(doc *document.Document, rels map[pluginRef]*pluginRels, pieces []*customPiece) *customIDs {
	ids := &customIDs{services: map[string]string{}, routes: map[string]string{}, routeServices: map[string]string{},
		consumers: map[string]string{}}
	for _, p := range pieces {
		rel := rels[p.plugin]
		if !p.attached || rel == nil {
			continue
		}
		for _, tg := range rel.services {
			ids.services[tg.name] = ""
		}
		for _, tg := range rel.routes {
			ids.routes[tg.name], ids.routeServices[tg.name] = "", ""
		}
		for _, tg := range rel.consumers {
			ids.consumers[tg.name] = ""
		}
	}
	for _, s := range doc.Services {
		if _, ok := ids.services[deref(s.Name)]; ok {
			ids.services[deref(s.Name)] = deref(s.ID)
		}
		for _, r := range s.Routes {
			if _, ok := ids.routes[deref(r.Name)]; ok {
				ids.routes[deref(r.Name)], ids.routeServices[deref(r.Name)] = deref(r.ID), deref(s.ID)
			}
		}
	}
	for _, c := range doc.Consumers {
		if _, ok := ids.consumers[deref(c.Username)]; ok {
			ids.consumers[deref(c.Username)] = deref(c.ID)
		}
	}
	return ids
}

// groupCustom sorts the entities made into one list per type, types sorted.
func groupCustom(out []customOut) []*document.CustomEntities {
	if len(out) == 0 {
		return nil
	}
	slices.SortFunc(out, func(a, b customOut) int {
		return cmp.Or(strings.Compare(a.typ, b.typ), strings.Compare(a.ns, b.ns), strings.Compare(a.name, b.name),
			strings.Compare(a.combo.service, b.combo.service), strings.Compare(a.combo.route, b.combo.route),
			strings.Compare(a.combo.consumer, b.combo.consumer))
	})
	var lists []*document.CustomEntities
	for _, o := range out {
		if len(lists) == 0 || lists[len(lists)-1].Type != o.typ {
			lists = append(lists, &document.CustomEntities{Type: o.typ})
		}
		l := lists[len(lists)-1]
		l.Entities = append(l.Entities, o.e)
	}
	return lists
}
