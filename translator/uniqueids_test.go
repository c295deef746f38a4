package translator

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
