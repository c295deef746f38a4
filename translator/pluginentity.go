package translator

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// A plugin entity and what it is made from: the targets a plugin reference names, their
// combinations (KIC's foreign relations), the entity's id, instance_name and description.

// pluginTarget is one Kong entity a plugin reference attaches to, with the object that asked.
type pluginTarget struct {
	name     string // Kong service or route name, consumer username, consumer group name
	referrer store.Ref
}

// pluginRels are the entities referencing one KongPlugin name in one namespace: KIC's
// "foreign relations", combined into plugin entities by combinations.
type pluginRels struct {
	services, routes, consumers, groups []pluginTarget
}

// pluginCombo is one plugin entity's attachment: at most one of service and route, and a
// consumer or a consumer group or neither.
type pluginCombo struct{ service, route, consumer, group string }

// Entity kinds a plugin reference attaches to.
const (
	relService = iota
	relRoute
	relConsumer
	relConsumerGroup
)

// pluginPass is the state of one buildPlugins call: the id space, which source took each
// instance_name (owner) and each plugin id (idOwner, by the id's input: the id itself, a SHA-1,
// is computed only for a new entity) first, and (when the engine keeps entities) the entities
// of the previous call and this one.
type pluginPass struct {
	ids            idSpace
	owner, idOwner map[string]store.Ref
	prev, next     map[pluginMemoKey]*pluginEntity
}

// pluginMemoKey is what a plugin entity is made from: its template (the source's piece, the
// same pointer while nothing it read changed), the attachment and the final instance_name.
// Reusing the entity for the same key keeps its pointer, so the encoder reuses its bytes.
type pluginMemoKey struct {
	tmpl     *kong.Plugin
	combo    pluginCombo
	instance string
}

// entity returns the plugin made from src's template for attachment c (idInput: pluginIDInput),
// reusing the previous call's entity when the engine keeps one for the same inputs.
func (pass *pluginPass) entity(tmpl *kong.Plugin, c pluginCombo, idInput, instance string) *pluginEntity {
	memo := pass.next != nil
	key := pluginMemoKey{tmpl: tmpl, combo: c, instance: instance}
	if memo {
		if e := pass.prev[key]; e != nil {
			pass.next[key] = e
			return e
		}
	}
	e := &pluginEntity{Plugin: document.Plugin{Plugin: *tmpl}, id: pass.ids.id(idInput), instance: instance} // config, tags shared
	e.ID = &e.id
	if tmpl.InstanceName != nil {
		e.InstanceName = &e.instance
	}
	e.setRefs(c)
	e.sortKey = deref(tmpl.Name) + c.consumer + c.group + c.route + c.service
	if memo {
		pass.next[key] = e
	}
	return e
}

// combinations are KIC's plugin relations: with consumers, one plugin per consumer and service
// or route (per consumer alone when there are none); else with consumer groups, the same per
// group; else one per service and per route. Consumer groups referencing a plugin that
// consumers also reference make nothing (KIC's rule; ignoredGroupRels reports them). Entities
// are taken by name, each once, so a repeated reference makes no duplicate entity.
func (r *pluginRels) combinations() []pluginCombo {
	services, routes := uniqueTargets(r.services), uniqueTargets(r.routes)
	var bases []pluginCombo
	switch {
	case len(r.consumers) > 0:
		for _, c := range uniqueTargets(r.consumers) {
			bases = append(bases, pluginCombo{consumer: c.name})
		}
	case len(r.groups) > 0:
		for _, g := range uniqueTargets(r.groups) {
			bases = append(bases, pluginCombo{group: g.name})
		}
	default:
		bases = []pluginCombo{{}}
	}
	var out []pluginCombo
	for _, base := range bases {
		if len(services)+len(routes) == 0 {
			out = append(out, base)
		}
		for _, s := range services {
			combo := base
			combo.service = s.name
			out = append(out, combo)
		}
		for _, rt := range routes {
			combo := base
			combo.route = rt.name
			out = append(out, combo)
		}
	}
	return out
}

// uniqueTargets sorts targets by name and keeps the first of each name.
func uniqueTargets(ts []pluginTarget) []pluginTarget {
	if len(ts) <= 1 {
		return ts
	}
	out := slices.Clone(ts)
	slices.SortStableFunc(out, func(a, b pluginTarget) int { return strings.Compare(a.name, b.name) })
	return slices.CompactFunc(out, func(a, b pluginTarget) bool { return a.name == b.name })
}

