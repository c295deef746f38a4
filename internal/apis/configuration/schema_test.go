package configuration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	incubatorv1alpha1 "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
	"github.com/kongsync/kongsync/internal/apis/kongcrds"
)

// decodedKind is a published CRD kongsync decodes: the version it reads, its Go type, and the
// schema paths it deliberately leaves undecoded, each with why.
type decodedKind struct {
	plural  string // the CRD's spec.names.plural
	version string
	typ     reflect.Type
	ignored map[string]string
}

// Fields of every kind that nobody reads from the schema walk's point of view.
var (
	// konnectStatus is written by Kong's operator for Konnect; KIC neither reads nor writes it.
	konnectStatus = "written by Kong's operator for Konnect entities; KIC v3.5.13 does not read it"
	pluginIgnored = map[string]string{
		"consumerRef": "KIC v3.5.13 never reads it: a plugin reaches a consumer through konghq.com/plugins on the KongConsumer",
	}
)

// decoded is every kind kongsync reads. A kind added to the translator is one line here.
var decoded = []decodedKind{
	{"kongplugins", "v1", reflect.TypeFor[configurationv1.KongPlugin](), pluginIgnored},
	{"kongclusterplugins", "v1", reflect.TypeFor[configurationv1.KongClusterPlugin](), pluginIgnored},
	{"kongconsumers", "v1", reflect.TypeFor[configurationv1.KongConsumer](), map[string]string{
		"status.konnect": konnectStatus}},
	{"kongupstreampolicies", "v1beta1", reflect.TypeFor[configurationv1beta1.KongUpstreamPolicy](), nil},
	{"tcpingresses", "v1beta1", reflect.TypeFor[configurationv1beta1.TCPIngress](), nil},
	{"udpingresses", "v1beta1", reflect.TypeFor[configurationv1beta1.UDPIngress](), nil},
	{"kongconsumergroups", "v1beta1", reflect.TypeFor[configurationv1beta1.KongConsumerGroup](), map[string]string{
		"status.konnect": konnectStatus}},
	{"kongingresses", "v1", reflect.TypeFor[configurationv1.KongIngress](), nil},
	{"ingressclassparameterses", "v1alpha1", reflect.TypeFor[configurationv1alpha1.IngressClassParameters](), nil},
	{"kongvaults", "v1alpha1", reflect.TypeFor[configurationv1alpha1.KongVault](), map[string]string{
		"status.konnect": konnectStatus}},
	{"konglicenses", "v1alpha1", reflect.TypeFor[configurationv1alpha1.KongLicense](), nil},
	{"kongservicefacades", "v1alpha1", reflect.TypeFor[incubatorv1alpha1.KongServiceFacade](), nil},
	{"kongcustomentities", "v1alpha1", reflect.TypeFor[configurationv1alpha1.KongCustomEntity](), nil},
}

// notDecoded are the published CRDs (of the files KIC installs) whose kinds kongsync does not
// read at all, each with why.
var notDecoded = map[string]string{}

