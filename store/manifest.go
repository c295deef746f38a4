package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	incubatorv1alpha1 "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
	"github.com/kongsync/kongsync/internal/boundedyaml"
	"github.com/kongsync/kongsync/internal/parallel"
)

// MaxDocumentBytes bounds one YAML/JSON document in a manifest file. Kubernetes itself refuses
// objects over ~1.5 MiB (etcd's request limit), so anything larger is not a real object.
const MaxDocumentBytes = 3 << 20

// maxManifestDepth bounds how deeply a document converted from YAML nests: no deeper than
// encoding/json, the API server's decoder, accepts. Its JSON, aliases expanded, is bounded by
// MaxDocumentBytes, also the API server's 3 MiB request limit (kubectl sends the JSON). A
// document over either is no object an API server could hold, and both are checked before any
// alias is expanded.
const maxManifestDepth = 10000

// maxManifestNodes bounds the YAML nodes of a document the slow path parses (estimated without
// parsing: boundedyaml.EstimateNodes, which over-counts by a small factor). A parse tree costs
// about 200 bytes a node. An object the API server holds (1.5 MiB of JSON, 2 bytes a node at
// the least) has at most ~750,000 nodes, so 2^20 refuses nothing it would hold, and documents
// that large are parsed one at a time (heavyNodes): one tree of at most ~200 MB at once.
const maxManifestNodes = 1 << 20

// heavyNodes is the node count above which a document is parsed alone (decodeBatchParallel).
const heavyNodes = 1 << 15

// yamlNote words why a YAML document could not be converted.
func yamlNote(err error) string {
	var le *boundedyaml.LimitError
	if errors.As(err, &le) {
		return "document " + le.Error() + "; skipped"
	}
	return "invalid YAML: " + err.Error()
}

// Note is something the manifest reader met that the user should hear about: a skipped unknown
// kind (Err false), or a document it could not decode (Err true, the document is skipped).
type Note struct {
	Source string // file name, or "-" for stdin
	Doc    int    // 1-based document number within the file
	Err    bool
	Msg    string
	// Unread is set on a skipped object of a kind of KIC's that kongsync does not read
	// (UnreadKinds): `kongsync dump` says so once per kind.
	Unread string
}

// String renders a note as "file: document N: message".
func (n Note) String() string {
	if n.Doc == 0 {
		return fmt.Sprintf("%s: %s", n.Source, n.Msg)
	}
	return fmt.Sprintf("%s: document %d: %s", n.Source, n.Doc, n.Msg)
}

// factories maps apiVersion + kind to a constructor of the typed object. Only versions whose
// schema the translator reads are accepted; others (extensions/v1beta1 Ingress) are skipped with
// a note, since decoding them into v1 types would silently drop or misread fields.
var factories = withGatewayKinds(map[string]func() Object{
	"networking.k8s.io/v1/Ingress":                  func() Object { return &networkingv1.Ingress{} },
	"networking.k8s.io/v1/IngressClass":             func() Object { return &networkingv1.IngressClass{} },
	"v1/Service":                                    func() Object { return &corev1.Service{} },
	"discovery.k8s.io/v1/EndpointSlice":             func() Object { return &discoveryv1.EndpointSlice{} },
	"v1/Secret":                                     func() Object { return &corev1.Secret{} },
	"v1/ConfigMap":                                  func() Object { return &corev1.ConfigMap{} },
	"v1/Namespace":                                  func() Object { return &corev1.Namespace{} },
	"configuration.konghq.com/v1/KongConsumer":      func() Object { return &configurationv1.KongConsumer{} },
	"configuration.konghq.com/v1/KongPlugin":        func() Object { return &configurationv1.KongPlugin{} },
	"configuration.konghq.com/v1/KongClusterPlugin": func() Object { return &configurationv1.KongClusterPlugin{} },
	"configuration.konghq.com/v1beta1/KongUpstreamPolicy": func() Object {
		return &configurationv1beta1.KongUpstreamPolicy{}
	},
	"configuration.konghq.com/v1beta1/TCPIngress": func() Object { return &configurationv1beta1.TCPIngress{} },
	"configuration.konghq.com/v1beta1/UDPIngress": func() Object { return &configurationv1beta1.UDPIngress{} },
	"configuration.konghq.com/v1beta1/KongConsumerGroup": func() Object {
		return &configurationv1beta1.KongConsumerGroup{}
	},
	"configuration.konghq.com/v1/KongIngress": func() Object { return &configurationv1.KongIngress{} },
	"configuration.konghq.com/v1alpha1/IngressClassParameters": func() Object {
		return &configurationv1alpha1.IngressClassParameters{}
	},
	"configuration.konghq.com/v1alpha1/KongVault":   func() Object { return &configurationv1alpha1.KongVault{} },
	"configuration.konghq.com/v1alpha1/KongLicense": func() Object { return &configurationv1alpha1.KongLicense{} },
	"configuration.konghq.com/v1alpha1/KongCustomEntity": func() Object {
		return &configurationv1alpha1.KongCustomEntity{}
	},
	"incubator.ingress-controller.konghq.com/v1alpha1/KongServiceFacade": func() Object {
		return &incubatorv1alpha1.KongServiceFacade{}
	},
})

