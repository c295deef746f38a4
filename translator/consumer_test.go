package translator

import (
	"fmt"
	"sort"
	"testing"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

func TestConsumerCompare(t *testing.T) {
	c := func(username, customID string) *document.Consumer {
		out := &document.Consumer{}
		if username != "" {
			out.Username = kong.String(username)
		}
		if customID != "" {
			out.CustomID = kong.String(customID)
		}
		return out
	}
	// KIC's deckgen order: username ascending with unset first, then custom_id likewise.
	want := []*document.Consumer{c("", "a"), c("", "b"), c("B", ""), c("a", ""), c("a", "x"), c("b", "a")}
	got := []*document.Consumer{want[4], want[2], want[5], want[0], want[3], want[1]}
	sort.Slice(got, func(i, j int) bool { return consumerCompare(got[i], got[j]) < 0 })
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("position %d: got %v/%v", i, got[i].Username, got[i].CustomID)
		}
	}
}

// consumerObjects builds n served KongConsumers, each with a key-auth and an acl Secret.
func consumerObjects(n int) []store.Object {
	objs := make([]store.Object, 0, 3*n)
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("ns-%d", i%50)
		name := fmt.Sprintf("user-%d", i)
		objs = append(objs,
			&configurationv1.KongConsumer{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
					Annotations: map[string]string{annIngressClass: "kong"}},
				Username:    name,
				Credentials: []string{name + "-key", name + "-acl"},
			},
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-key",
				Labels: map[string]string{labelCredential: credKeyAuth}},
				Data: map[string][]byte{"key": []byte("key-" + name)}},
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-acl",
				Labels: map[string]string{labelCredential: credACL}},
				Data: map[string][]byte{"group": []byte("group-" + ns)}},
		)
	}
	return objs
}

func TestConsumersAtScale(t *testing.T) {
	snap, err := store.NewSnapshot(consumerObjects(2000)...)
	if err != nil {
		t.Fatal(err)
	}
	res := coldResult(snap, DefaultOptions())
	if len(res.Problems) != 0 {
		t.Fatalf("problems: %v", res.Problems[:1])
	}
	cs := res.Document.Consumers
	if len(cs) != 2000 {
		t.Fatalf("%d consumers, want 2000", len(cs))
	}
	for i, c := range cs {
		if len(c.KeyAuths) != 1 || len(c.ACLGroups) != 1 || c.ID == nil {
			t.Fatalf("consumer %s: credentials or id missing", *c.Username)
		}
		if i > 0 && *cs[i-1].Username >= *c.Username {
			t.Fatalf("consumers out of order at %d", i)
		}
	}
}

// BenchmarkTranslateConsumers7k is the size at which KIC's credential handling was measured
// quadratic (KIC#7128): 6,912 consumers, two credentials each.
func BenchmarkTranslateConsumers7k(b *testing.B) { benchTranslate(b, consumerObjects(6912)) }
