package informer

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kongsync/kongsync/store"
)

const routeJSON = `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":%q,"namespace":"a","resourceVersion":%q,"managedFields":[{"manager":"kubectl"}]},"spec":{"hostnames":[%s]}}`

// TestRESTCustomResources lists and watches HTTPRoutes from a server that answers as the API
// server does: typed objects come out, trimmed, and one that does not decode comes out as
// undecodable without failing the list or the watch; an error event is a Status.
func TestRESTCustomResources(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: store.GatewayGroup, Version: "v1", Resource: "httproutes"}
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path+"?watch="+r.URL.Query().Get("watch"))
		if r.URL.Query().Get("watch") != "true" {
			fmt.Fprintf(w, `{"kind":"HTTPRouteList","metadata":{"resourceVersion":"10"},"items":[%s,%s]}`,
				fmt.Sprintf(routeJSON, "good", "4", `"a.example"`), fmt.Sprintf(routeJSON, "bad", "5", `1`))
			return
		}
		fmt.Fprintf(w, `{"type":"ADDED","object":%s}`+"\n", fmt.Sprintf(routeJSON, "new", "11", `"b.example"`))
		fmt.Fprintf(w, `{"type":"BOOKMARK","object":{"kind":"HTTPRoute","metadata":{"resourceVersion":"12"}}}`+"\n")
		fmt.Fprintf(w, `{"type":"ERROR","object":{"kind":"Status","status":"Failure","code":410,"reason":"Expired"}}`+"\n")
	}))
	defer srv.Close()
	cr, err := NewRESTCustomResources(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	r := mustResource(t, store.KindHTTPRoute)
	lw := cr.ListerWatcher(gvr, "a", func(b []byte) runtime.Object { return decodeCustom(r, b) }).(cache.ListerWatcherWithContext)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	got, err := lw.ListWithContext(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := got.(*typedList)
	if l.ResourceVersion != "10" || len(l.Items) != 2 {
		t.Fatalf("list = rv %q, %d items", l.ResourceVersion, len(l.Items))
	}
	good, ok := l.Items[0].(*gatewayv1.HTTPRoute)
	if !ok || good.Name != "good" || string(good.Spec.Hostnames[0]) != "a.example" || good.ManagedFields != nil {
		t.Errorf("first item = %T %+v", l.Items[0], l.Items[0])
	}
	if bad, ok := l.Items[1].(*undecodable); !ok || bad.GetName() != "bad" {
		t.Errorf("second item = %T, want undecodable", l.Items[1])
	}

	w, err := lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: "10"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var events []string
	for e := range w.ResultChan() {
		switch o := e.Object.(type) {
		case *gatewayv1.HTTPRoute:
			events = append(events, string(e.Type)+" "+o.Name+"@"+o.ResourceVersion)
		case *metav1.Status:
			events = append(events, string(e.Type)+" "+string(o.Reason))
		default:
			events = append(events, fmt.Sprintf("%s %T", e.Type, o))
		}
		if e.Type == watch.Error {
			break
		}
	}
	if want := "ADDED new@11,BOOKMARK @12,ERROR Expired"; strings.Join(events, ",") != want {
		t.Errorf("events = %v, want %s", events, want)
	}
	if want := "/apis/gateway.networking.k8s.io/v1/namespaces/a/httproutes?watch=true"; paths[len(paths)-1] != want {
		t.Errorf("watch path = %s, want %s", paths[len(paths)-1], want)
	}
}

// TestEventDecoderRefuses: an unknown event type is an error, as is a stream that is not JSON;
// the end of the stream is io.EOF, which ends the watch.
func TestEventDecoderRefuses(t *testing.T) {
	decode := func(b []byte) runtime.Object { return decodeCustom(mustResource(t, store.KindHTTPRoute), b) }
	for in, want := range map[string]string{
		`{"type":"SURPRISE","object":{}}`: "unknown event type",
		`{"type":`:                        "unexpected EOF",
		``:                                io.EOF.Error(),
	} {
		d := newEventDecoder(io.NopCloser(strings.NewReader(in)), decode)
		if _, _, err := d.Decode(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestResourcePath(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "configuration.konghq.com", Version: "v1", Resource: "kongplugins"}
	if got := resourcePath(gvr, ""); got != "/apis/configuration.konghq.com/v1/kongplugins" {
		t.Errorf("all namespaces: %s", got)
	}
	if got := resourcePath(gvr, "b"); got != "/apis/configuration.konghq.com/v1/namespaces/b/kongplugins" {
		t.Errorf("namespace b: %s", got)
	}
}