// gatewayFactories are the Gateway API kinds at every version a cluster serves them (standard
// and experimental channels); all decode into the v1 types, whose schema is the same for what
// the translator reads.
var gatewayFactories = map[string][]string{
	"GatewayClass":   {"v1", "v1beta1"},
	"Gateway":        {"v1", "v1beta1"},
	"HTTPRoute":      {"v1", "v1beta1"},
	"GRPCRoute":      {"v1", "v1alpha2"},
	"TCPRoute":       {"v1", "v1alpha2"},
	"UDPRoute":       {"v1", "v1alpha2"},
	"TLSRoute":       {"v1", "v1alpha2", "v1alpha3"},
	"ReferenceGrant": {"v1", "v1beta1", "v1alpha2"},
}

func withGatewayKinds(factories map[string]func() Object) map[string]func() Object {
	mk := map[string]func() Object{
		"GatewayClass":   func() Object { return &gatewayv1.GatewayClass{} },
		"Gateway":        func() Object { return &gatewayv1.Gateway{} },
		"HTTPRoute":      func() Object { return &gatewayv1.HTTPRoute{} },
		"GRPCRoute":      func() Object { return &gatewayv1.GRPCRoute{} },
		"TCPRoute":       func() Object { return &gatewayv1.TCPRoute{} },
		"UDPRoute":       func() Object { return &gatewayv1.UDPRoute{} },
		"TLSRoute":       func() Object { return &gatewayv1.TLSRoute{} },
		"ReferenceGrant": func() Object { return &gatewayv1.ReferenceGrant{} },
	}
	for kind, versions := range gatewayFactories {
		for _, v := range versions {
			factories[GatewayGroup+"/"+v+"/"+kind] = mk[kind]
		}
	}
	return factories
}

// knownKinds are kinds the reader recognises even at an unsupported apiVersion, to say so.
var knownKinds = map[string]bool{"Ingress": true, "IngressClass": true, "Service": true, "EndpointSlice": true, "Secret": true,
	"KongConsumer": true, "KongPlugin": true, "KongClusterPlugin": true, "KongUpstreamPolicy": true,
	"TCPIngress": true, "UDPIngress": true,
	"GatewayClass": true, "Gateway": true, "HTTPRoute": true, "GRPCRoute": true, "TCPRoute": true, "UDPRoute": true,
	"TLSRoute": true, "ReferenceGrant": true, "Namespace": true,
	"KongConsumerGroup":      true,
	"KongIngress":            true,
	"IngressClassParameters": true,
	"KongVault":              true,
	"KongLicense":            true,
	"KongServiceFacade":      true,
	"ConfigMap":              true,
	"KongCustomEntity":       true,
}

// clusterScoped kinds keep an empty namespace.
var clusterScoped = map[string]bool{"IngressClass": true, "KongClusterPlugin": true, "GatewayClass": true, "Namespace": true,
	"KongVault": true, "KongLicense": true}

