package translator

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// testEntitySchemas are the bundled schemas and three of the tests' own: route_hints, with
// foreign keys to services, routes and consumers, so that every combination of KIC's attachments
// is made; route_notes, whose foreign key to routes is required; broken_type, whose schema could
// not be read.
func testEntitySchemas() EntitySchemas {
	s := BundledEntitySchemas()
	for typ, body := range map[string]string{"route_hints": routeHintsSchema, "route_notes": routeNotesSchema} {
		p, err := ParseEntitySchema([]byte(body))
		if err != nil {
			panic(err)
		}
		s[typ] = p
	}
	s["broken_type"] = EntitySchema{Err: "GET /schemas/broken_type: HTTP 500: An unexpected error occurred"}
	return s
}

const (
	routeHintsSchema = `{"fields": [{"id": {"type": "string", "uuid": true, "auto": true}},
	{"service": {"type": "foreign", "reference": "services"}},
	{"route": {"type": "foreign", "reference": "routes"}},
	{"consumer": {"type": "foreign", "reference": "consumers"}},
	{"hint": {"type": "string", "required": true}}, {"weight": {"type": "integer", "default": 1}}]}`
	routeNotesSchema = `{"fields": [{"route": {"type": "foreign", "reference": "routes", "required": true}},
	{"note": {"type": "string"}}]}`
)

// customFieldValues are the fields the world's custom entities take: valid ones of each type,
// and ones their schema (or KIC) refuses.
var customFieldValues = []string{
	`{"uri":"/a","query":"query{ a }"}`, `{"uri":"/b","query":"q","methods":["GET","POST"]}`,
	`{"hint":"h","weight":3}`, `{"hint":"h","route":{"id":"00000000-0000-0000-0000-000000000001"}}`, `{"note":"n"}`,
	`{"uri":1,"query":"q"}`, `{"query":"q"}`, `{"nope":1,"uri":"/a","query":"q"}`, `[1]`, `null`, `{}`,
	`{"weight":1.5,"hint":"h"}`,
}

// customEntityObjects are KongCustomEntities over the pool's plugins: attached to the first
// KongPlugin of a namespace and to the first KongClusterPlugin, route hints attached to a
// second KongPlugin, one unattached, one of another class, one whose type's schema could not be
// read, one naming a plugin of another namespace.
func customEntityObjects(pool []store.Object) []store.Object {
	var plugins []*configurationv1.KongPlugin
	cluster := ""
	for _, o := range pool {
		switch p := o.(type) {
		case *configurationv1.KongPlugin:
			plugins = append(plugins, p)
		case *configurationv1.KongClusterPlugin:
			if cluster == "" {
				cluster = p.Name
			}
		}
	}
	if len(plugins) == 0 {
		return nil
	}
	ns := plugins[0].Namespace
	ce := func(name, typ, fields string, parent *kva.ObjectReference) *kva.KongCustomEntity {
		return &kva.KongCustomEntity{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name)},
			Spec: kva.KongCustomEntitySpec{EntityType: typ, ControllerName: "kong", Fields: json.RawMessage(fields), ParentRef: parent}}
	}
	group := kva.SchemeGroupVersion.Group
	ref := func(kind, name string) *kva.ObjectReference {
		return &kva.ObjectReference{Group: &group, Kind: &kind, Name: name}
	}
	second := plugins[len(plugins)-1]
	other := ce("ce-other-class", "degraphql_routes", customFieldValues[0], nil)
	other.Spec.ControllerName = "other"
	away := ce("ce-away", "degraphql_routes", customFieldValues[1], ref("KongPlugin", plugins[0].Name))
	away.Namespace, away.Spec.ParentRef.Namespace = "custom-away", &ns
	return []store.Object{
		ce("ce-plugin", "degraphql_routes", customFieldValues[0], ref("KongPlugin", plugins[0].Name)),
		ce("ce-hints", "route_hints", customFieldValues[2], ref("KongPlugin", second.Name)),
		ce("ce-cluster", "degraphql_routes", customFieldValues[1], ref("KongClusterPlugin", cluster)),
		ce("ce-alone", "degraphql_routes", customFieldValues[1], nil),
		ce("ce-broken", "broken_type", `{}`, nil),
		other, away,
	}
}

// mutateCustomEntity edits what decides a custom entity: its class (controllerName and the class
// annotation), type (known, the tests' own, unreadable, refused), fields (valid or not), and
// parentRef (none, a KongPlugin or KongClusterPlugin of the pool or missing, another
// namespace's, another group).
func (w *world) mutateCustomEntity(o *kva.KongCustomEntity) string {
	switch w.r.IntN(5) {
	case 0:
		o.Spec.ControllerName = pick(w.r, []string{"kong", "other", ""})
		return fmt.Sprintf("controllerName %q, ", o.Spec.ControllerName) + w.setClassAnnotation(&o.ObjectMeta)
	case 1:
		o.Spec.EntityType = pick(w.r, []string{"degraphql_routes", "route_hints", "route_notes", "broken_type", "unknown_type", "services", "Bad-Type", "vaults"})
		return "type " + o.Spec.EntityType
	case 2:
		o.Spec.Fields = json.RawMessage(pick(w.r, customFieldValues))
		return "fields " + string(o.Spec.Fields)
	}
	group, kind := kva.SchemeGroupVersion.Group, pick(w.r, []string{"KongPlugin", "KongClusterPlugin"})
	switch w.r.IntN(4) {
	case 0:
		o.Spec.ParentRef = nil
		return "parentRef removed"
	case 1:
		o.Spec.ParentRef = &kva.ObjectReference{Kind: &kind, Name: "p"}
		return "parentRef without group"
	case 2:
		ns := pick(w.r, w.namespaces)
		o.Spec.ParentRef = &kva.ObjectReference{Group: &group, Kind: &kind, Namespace: &ns,
			Name: pick(w.r, w.names(store.KindKongPlugin, ns))}
		return fmt.Sprintf("parentRef %s %s/%s", kind, ns, o.Spec.ParentRef.Name)
	}
	names := w.names(store.KindKongPlugin, o.Namespace)
	if kind == "KongClusterPlugin" {
		names = w.names(store.KindKongClusterPlugin, "")
	}
	o.Spec.ParentRef = &kva.ObjectReference{Group: &group, Kind: &kind, Name: pick(w.r, names)}
	return fmt.Sprintf("parentRef %s %s", kind, o.Spec.ParentRef.Name)
}
