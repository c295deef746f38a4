package translator

import (
	"strings"
	"testing"
	"time"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// TestDuplicateCredentialIDWarm: a younger credential Secret takes an id an older one holds,
// the older one goes and comes back, and the younger one is renamed away; each step's warm
// build equals BuildOnce (the check runs in assemble, on the finished document), one holder
// always keeps the id, and the problem names the younger Secret.
func TestDuplicateCredentialIDWarm(t *testing.T) {
	const id = "2b7c1a64-5d0e-4c1f-9a55-000000000001"
	consumer := func(name string, creds ...string) *configurationv1.KongConsumer {
		return &configurationv1.KongConsumer{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: name,
			Annotations: map[string]string{annIngressClass: "kong"}}, Username: name, Credentials: creds}
	}
	secret := func(name, key, id string, age int) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: name,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, age, 0, 0, 0, 0, time.UTC)),
			Labels:            map[string]string{"konghq.com/credential": "key-auth"}},
			Data: map[string][]byte{"key": []byte(key), "id": []byte(id)}}
	}
	s := newScripted(t, []store.Object{consumer("alice", "a-key"), consumer("mallory", "m-key"),
		secret("a-key", "alice-key-123456", id, 1)})
	holders := func(b Built) int { return strings.Count(string(b.Config.Bytes()), id) }
	if got := holders(s.upsert("younger duplicate", secret("m-key", "mallory-key-123456", id, 2))); got != 1 {
		t.Fatalf("id held %d times", got)
	}
	b := s.check("again")
	if len(b.Problems) != 1 || b.Problems[0].Object.Name != "m-key" || b.Problems[0].Field != "data[id]" {
		t.Fatalf("problems: %v", b.Problems)
	}
	s.delete("older gone", store.Ref{Kind: store.KindSecret, Namespace: "team-b", Name: "a-key"})
	if got := holders(s.upsert("older back", secret("a-key", "alice-key-123456", id, 1))); got != 1 {
		t.Fatalf("id held %d times", got)
	}
	if b := s.upsert("younger renamed away", secret("m-key", "mallory-key-123456",
		"2b7c1a64-5d0e-4c1f-9a55-000000000002", 2)); len(b.Problems) != 0 {
		t.Fatalf("problems left: %v", b.Problems)
	}
}

// TestDuplicateIDsAnyKind runs the id pass over every kind of a document in which two services
// (with routes), two routes, two upstreams and two plugins share ids: the later holder of each
// is left out, the first kept, one problem each, and the input document is not modified.
func TestDuplicateIDsAnyKind(t *testing.T) {
	tags := func(name string) []*string {
		return kong.StringSlice(TagName+name, TagNamespace+"team-b", TagKind+"Service")
	}
	route := func(id, name string) *document.Route {
		return &document.Route{Route: kong.Route{ID: kong.String(id), Name: kong.String(name), Tags: tags(name)}}
	}
	s1 := &document.Service{Service: kong.Service{ID: kong.String("s"), Name: kong.String("a"), Tags: tags("a")},
		Routes: []*document.Route{route("r", "r1"), route("r", "r2")}}
	s2 := &document.Service{Service: kong.Service{ID: kong.String("s"), Name: kong.String("b"), Tags: tags("b")},
		Routes: []*document.Route{route("r3", "r3")}}
	u := func(name string) *document.Upstream {
		return &document.Upstream{Upstream: kong.Upstream{ID: kong.String("u"), Name: kong.String(name), Tags: tags(name)}}
	}
	p := func(name string) *document.Plugin {
		return &document.Plugin{Plugin: kong.Plugin{ID: kong.String("p"), Name: kong.String(name), Tags: tags(name)}}
	}
	doc := &document.Document{Services: []*document.Service{s1, s2}, Upstreams: []*document.Upstream{u("a"), u("b")},
		Plugins: []*document.Plugin{p("a"), p("b")}}
	tr := &translation{}
	tr.snap.snap = store.New().Snapshot()
	tr.dropDuplicates(doc, collectIDs(doc, true))
	if len(doc.Services) != 1 || len(doc.Services[0].Routes) != 1 || len(doc.Upstreams) != 1 || len(doc.Plugins) != 1 {
		t.Fatalf("kept: %d services, %d routes, %d upstreams, %d plugins", len(doc.Services),
			len(doc.Services[0].Routes), len(doc.Upstreams), len(doc.Plugins))
	}
	if *doc.Services[0].Name != "a" || *doc.Upstreams[0].Name != "a" || *doc.Plugins[0].Name != "a" {
		t.Errorf("the first holder must keep its id")
	}
	if len(s1.Routes) != 2 {
		t.Error("the input service was modified")
	}
	if len(tr.problems) != 4 {
		t.Errorf("problems: %v", tr.problems)
	}
}