// DecodeManifests reads every object in one multi-document YAML or JSON stream, split as
// kubectl splits it (see splitter), within MaxDocumentBytes a document and MaxInputBytes in all.
// Documents it cannot use become notes and are skipped, and so does the rest of a stream once
// MaxInputBytes is read (an error note); the error is only for a stream it cannot read at all. Namespaced objects without a namespace land in
// "default", as kubectl would put them.
//
// Documents are split sequentially and decoded in parallel, a batch at a time, on all CPUs;
// objects and notes come out in document order regardless.
func DecodeManifests(source string, r io.Reader) ([]Object, []Note, error) {
	objs, _, notes, err := decodeManifests(source, r, false)
	return objs, notes, err
}

// decodeManifests is DecodeManifests; with checked, the refusals of each object the API server
// would refuse are returned too (check), in document order.
func decodeManifests(source string, r io.Reader, checked bool) ([]Object, []Refusal, []Note, error) {
	return newManifestReader(defaultReadLimits(), checked).decode(source, r)
}

// manifestReader reads the streams of one read: they share its input budget.
type manifestReader struct {
	lim    readLimits
	budget budget
	cache  *metaCache  // nil: the API server's checks are off
	heavy  *sync.Mutex // held while a document of many nodes is parsed (heavyNodes)
}

func newManifestReader(lim readLimits, checked bool) *manifestReader {
	m := &manifestReader{lim: lim, budget: budget{left: lim.total, limit: lim.total}, heavy: &sync.Mutex{}}
	if checked {
		m.cache = &metaCache{}
	}
	return m
}

func (m *manifestReader) decode(source string, r io.Reader) ([]Object, []Refusal, []Note, error) {
	split := newSplitter(r, m.lim, &m.budget)
	var objs []Object
	var refused []Refusal
	var notes []Note
	batch := make([]rawDoc, 0, decodeBatch)
	first := 1 // document number of batch[0]
	flush := func() {
		for i, d := range decodeBatchParallel(batch, m.cache, m.heavy) {
			for j := range d.notes {
				d.notes[j].Source, d.notes[j].Doc = source, first+i
			}
			objs = append(objs, d.objs...)
			refused = append(refused, d.refused...)
			notes = append(notes, d.notes...)
		}
		first += len(batch)
		batch = batch[:0]
	}
	for {
		raw, err := split.next()
		if errors.Is(err, io.EOF) {
			flush()
			return objs, refused, notes, nil
		}
		if errors.Is(err, errInputTooLarge) {
			// The bound is a note like any other exceeded bound: what was read still translates.
			doc := first + len(batch)
			flush()
			return objs, refused, append(notes, Note{Source: source, Doc: doc, Err: true, Msg: err.Error()}), nil
		}
		if err != nil {
			doc := first + len(batch)
			flush()
			return objs, refused, notes, fmt.Errorf("%s: document %d: %w", source, doc, err)
		}
		if batch = append(batch, raw); len(batch) == cap(batch) {
			flush()
		}
	}
}

// decodeBatch is how many documents are decoded in parallel at once: enough to keep every CPU
// busy, few enough that their raw bytes are a small part of memory.
const decodeBatch = 512

type decoded struct {
	objs    []Object
	refused []Refusal
	notes   []Note
}

// decodeBatchParallel decodes docs on GOMAXPROCS goroutines, and checks them when given a cache;
// result i belongs to docs[i]. Documents of many nodes are parsed one at a time (heavy), so
// that the memory of their parse trees does not grow with the number of CPUs.
func decodeBatchParallel(docs []rawDoc, cache *metaCache, heavy *sync.Mutex) []decoded {
	out := make([]decoded, len(docs))
	parallel.Each(len(docs), runtime.GOMAXPROCS(0), func(i int) {
		defer func() { // a defect in a decoder fails its document, not the process
			if v := recover(); v != nil {
				out[i] = decoded{notes: []Note{{Err: true, Msg: fmt.Sprintf("internal error decoding this document (skipped): %v", v)}}}
			}
		}()
		if docs[i].skip != "" {
			out[i].notes = []Note{{Err: true, Msg: docs[i].skip}}
			return
		}
		out[i].objs, out[i].notes = decodeDocument(docs[i].data, heavy)
		if cache != nil {
			out[i].checkObjects(cache)
		}
		for _, o := range out[i].objs {
			storeStringData(o)
		}
	})
	return out
}