// pluginEntity is a plugin with the values behind its pointer fields, in one allocation.
type pluginEntity struct {
	document.Plugin
	id, instance string
	sortKey      string // plugin name, then the consumer, route and service names (sortPlugins)
	combo        pluginCombo
	service      kong.Service
	route        kong.Route
	consumer     kong.Consumer
	group        kong.ConsumerGroup
}

// setRefs points the plugin at its entities by name (the document writes the names). The
// consumer's username goes in ID, as in KIC.
func (e *pluginEntity) setRefs(c pluginCombo) {
	e.combo = c
	if c.service != "" {
		e.service.Name = &e.combo.service
		e.Service = &e.service
	}
	if c.route != "" {
		e.route.Name = &e.combo.route
		e.Route = &e.route
	}
	if c.consumer != "" {
		e.consumer.ID = &e.combo.consumer
		e.Consumer = &e.consumer
	}
	if c.group != "" {
		e.group.Name = &e.combo.group
		e.ConsumerGroup = &e.group
	}
}

func (c pluginCombo) describe() string {
	var parts []string
	for _, f := range [...]struct{ kind, name string }{{"service", c.service}, {"route", c.route}, {"consumer", c.consumer},
		{"consumer group", c.group}} {
		if f.name != "" {
			parts = append(parts, f.kind+" "+f.name)
		}
	}
	if len(parts) == 0 {
		return "every request"
	}
	return strings.Join(parts, " and ")
}

// pluginID is go-kong's FillID for a plugin: the UUIDv5 of its name and the names of its
// service, route, consumer and consumer group, in that order.
func pluginID(ids idSpace, name string, c pluginCombo) string {
	return ids.id(pluginIDInput(name, c))
}

// pluginIDInput is what pluginID hashes: the name and the names of its service, route and
// consumer (and consumer group). Two attachments with one input are one plugin id.
func pluginIDInput(name string, c pluginCombo) string {
	var buf [256]byte
	b := append(buf[:0], name...)
	if c.service != "" {
		b = append(append(b, ":service/"...), c.service...)
	}
	if c.route != "" {
		b = append(append(b, ":route/"...), c.route...)
	}
	if c.consumer != "" {
		b = append(append(b, ":consumer/"...), c.consumer...)
	}
	if c.group != "" {
		b = append(append(b, ":consumer_group/"...), c.group...)
	}
	return string(b)
}

// instanceKey is an instance_name's key among the names pluginPass.owner records.
func instanceKey(name string) string { return "instance_name\x00" + name }

// suffixedInstanceName keeps instance_name unique across the entities one KongPlugin attaches
// to, as KIC does: "-" and the first 9 hex digits of the SHA-256 of the attachment
// ("_service-<name>", "_route-<name>", "_consumer-<name>", "_group-<name>"), or all 64 should the short form
// repeat within the plugin.
func suffixedInstanceName(base string, c pluginCombo, used map[string]bool) string {
	full := attachmentDigest(c)
	name := base + "-" + full[:9]
	if used[name] {
		name = base + "-" + full
	}
	used[name] = true
	return name
}

// attachmentDigest is the hex SHA-256 of an attachment's description.
func attachmentDigest(c pluginCombo) string {
	var h strings.Builder
	if c.service != "" {
		h.WriteString("_service-" + c.service)
	}
	if c.route != "" {
		h.WriteString("_route-" + c.route)
	}
	if c.consumer != "" {
		h.WriteString("_consumer-" + c.consumer)
	}
	if c.group != "" {
		h.WriteString("_group-" + c.group)
	}
	sum := sha256.Sum256([]byte(h.String()))
	return hex.EncodeToString(sum[:])
}

// sortPlugins orders plugins as KIC's deckgen does: by plugin name followed by the names of
// its consumer, route and service (the entity's sortKey), descending; ties (which KIC leaves to
// map order) by id.
func sortPlugins(es []*pluginEntity) []*document.Plugin {
	slices.SortStableFunc(es, func(a, b *pluginEntity) int {
		if c := strings.Compare(b.sortKey, a.sortKey); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	if len(es) == 0 {
		return nil
	}
	out := make([]*document.Plugin, len(es))
	for i, e := range es {
		out[i] = &e.Plugin
	}
	return out
}
