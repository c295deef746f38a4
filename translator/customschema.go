package translator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// Kong's entity schemas as KongCustomEntities need them: the schema JSON Kong answers GET
// /schemas/<type> with, read into the fields translation uses; the schemas `kongsync dump`
// translates with; and the checks of a custom entity's type and fields against them. All pure.

// maxSchemaFields bounds the fields read from one schema: Kong's largest entity schemas have a
// few dozen; a schema answer is read at most maxSchemaBytes (sync) anyway.
const maxSchemaFields = 256

// ParseEntitySchema reads Kong's answer to GET /schemas/<type>: {"fields": [{"<name>":
// {"type": ..., "reference": ..., "required": ..., "auto": ..., "default": ...}}, ...]}, the
// attributes KIC reads of it. Nested record fields are not descended into.
func ParseEntitySchema(body []byte) (EntitySchema, error) {
	var raw struct {
		Fields []map[string]json.RawMessage `json:"fields"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return EntitySchema{}, fmt.Errorf("decode schema: %w", err)
	}
	if raw.Fields == nil {
		return EntitySchema{}, errors.New("decode schema: no fields")
	}
	if len(raw.Fields) > maxSchemaFields {
		return EntitySchema{}, fmt.Errorf("decode schema: %d fields, more than %d", len(raw.Fields), maxSchemaFields)
	}
	var s EntitySchema
	for _, item := range raw.Fields {
		for name, attrs := range item { // one key per item, as Kong writes them
			var a struct {
				Type      string          `json:"type"`
				Reference string          `json:"reference"`
				Required  bool            `json:"required"`
				Auto      bool            `json:"auto"`
				Default   json.RawMessage `json:"default"`
			}
			if err := json.Unmarshal(attrs, &a); err != nil {
				return EntitySchema{}, fmt.Errorf("decode schema field %s: %w", quoteShort(name), err)
			}
			s.Fields = append(s.Fields, SchemaField{Name: name, Type: a.Type, Reference: a.Reference, Required: a.Required,
				Auto: a.Auto, HasDefault: len(a.Default) > 0 && !bytes.Equal(a.Default, []byte("null"))})
		}
	}
	return s, nil
}

// bundledSchemas are the schemas `kongsync dump` and `diff` translate with, as Kong Gateway
// Enterprise 3.9 answers GET /schemas/<type>, reduced to the attributes ParseEntitySchema
// reads: the custom entity types of KIC's corpus (degraphql_routes, the degraphql plugin's).
var bundledSchemas = map[string]string{
	"degraphql_routes": `{"fields": [
		{"id": {"type": "string", "uuid": true, "auto": true}},
		{"service": {"type": "foreign", "reference": "services"}},
		{"methods": {"type": "set", "default": ["GET"]}},
		{"uri": {"type": "string", "required": true}},
		{"query": {"type": "string", "required": true}},
		{"created_at": {"type": "integer", "timestamp": true, "auto": true}},
		{"updated_at": {"type": "integer", "timestamp": true, "auto": true}}]}`,
}

// BundledEntitySchemas are the entity schemas kongsync knows without a Kong: those of the custom
// entity types of KIC's corpus. A new map each call. (The texts are constants, which a test
// parses; one that did not parse would be an Err of its type.)
func BundledEntitySchemas() EntitySchemas {
	out := EntitySchemas{}
	for typ, body := range bundledSchemas {
		s, err := ParseEntitySchema([]byte(body))
		if err != nil {
			s = EntitySchema{Err: err.Error()}
		}
		out[typ] = s
	}
	return out
}

// BundledEntityTypes lists the types of BundledEntitySchemas, sorted.
func BundledEntityTypes() []string {
	out := make([]string, 0, len(bundledSchemas))
	for typ := range bundledSchemas {
		out = append(out, typ)
	}
	slices.Sort(out)
	return out
}

// CustomEntityTypes lists, sorted, the distinct types of the snapshot's KongCustomEntities whose
// schema a translation would look up (types refused by name are left out): what the sync loop
// reads from Kong (GET /schemas/<type>) before translating them.
func CustomEntityTypes(snap *store.Snapshot) []string {
	var out []string
	for _, o := range snap.Objects(store.KindKongCustomEntity) {
		if e, ok := o.(*kva.KongCustomEntity); ok && customTypeProblem(e.Spec.EntityType) == "" {
			out = append(out, e.Spec.EntityType)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// documentKeys are the top-level keys kongsync's document writes besides KIC's known types: a
// custom entity of such a type would collide with them.
var documentKeys = []string{"ca_certificates", "certificates", "consumer_group_consumers", "licenses", "vaults"}

// maxCustomTypeLen bounds a custom entity type: Kong's entity names are short identifiers.
const maxCustomTypeLen = 64

// customTypeProblem says why typ cannot be a custom entity type, "" when it can: KIC's known
// types (its translator refuses them, as the CRD does), the keys kongsync's document writes,
// and anything not a Kong entity name (lowercase letters, digits and underscores, starting with
// a letter): it becomes a top-level key of the configuration and a path of Kong's admin API.
func customTypeProblem(typ string) string {
	switch {
	case slices.Contains(store.KnownEntityTypes, typ):
		return fmt.Sprintf("cannot use known entity type %s in custom entity (KIC translates it from its own kinds)", typ)
	case slices.Contains(documentKeys, typ):
		return fmt.Sprintf("%s is a list kongsync's configuration holds itself (from its own kinds)", typ)
	case !validEntityName(typ):
		return fmt.Sprintf("%s is not a Kong entity type (lowercase letters, digits and underscores, starting "+
			"with a letter, at most %d)", quoteShort(typ), maxCustomTypeLen)
	}
	return ""
}

func validEntityName(s string) bool {
	if s == "" || len(s) > maxCustomTypeLen || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// checkCustomFields checks an entity's fields against its schema, as far as translation can
// without Kong: every field is one of the schema's, of the kind of value its type takes, and
// every required field Kong does not fill (auto, default, or a foreign key filled from the
// plugin's attachments, checked later) is set. It returns the first field at fault and why, in
// the schema's order, then the lowest unknown field; "" when none. Kong checks the rest when it loads them.
func checkCustomFields(s EntitySchema, fields map[string]any) (field, msg string) {
	known := make(map[string]*SchemaField, len(s.Fields))
	for i := range s.Fields {
		known[s.Fields[i].Name] = &s.Fields[i]
	}
	for _, f := range s.Fields {
		v, set := fields[f.Name]
		if set && v != nil {
			if want := fieldValueKind(f.Type, v); want != "" {
				return f.Name, "expected " + want
			}
			continue
		}
		if f.Required && !f.Auto && !f.HasDefault && f.Type != "foreign" {
			return f.Name, "required field missing"
		}
	}
	var unknown []string
	for k := range fields {
		if known[k] == nil {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return slices.Min(unknown), "unknown field"
	}
	return "", ""
}

// fieldValueKind returns what a value of Kong type typ must be when v is not one ("" when it is, or
// when the type is one kongsync does not check).
func fieldValueKind(typ string, v any) string {
	ok := true
	switch typ {
	case "string":
		_, ok = v.(string)
	case "boolean":
		_, ok = v.(bool)
	case "number":
		_, ok = v.(json.Number)
	case "integer":
		n, isNum := v.(json.Number)
		ok = isNum && isInteger(n)
	case "array", "set":
		_, ok = v.([]any)
	case "map", "record":
		_, ok = v.(map[string]any)
	case "foreign":
		switch v.(type) {
		case map[string]any, string:
		default:
			ok = false
		}
	default:
		return ""
	}
	if ok {
		return ""
	}
	switch typ {
	case "map", "record", "foreign":
		return "a record"
	case "array":
		return "an array"
	case "integer":
		return "an integer"
	}
	return "a " + typ
}

func isInteger(n json.Number) bool {
	if _, err := n.Int64(); err == nil {
		return true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
}

// nestingExceeds reports whether v has more than limit levels of objects and arrays.
func nestingExceeds(v any, limit int) bool {
	var children func(yield func(any) bool)
	switch x := v.(type) {
	case map[string]any:
		children = func(yield func(any) bool) {
			for _, e := range x {
				if !yield(e) {
					return
				}
			}
		}
	case []any:
		children = func(yield func(any) bool) {
			for _, e := range x {
				if !yield(e) {
					return
				}
			}
		}
	default:
		return false
	}
	if limit <= 0 {
		return true
	}
	for e := range children {
		if nestingExceeds(e, limit-1) {
			return true
		}
	}
	return false
}