// checkObjects records the refusals of the objects the API server would refuse, and adds a note
// for each part of an object that translates to nothing. Every object stays: a refused one is
// still translated as kongsync would translate it had it reached the store, so that the config
// does not depend on these checks (KIC's fixtures hold such objects) and `dump` refuses the
// manifests through its problems and exit status.
func (d *decoded) checkObjects(cache *metaCache) {
	for _, o := range d.objs {
		refusals, notes := check(o, cache)
		d.refused = append(d.refused, refusals...)
		if len(refusals) == 0 && len(notes) > 0 {
			ref, _ := RefOf(o)
			for _, n := range notes {
				d.notes = append(d.notes, Note{Msg: ref.String() + ": " + n})
			}
		}
	}
}

// decodeDocument turns one YAML or JSON document into objects (several for a List), holding
// heavy while it parses a document of more than heavyNodes nodes the slow way.
func decodeDocument(raw []byte, heavy *sync.Mutex) ([]Object, []Note) {
	if len(bytes.TrimSpace(raw)) == 0 || isOnlyComments(raw) {
		return nil, nil
	}
	if !utf8.Valid(raw) {
		return nil, []Note{{Err: true, Msg: "document is not valid UTF-8; skipped"}}
	}
	var hint typeHint
	js, ok := plainJSON(raw)
	if !ok {
		js, hint, ok = fastYAMLToJSON(raw)
	}
	if !ok {
		var err error
		if boundedyaml.EstimateNodes(raw) > heavyNodes {
			heavy.Lock()
			defer heavy.Unlock()
		}
		lim := boundedyaml.Limits{MaxBytes: MaxDocumentBytes, MaxDepth: maxManifestDepth, MaxNodes: maxManifestNodes}
		if js, err = boundedyaml.ToJSON(raw, lim); err != nil {
			return nil, []Note{{Err: true, Msg: yamlNote(err)}}
		}
	}
	if obj, ok := decodeHinted(js, hint); ok {
		return []Object{obj}, nil
	}
	return decodeJSON(js, "")
}

// decodeHinted decodes a document whose apiVersion and kind are already known straight into
// its type. Anything short of a clean, named object returns false, and decodeJSON then redoes
// the document the general way, which also words the notes.
func decodeHinted(js []byte, hint typeHint) (Object, bool) {
	if hint.apiVersion == "" || strings.HasSuffix(hint.kind, "List") {
		return nil, false
	}
	mk, ok := factories[hint.apiVersion+"/"+hint.kind]
	if !ok {
		return nil, false
	}
	obj := mk()
	if err := json.Unmarshal(js, obj); err != nil || obj.GetName() == "" || unreadConfigMap(obj) {
		return nil, false
	}
	defaultNamespace(obj, hint.kind)
	return obj, true
}

// plainJSON returns a document that is already JSON as is, saving the YAML conversion. Numbers
// with a fraction or exponent are left to the YAML path, which turns 1.0 into 1 the way
// kubectl does.
func plainJSON(raw []byte) ([]byte, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return nil, false
	}
	inString := false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && (c == '.' || (c == 'e' || c == 'E') && t[i-1] >= '0' && t[i-1] <= '9'):
			return nil, false
		}
	}
	return t, true
}

func isOnlyComments(raw []byte) bool {
	for _, line := range strings.Split(string(raw), "\n") {
		t := strings.TrimSpace(line)
		if t != "" && !strings.HasPrefix(t, "#") && t != "---" {
			return false
		}
	}
	return true
}