// crdFile is what the walk reads of a CustomResourceDefinition.
type crdFile struct {
	Spec struct {
		Names struct {
			Plural string `json:"plural"`
		} `json:"names"`
		Versions []struct {
			Name    string `json:"name"`
			Served  bool   `json:"served"`
			Storage bool   `json:"storage"`
			Schema  struct {
				OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// Every field of every published CRD kongsync reads is decoded by its Go type or ignored with a
// reason, and every CRD KIC installs is either read or listed as not read. Ignore entries that
// no longer name an undecoded schema field fail too, so the lists stay true.
func TestPublishedSchemasAreDecoded(t *testing.T) {
	files, err := kongcrds.AllFiles()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		crd := readCRD(t, f)
		plural := crd.Spec.Names.Plural
		seen[plural] = true
		i := slices.IndexFunc(decoded, func(d decodedKind) bool { return d.plural == plural })
		if i < 0 {
			if notDecoded[plural] == "" {
				t.Errorf("%s: a CRD KIC installs is neither decoded nor in notDecoded", filepath.Base(f))
			}
			continue
		}
		d := decoded[i]
		t.Run(plural, func(t *testing.T) {
			for _, v := range crd.Spec.Versions {
				if v.Name != d.version {
					continue
				}
				if !v.Served {
					t.Errorf("version %s is not served", v.Name)
				}
				w := &walk{ignored: d.ignored, used: map[string]bool{}}
				w.node("", v.Schema.OpenAPIV3Schema, d.typ)
				for _, m := range w.missing {
					t.Errorf("%s: in the published schema, neither decoded by %s nor ignored", m, d.typ)
				}
				for p := range d.ignored {
					if !w.used[p] {
						t.Errorf("ignored %q is not an undecoded field of the schema", p)
					}
				}
				return
			}
			t.Errorf("the CRD has no version %s", d.version)
		})
	}
	for _, d := range decoded {
		if !seen[d.plural] {
			t.Errorf("decoded kind %s has no published CRD", d.plural)
		}
	}
	for p := range notDecoded {
		if !seen[p] {
			t.Errorf("notDecoded lists %s, which has no published CRD", p)
		}
	}
}

func readCRD(t *testing.T, path string) crdFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var crd crdFile
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return crd
}

// walk compares a schema with a Go type, collecting the schema paths the type does not decode.
type walk struct {
	ignored map[string]string
	used    map[string]bool
	missing []string
}

var opaque = []reflect.Type{reflect.TypeFor[json.RawMessage](), reflect.TypeFor[runtime.RawExtension](),
	reflect.TypeFor[any]()}

// node walks schema s at path against t. A type that keeps raw JSON covers its whole subtree.
func (w *walk) node(path string, s map[string]any, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if slices.Contains(opaque, t) || (t.Kind() == reflect.Map && t.Elem() == reflect.TypeFor[any]()) {
		return
	}
	if items, ok := s["items"].(map[string]any); ok && t.Kind() == reflect.Slice {
		w.node(path+"[]", items, t.Elem())
		return
	}
	if add, ok := s["additionalProperties"].(map[string]any); ok && t.Kind() == reflect.Map {
		w.node(path+"{}", add, t.Elem())
		return
	}
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 {
		return
	}
	fields := jsonFields(t)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := strings.TrimPrefix(path+"."+n, ".")
		if _, ok := w.ignored[p]; ok {
			w.used[p] = true
			continue
		}
		ft, ok := fields[n]
		if !ok {
			w.missing = append(w.missing, p)
			continue
		}
		if n == "metadata" && path == "" {
			continue // ObjectMeta; the schema leaves it to the API server
		}
		sub, _ := props[n].(map[string]any)
		w.node(p, sub, ft)
	}
}

// jsonFields maps the JSON names a struct decodes to their types, through embedded and inline
// structs as encoding/json does.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	if t.Kind() != reflect.Struct {
		return out
	}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			for k, v := range jsonFields(ft) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// The walk itself: nested objects, array items, map values, inline structs and raw JSON.
func TestWalkFindsUndecodedFields(t *testing.T) {
	type item struct {
		D string `json:"d"`
	}
	type inner struct {
		X string `json:"x"`
	}
	type inl struct {
		I string `json:"i"`
	}
	type obj struct {
		inl  `json:",inline"`
		A    string           `json:"a"`
		B    *inner           `json:"b,omitempty"`
		List []item           `json:"list"`
		M    map[string]inner `json:"m"`
		Raw  json.RawMessage  `json:"raw"`
	}
	obj2 := func(props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props}
	}
	str := map[string]any{"type": "string"}
	schema := obj2(map[string]any{
		"a": str, "i": str, "gone": str, "skip": obj2(map[string]any{"z": str}),
		"b":    obj2(map[string]any{"x": str, "y": str}),
		"list": map[string]any{"type": "array", "items": obj2(map[string]any{"d": str, "e": str})},
		"m":    map[string]any{"type": "object", "additionalProperties": obj2(map[string]any{"x": str, "w": str})},
		"raw":  obj2(map[string]any{"anything": str}),
	})
	w := &walk{ignored: map[string]string{"skip": "test"}, used: map[string]bool{}}
	w.node("", schema, reflect.TypeFor[obj]())
	want := []string{"b.y", "gone", "list[].e", "m{}.w"}
	if !slices.Equal(w.missing, want) || !w.used["skip"] {
		t.Fatalf("missing %v (want %v), used %v", w.missing, want, w.used)
	}
}
