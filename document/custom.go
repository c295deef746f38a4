package document

import (
	"reflect"
	"strings"
)

// CustomEntities are the entities of one custom entity type (KongCustomEntity): the entities a
// plugin's DAO brings (degraphql_routes, ...), which Kong takes at the top level of a declarative
// configuration under their type's name, as KIC posts them. The translator never names a type
// that Document writes itself.
type CustomEntities struct {
	Type     string
	Entities []*CustomEntity
}

// CustomEntity is one custom entity: its JSON object, already encoded (compact, keys sorted,
// numbers as written in the KongCustomEntity), and the KongCustomEntity it was made from, which
// the encoding leaves out (Kong's schema of such a type has no tags to carry it).
type CustomEntity struct {
	raw             []byte
	Namespace, Name string
}

// NewCustomEntity is an entity of raw, a compact JSON object, made from the KongCustomEntity
// namespace/name. raw must not be modified afterwards.
func NewCustomEntity(raw []byte, namespace, name string) *CustomEntity {
	return &CustomEntity{raw: raw, Namespace: namespace, Name: name}
}

// MarshalJSON returns the entity's JSON object.
func (e *CustomEntity) MarshalJSON() ([]byte, error) { return e.raw, nil }

// customCount is how many custom entities d holds.
func customCount(d *Document) int {
	n := 0
	for _, c := range d.CustomEntities {
		n += len(c.Entities)
	}
	return n
}

// withCustom merges the custom entity lists of d into the fields encoding/json writes, at their
// place in key order (Document's own fields are in key order): the JSON is then the document
// with its top-level keys sorted, as KIC's (a map) is. A custom list's index follows the
// struct's fields, so that the JSON cache keys it apart from them.
func withCustom(d *Document, fields []emittedField) []emittedField {
	if len(d.CustomEntities) == 0 {
		return fields
	}
	out := make([]emittedField, 0, len(fields)+len(d.CustomEntities))
	base := reflect.TypeFor[Document]().NumField()
	i := 0
	for k, c := range d.CustomEntities {
		if len(c.Entities) == 0 {
			continue
		}
		for i < len(fields) && strings.Compare(fields[i].name, c.Type) < 0 {
			out = append(out, fields[i])
			i++
		}
		out = append(out, emittedField{index: base + k, name: c.Type, value: reflect.ValueOf(c.Entities)})
	}
	return append(out, fields[i:]...)
}