type typeMeta struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// decodeJSON decodes one object, or the items of a List; where names the item for notes.
func decodeJSON(js []byte, where string) ([]Object, []Note) {
	if string(js) == "null" {
		return nil, nil
	}
	var tm typeMeta
	if err := json.Unmarshal(js, &tm); err != nil {
		return nil, []Note{{Err: true, Msg: where + "not a Kubernetes object: " + notObject(js, err)}}
	}
	if tm.Kind == "List" || strings.HasSuffix(tm.Kind, "List") && tm.Items != nil {
		var objs []Object
		var notes []Note
		for i, item := range tm.Items {
			o, n := decodeJSON(item, fmt.Sprintf("%sitems[%d]: ", where, i))
			objs, notes = append(objs, o...), append(notes, n...)
		}
		return objs, notes
	}
	id := describe(tm)
	if tm.Kind == "" || tm.APIVersion == "" {
		return nil, []Note{{Err: true, Msg: where + id + "missing apiVersion or kind; skipped"}}
	}
	mk, ok := factories[tm.APIVersion+"/"+tm.Kind]
	if !ok {
		if knownKinds[tm.Kind] {
			return nil, []Note{{Err: true, Msg: where + id + "unsupported apiVersion " + tm.APIVersion + "; skipped"}}
		}
		if u, ok := unreadKind(tm.APIVersion, tm.Kind); ok {
			return nil, []Note{{Msg: where + id + "kind not translated by kongsync; skipped", Unread: u.Kind}}
		}
		return nil, []Note{{Msg: where + id + "kind not translated by kongsync; skipped"}}
	}
	obj := mk()
	if err := json.Unmarshal(js, obj); err != nil {
		return nil, []Note{{Err: true, Msg: where + id + "cannot decode: " + err.Error()}}
	}
	if obj.GetName() == "" {
		return nil, []Note{{Err: true, Msg: where + id + "metadata.name is empty; skipped"}}
	}
	if unreadConfigMap(obj) {
		return nil, []Note{{Msg: where + id + "kind not translated by kongsync unless labelled " + CACertLabel + `: "true"; skipped`}}
	}
	defaultNamespace(obj, tm.Kind)
	return []Object{obj}, nil
}

// CACertLabel marks a Secret or ConfigMap as a CA certificate for Kong, as KIC reads it.
const CACertLabel = "konghq.com/ca-cert"

// unreadConfigMap reports a ConfigMap without the CA certificate label: kongsync reads only
// labelled ones, as its informer lists only those, so the manifests and the cluster agree.
func unreadConfigMap(obj Object) bool {
	cm, ok := obj.(*corev1.ConfigMap)
	return ok && cm.Labels[CACertLabel] != "true"
}

// defaultNamespace puts a namespaced object without a namespace in "default", as kubectl would,
// and clears a cluster-scoped object's namespace, as the API server does on create (it is not
// refused: rest.BeforeCreate drops it).
func defaultNamespace(obj Object, kind string) {
	switch {
	case clusterScoped[kind]:
		obj.SetNamespace("")
	case obj.GetNamespace() == "":
		obj.SetNamespace("default")
	}
}

func describe(tm typeMeta) string {
	if tm.Kind == "" {
		return ""
	}
	if tm.Metadata.Namespace != "" {
		return fmt.Sprintf("%s %s/%s: ", tm.Kind, tm.Metadata.Namespace, tm.Metadata.Name)
	}
	return fmt.Sprintf("%s %s: ", tm.Kind, tm.Metadata.Name)
}

// notObject words why a document that parsed is not an object, without Go type names.
func notObject(js []byte, err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error() + "; skipped"
	}
	switch t := bytes.TrimSpace(js); {
	case len(t) > 0 && t[0] == '[':
		return "the document is a list, not a mapping with apiVersion, kind and metadata; skipped"
	case len(t) > 0 && t[0] == '{':
		return "apiVersion, kind or metadata has the wrong type; skipped"
	}
	return "the document is a single value, not a mapping with apiVersion, kind and metadata; skipped"
}
