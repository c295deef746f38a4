package kongdouble

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Custom entities: the entity types a plugin's DAO brings (Kong loads a plugin's daos.lua only
// when the plugin is enabled on the node). Such a type is a top-level key of a declarative
// configuration and has a schema at GET /schemas/<type> exactly while its plugin is enabled;
// otherwise Kong refuses the key as an unknown field and answers 404 "No entity named '<type>'".
// The double knows the types of the custom entities KIC's corpus uses.

// EnterprisePlugins are the Kong Enterprise plugins the double adds to the bundled ones when it
// reports an Enterprise version (Options.Version, e.g. 3.9.1.0-enterprise-edition) and no
// Options.Plugins: those whose custom entities it knows.
var EnterprisePlugins = []string{"degraphql"}

// customEntityTypes maps each custom entity type the double knows to the plugin whose DAO it is.
var customEntityTypes = map[string]string{"degraphql_routes": "degraphql"}

// customSchemas are Kong Gateway Enterprise 3.9's answers to GET /schemas/<type> (the fields;
// Kong adds the schema's name, primary and endpoint keys).
var customSchemas = map[string]string{
	"degraphql_routes": `{"name":"degraphql_routes","primary_key":["id"],"endpoint_key":"id","fields":[` +
		`{"id":{"type":"string","uuid":true,"auto":true}},` +
		`{"service":{"type":"foreign","reference":"services","on_delete":"cascade"}},` +
		`{"methods":{"type":"set","elements":{"type":"string","one_of":["GET","HEAD","PUT","PATCH","POST","DELETE",` +
		`"OPTIONS","TRACE","CONNECT"]},"default":["GET"]}},` +
		`{"uri":{"type":"string","required":true}},` +
		`{"query":{"type":"string","required":true}},` +
		`{"created_at":{"type":"integer","timestamp":true,"auto":true}},` +
		`{"updated_at":{"type":"integer","timestamp":true,"auto":true}}]}`,
}

// customTypeLoaded reports whether typ is a custom entity type of a plugin enabled on the node.
func customTypeLoaded(typ string, plugins map[string]bool) bool {
	p, ok := customEntityTypes[typ]
	return ok && plugins[p]
}

// getSchema answers GET /schemas/<name>: a loaded custom entity type's schema, else Kong's 404.
func (s *Server) getSchema(w http.ResponseWriter, name string) {
	_, plugins := s.version()
	if !customTypeLoaded(name, setOf(plugins)) {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "No entity named '" + name + "'"})
		return
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(customSchemas[name]), &body); err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, body)
}

func setOf(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

var httpMethods = []string{"GET", "HEAD", "PUT", "PATCH", "POST", "DELETE", "OPTIONS", "TRACE", "CONNECT"}

// checkDegraphqlRoute is the degraphql plugin's degraphql_routes schema: uri and query required
// strings, methods a set of HTTP methods, service a reference to a service (checked once the
// whole document is valid, as Kong checks references).
func checkDegraphqlRoute(e *entity) {
	e.required("uri")
	e.required("query")
	e.str("uri")
	e.str("query")
	if m, ok := e.data["methods"]; ok {
		list, isList := m.([]any)
		if !isList {
			e.field("methods", "expected a set")
		}
		for i, x := range list {
			if s, _ := x.(string); !slices.Contains(httpMethods, s) {
				e.field(fmt.Sprintf("methods.%d", i+1), "expected one of: "+strings.Join(httpMethods, ", "))
			}
		}
	}
	e.foreign("service", "services")
}

// foreign checks a foreign key given as {"id": <uuid>} and records it for the reference check.
func (e *entity) foreign(field, ref string) {
	v, ok := e.data[field]
	if !ok || v == nil {
		return
	}
	m, isRecord := v.(map[string]any)
	if !isRecord {
		e.field(field, "expected a record")
		return
	}
	id, _ := m["id"].(string)
	if !uuidRE.MatchString(id) {
		e.field(field+".id", "expected a valid UUID")
		return
	}
	e.v.refs = append(e.v.refs, pendingRef{e: e, field: field, ref: ref, id: id})
}

// pendingRef is a foreign key to check once every entity is read.
type pendingRef struct {
	e          *entity
	field, ref string
	id         string
}

// checkRefs is Kong's reference check (declarative_config.lua validate_references), run when
// the document is otherwise valid: a foreign key must name an entity of the document.
func (v *validator) checkRefs() {
	for _, r := range v.refs {
		if v.seen[r.ref+"|id|"+r.id] {
			continue
		}
		msg := fmt.Sprintf("invalid reference '%s: {\"id\":\"%s\"}' (no such entry in '%s')", r.field, r.id, r.ref)
		v.res.flat = append(v.res.flat, &flatError{EntityType: strings.TrimSuffix(r.e.typ, "s"),
			EntityID: validID(r.e.data["id"]), Entity: r.e.data, Errors: []fieldError{{Type: "field", Field: r.field, Message: msg}},
			path: r.e.path})
		delete(v.res.entities[r.e.typ], r.e.id)
	}
}
