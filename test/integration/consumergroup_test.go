//go:build integration

package integration

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// With Kong's CRDs installed, a KongConsumerGroup of our class and a KongConsumer joining it
// reach Kong as a consumer group with a membership, and the group gets Programmed; removing the
// consumer's consumerGroups removes the membership, the group and the consumer staying. A group
// of another control plane (spec.controlPlaneRef) gets neither a Kong group nor a condition.
func TestKongConsumerGroupMembershipFromCRD(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	ctx := ctxT(t)
	groups, consumers := kongResource("v1beta1", "kongconsumergroups", ns), kongResource("v1", "kongconsumers", ns)
	konnect := kongObject("v1beta1", "KongConsumerGroup", ns, "konnect", "kong", map[string]any{"spec": map[string]any{
		"controlPlaneRef": map[string]any{"type": "konnectNamespacedRef", "konnectNamespacedRef": map[string]any{"name": "cp"}}}})
	for _, c := range []struct {
		r   dynamic.ResourceInterface
		obj *unstructured.Unstructured
	}{
		{groups, kongObject("v1beta1", "KongConsumerGroup", ns, "gold", "kong", nil)},
		{groups, konnect},
		{consumers, kongObject("v1", "KongConsumer", ns, "alice", "kong",
			map[string]any{"username": "alice-" + ns, "consumerGroups": []any{"gold"}})},
	} {
		if _, err := c.r.Create(ctx, c.obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	kong := newDouble(t)
	startKongsync(t, "consumer-group", ns, []*kongdouble.Server{kong}, statusConfig)
	member := `"consumer_group":"gold","consumer":"alice-` + ns + `"`
	hasGroupAndConsumer := func(c string) bool {
		return strings.Contains(c, `"name":"gold"`) && strings.Contains(c, `"username":"alice-`+ns+`"`)
	}
	waitDouble(t, kong, "the consumer group and the membership in Kong", func() bool {
		c := kong.Config()
		return hasGroupAndConsumer(c) && strings.Contains(c, member)
	})
	if c := kong.Config(); strings.Contains(c, `"name":"konnect"`) {
		t.Errorf("a group of another control plane reached Kong: %s", c)
	}
	waitProgrammed(t, groups, "gold", "True/Programmed")
	// Written in the pass that wrote gold's, had it been ours.
	if got := programmedOf(t, groups, "konnect"); got != "Unknown/Pending" {
		t.Errorf("a group of another control plane: Programmed %s, want the CRD's default left alone", got)
	}

	patch := []byte(`{"consumerGroups": null}`)
	if _, err := consumers.Patch(ctx, "alice", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the membership gone, the group and the consumer kept", func() bool {
		c := kong.Config()
		return hasGroupAndConsumer(c) && !strings.Contains(c, member)
	})
}
