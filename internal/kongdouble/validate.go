package kongdouble

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/kong/go-kong/kong"
)

// fieldError is one error of an entity, as in Kong's flattened_errors.
type fieldError struct {
	Type    string `json:"type"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// flatError is one entry of flattened_errors. entity_id, entity_name and entity_tags are left
// out when invalid, as Kong does; Entity is the input without nested collections, plus the
// parent's foreign key when the parent has a valid id.
type flatError struct {
	EntityType string         `json:"entity_type"`
	EntityID   string         `json:"entity_id,omitempty"`
	EntityName string         `json:"entity_name,omitempty"`
	EntityTags []string       `json:"entity_tags,omitempty"`
	Entity     map[string]any `json:"entity"`
	Errors     []fieldError   `json:"errors"`
	path       []any          // collection, index, collection, index... from the document root
}

// result is a validation's outcome: per-entity errors, top-level field errors (not flattened,
// as in Kong), and on success the entities to answer 201 with, keyed by type then id.
type result struct {
	flat     []*flatError
	top      map[string]any
	entities map[string]map[string]any
}

func (r *result) ok() bool { return len(r.flat) == 0 && len(r.top) == 0 }

type validator struct {
	flavor  string // router_flavor: which route fields exist and how expressions are checked
	sticky  bool   // Kong 3.11 or later: the sticky-sessions algorithm and its fields
	plugins map[string]bool
	res     *result
	seen    map[string]bool
	refs    []pendingRef // foreign keys to check once the document is otherwise valid
}

// entity is one entity being validated.
type entity struct {
	v      *validator
	typ    string // plural, e.g. "services"
	data   map[string]any
	parent *entity
	errs   []fieldError
	genID  string // id Kong would generate (targets), when the input has none
	path   []any  // where it is in the document
	id     string // the id it is answered with, once valid
}

func (e *entity) field(f, msg string) { e.errs = append(e.errs, fieldError{"field", f, msg}) }
func (e *entity) entityErr(msg string) {
	e.errs = append(e.errs, fieldError{Type: "entity", Message: msg})
}

var formatVersions = []string{"1.1", "2.1", "3.0"}

// validate checks a declarative config against the subset of Kong's schemas the double knows.
func validate(doc map[string]any, plugins []string, version, flavor string) *result {
	v := &validator{flavor: flavor, sticky: versionAtLeast(version, 3, 11), plugins: map[string]bool{}, seen: map[string]bool{},
		res: &result{top: map[string]any{}, entities: map[string]map[string]any{}}}
	for _, p := range plugins {
		v.plugins[p] = true
	}
	if fv, ok := doc["_format_version"]; !ok {
		v.res.top["_format_version"] = "required field missing"
	} else if s, _ := fv.(string); !contains(formatVersions, s) {
		v.res.top["_format_version"] = "expected one of: " + strings.Join(formatVersions, ", ")
	}
	for _, k := range sortedKeys(doc) {
		switch {
		case k == "_format_version" || k == "_transform" || k == "_comment" || k == "_ignore" || k == "_workspace":
		case k == "licenses" && !isEnterprise(version):
			v.res.top[k] = "unknown field"
		case customEntityTypes[k] != "" && !customTypeLoaded(k, v.plugins):
			v.res.top[k] = "unknown field" // the plugin bringing the type is not enabled
		case schemas[k] != nil:
			list, ok := doc[k].([]any)
			if !ok {
				v.res.top[k] = "expected an array"
				continue
			}
			for i, item := range list {
				m, ok := item.(map[string]any)
				if !ok {
					v.res.top[k] = "expected a record"
					continue
				}
				v.entity(k, m, []any{k, i}, nil)
			}
		default:
			v.res.top[k] = "unknown field"
		}
	}
	if v.res.ok() {
		v.checkRefs()
	}
	return v.res
}

// entity validates one entity and, recursively, its nested collections.
func (v *validator) entity(typ string, data map[string]any, path []any, parent *entity) {
	sc := schemas[typ]
	e := &entity{v: v, typ: typ, data: data, parent: parent, path: path}
	out := map[string]any{}
	for k, val := range data {
		if _, child := sc.children[k]; !child {
			out[k] = val
		}
	}
	if parent != nil {
		fk := schemas[parent.typ].children[typ]
		if pid := validID(parent.data["id"]); pid != "" && data[fk] == nil {
			out[fk] = map[string]any{"id": pid}
		}
	}
	for _, k := range sortedKeys(data) {
		if _, child := sc.children[k]; !child && !sc.fields[k] {
			e.field(k, "unknown field")
		}
	}
	e.common()
	if sc.check != nil {
		sc.check(e)
	}
	e.unique()
	v.children(e, path)
	id := validID(data["id"])
	if id == "" {
		id = e.genID
	}
	if len(e.errs) > 0 {
		v.res.flat = append(v.res.flat, &flatError{EntityType: strings.TrimSuffix(typ, "s"), EntityID: id,
			EntityName: validName(data["name"]), EntityTags: validTags(data["tags"]), Entity: out,
			Errors: e.errs, path: path})
		return
	}
	if id == "" {
		id = newUUID()
	}
	e.id = id
	out["id"] = id
	if v.res.entities[typ] == nil {
		v.res.entities[typ] = map[string]any{}
	}
	v.res.entities[typ][id] = out
}

// children validates the entity's nested collections, each item pointing back at the entity.
func (v *validator) children(e *entity, path []any) {
	for _, cf := range sortedKeys(schemas[e.typ].children) {
		val, ok := e.data[cf]
		if !ok {
			continue
		}
		list, ok := val.([]any)
		if !ok {
			e.field(cf, "expected an array")
			continue
		}
		for j, it := range list {
			m, ok := it.(map[string]any)
			if !ok {
				e.field(fmt.Sprintf("%s.%d", cf, j+1), "expected a record")
				continue
			}
			v.entity(cf, m, append(append([]any{}, path...), cf, j), e)
		}
	}
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// common checks the fields every entity shares: id, tags, name.
func (e *entity) common() {
	if id, ok := e.data["id"]; ok {
		if s, isStr := id.(string); !isStr {
			e.field("id", "expected a string")
		} else if !uuidRE.MatchString(s) {
			e.field("id", "expected a valid UUID")
		}
	}
	if tags, ok := e.data["tags"]; ok {
		list, isList := tags.([]any)
		if !isList {
			e.field("tags", "expected a set")
		}
		for i, t := range list {
			if _, isStr := t.(string); !isStr {
				e.field(fmt.Sprintf("tags.%d", i+1), "expected a string")
			}
		}
	}
	if name, ok := e.data["name"]; ok && schemas[e.typ].fields["name"] {
		if s, isStr := name.(string); !isStr {
			e.field("name", "expected a string")
		} else if s == "" {
			e.field("name", "length must be at least 1")
		}
	}
}

// unique records the entity's primary and unique keys, reporting a repeat as Kong does.
func (e *entity) unique() {
	sc := schemas[e.typ]
	pk := validID(e.data["id"])
	if e.typ == "targets" {
		pk = e.genID
	}
	if pk != "" {
		key := e.typ + "|id|" + pk
		if e.v.seen[key] {
			e.entityErr(fmt.Sprintf("uniqueness violation: '%s' entity with primary key set to '%s' already declared", e.typ, pk))
			return
		}
		e.v.seen[key] = true
	}
	for _, f := range sc.unique {
		s, _ := e.data[f].(string)
		if s == "" {
			continue
		}
		key := e.typ + "|" + f + "|" + s
		if e.v.seen[key] {
			e.entityErr(fmt.Sprintf("uniqueness violation: '%s' entity with %s set to '%s' already declared", e.typ, f, s))
			continue
		}
		e.v.seen[key] = true
	}
}

func validID(v any) string {
	s, _ := v.(string)
	if uuidRE.MatchString(s) {
		return s
	}
	return ""
}

func validName(v any) string {
	s, _ := v.(string)
	return s
}

func validTags(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, t := range list {
		s, ok := t.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// nested rebuilds Kong's unflattened error table: errors at their place in the document.
func (r *result) nested() map[string]any {
	root := map[string]any{}
	for k, v := range r.top {
		root[k] = v
	}
	for _, f := range r.flat {
		insertAt(root, f.path, f.table())
	}
	return root
}

// table renders one entity's errors as Kong's nested form: a lone entity error is a string,
// otherwise a map of field → message with "@entity" for entity-level messages.
func (f *flatError) table() any {
	if len(f.Errors) == 1 && f.Errors[0].Type == "entity" {
		return f.Errors[0].Message
	}
	m := map[string]any{}
	var ents []any
	for _, fe := range f.Errors {
		if fe.Type == "entity" {
			ents = append(ents, fe.Message)
			continue
		}
		setDotted(m, fe.Field, fe.Message)
	}
	if len(ents) > 0 {
		m["@entity"] = ents
	}
	return m
}

func setDotted(m map[string]any, field, msg string) {
	parts := strings.Split(field, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = msg
}

// insertAt places val at path (collection, index, collection, index, ...) under root.
func insertAt(root map[string]any, path []any, val any) {
	m := root
	for i := 0; i+1 < len(path); i += 2 {
		key, idx := path[i].(string), path[i+1].(int)
		list, _ := m[key].([]any)
		for len(list) <= idx {
			list = append(list, nil)
		}
		m[key] = list
		if i+2 == len(path) {
			if old, ok := list[idx].(map[string]any); ok {
				if nv, ok := val.(map[string]any); ok {
					for k, x := range nv {
						old[k] = x
					}
					return
				}
			}
			list[idx] = val
			return
		}
		next, ok := list[idx].(map[string]any)
		if !ok {
			next = map[string]any{}
			list[idx] = next
		}
		m = next
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isEnterprise reports whether a version names Kong Enterprise, as KIC reads it (go-kong's
// IsKongGatewayEnterprise: four parts, or naming enterprise).
func isEnterprise(version string) bool {
	kv, err := kong.ParseSemanticVersion(version)
	return err == nil && kv.IsKongGatewayEnterprise()
}
