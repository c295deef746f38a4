package informer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// Custom resources are listed and watched as JSON and each object is decoded once, straight
// into kongsync's typed struct. The dynamic client decoded every object into a map, which was
// then encoded to JSON again and decoded into the struct: three passes and the map's garbage,
// about 40 % of the CPU a start spent on 10,000 HTTPRoutes.

// CustomResources lists and watches one custom resource as kongsync's typed objects: decode
// turns one object's JSON into its typed struct (or an *undecodable). NewRESTCustomResources is
// the API server's.
type CustomResources interface {
	ListerWatcher(gvr schema.GroupVersionResource, namespace string, decode func([]byte) runtime.Object) cache.ListerWatcher
}

// restCustomResources reads custom resources over a REST client that decodes nothing itself.
type restCustomResources struct{ rc rest.Interface }

// NewRESTCustomResources returns the custom resources of the API server cfg names.
func NewRESTCustomResources(cfg *rest.Config) (CustomResources, error) {
	c := rest.CopyConfig(cfg)
	c.ContentType, c.AcceptContentTypes = "application/json", "application/json"
	c.NegotiatedSerializer = scheme.Codecs.WithoutConversion() // only for the API server's errors
	rc, err := rest.UnversionedRESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("custom resources client: %w", err)
	}
	return restCustomResources{rc}, nil
}

// ListerWatcher lists and watches the resource gvr in namespace ("" all).
func (c restCustomResources) ListerWatcher(gvr schema.GroupVersionResource, namespace string, decode func([]byte) runtime.Object) cache.ListerWatcher {
	path := resourcePath(gvr, namespace)
	get := func(opts *metav1.ListOptions) *rest.Request {
		return c.rc.Get().AbsPath(path).SpecificallyVersionedParams(opts, metav1.ParameterCodec, metav1.SchemeGroupVersion)
	}
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			raw, err := get(&opts).Do(ctx).Raw()
			if err != nil {
				return nil, err
			}
			return decodeList(raw, decode)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.Watch = true
			body, err := get(&opts).Stream(ctx)
			if err != nil {
				return nil, err
			}
			return watch.NewStreamWatcher(newEventDecoder(body, decode),
				apierrors.NewClientErrorReporter(http.StatusInternalServerError, http.MethodGet, "ClientWatchDecoding")), nil
		},
	}
}

// resourcePath is the API path of a custom resource, in one namespace or all.
func resourcePath(gvr schema.GroupVersionResource, namespace string) string {
	p := "/apis/" + gvr.Group + "/" + gvr.Version
	if namespace != "" {
		p += "/namespaces/" + namespace
	}
	return p + "/" + gvr.Resource
}

// typedList is a list of decoded custom resources, as the reflector takes it (meta.ExtractList
// reads Items, meta.ListAccessor the ListMeta).
type typedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	Items           []runtime.Object `json:"-"`
}

func (l *typedList) DeepCopyObject() runtime.Object {
	out := &typedList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]runtime.Object, len(l.Items))
	for i, o := range l.Items {
		out.Items[i] = o.DeepCopyObject()
	}
	return out
}

// decodeList decodes a list answer: its metadata, and each item by decode.
func decodeList(raw []byte, decode func([]byte) runtime.Object) (*typedList, error) {
	var l struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        metav1.ListMeta   `json:"metadata"`
		Items           []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("decoding list: %w", err)
	}
	out := &typedList{TypeMeta: l.TypeMeta, ListMeta: l.Metadata, Items: make([]runtime.Object, len(l.Items))}
	for i, item := range l.Items {
		out.Items[i] = decode(item)
	}
	return out, nil
}

// eventDecoder reads a watch's JSON events, decoding each object by decode, and an error
// event's Status, which the reflector acts on (410 Gone: list again).
type eventDecoder struct {
	body   io.ReadCloser
	dec    *json.Decoder
	decode func([]byte) runtime.Object
}

func newEventDecoder(body io.ReadCloser, decode func([]byte) runtime.Object) *eventDecoder {
	return &eventDecoder{body: body, dec: json.NewDecoder(body), decode: decode}
}

func (d *eventDecoder) Decode() (watch.EventType, runtime.Object, error) {
	var ev struct {
		Type   watch.EventType `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := d.dec.Decode(&ev); err != nil {
		return "", nil, err
	}
	switch ev.Type {
	case watch.Error:
		st := &metav1.Status{}
		if err := json.Unmarshal(ev.Object, st); err != nil {
			return "", nil, fmt.Errorf("decoding watch error: %w", err)
		}
		return ev.Type, st, nil
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
		return ev.Type, d.decode(ev.Object), nil
	}
	return "", nil, fmt.Errorf("watch: unknown event type %q", ev.Type)
}

func (d *eventDecoder) Close() { _ = d.body.Close() }

// decodeCustom decodes one object of r from its JSON into r's typed struct, its metadata
// trimmed. An object that does not decode is returned as undecodable (the handler logs it and
// drops the object), so that it fails neither its list nor its watch.
func decodeCustom(r crdResource, raw []byte) runtime.Object {
	out := r.newObj()
	err := json.Unmarshal(raw, out)
	if err == nil {
		trimObjectMeta(out)
		return out
	}
	u := &unstructured.Unstructured{}
	if uerr := u.UnmarshalJSON(raw); uerr != nil {
		u.Object = map[string]any{} // not even JSON: no name to log or forget
	}
	return &undecodable{u, fmt.Errorf("%s %s/%s: %w", r.kind, u.GetNamespace(), u.GetName(), err)}
}
