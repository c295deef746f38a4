package translator

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// consumerGroupObjects are KongConsumerGroups around the workload's ("group-00000" in bench-0,
// "group-00001" in bench-1): one without class annotation, one with plugins, one of another
// control plane, and one in bench-1 whose name the older bench-0 group already has.
func consumerGroupObjects() []store.Object {
	kong := func() map[string]string { return map[string]string{annIngressClass: "kong"} }
	at := func(m int) metav1.Time {
		return metav1.NewTime(time.Date(2025, 1, 1, 0, m, 0, 0, time.UTC)) // after the workload's
	}
	gold := &kup.KongConsumerGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "bench-0", Name: "gold", Annotations: kong(),
		CreationTimestamp: at(1)}}
	setAnn(&gold.ObjectMeta, annPlugins, "plugin-00000")
	return []store.Object{gold,
		&kup.KongConsumerGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "bench-0", Name: "silver", CreationTimestamp: at(2)}},
		&kup.KongConsumerGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "bench-1", Name: "konnect", Annotations: kong(),
			CreationTimestamp: at(3)}, Spec: kup.KongConsumerGroupSpec{ControlPlaneRef: &kup.ControlPlaneRef{
			Type: "konnectNamespacedRef", KonnectNamespacedRef: &kup.KonnectNamespacedRef{Name: "cp"}}}},
		&kup.KongConsumerGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "bench-1", Name: "group-00000", Annotations: kong(),
			CreationTimestamp: at(4)}},
	}
}

// mutateConsumerGroups sets a KongConsumer's consumerGroups to names of its namespace's groups
// (present or not, sometimes repeated), or clears them.
func (w *world) mutateConsumerGroups(o *configurationv1.KongConsumer) string {
	if len(o.ConsumerGroups) > 0 && w.r.IntN(3) == 0 {
		o.ConsumerGroups = nil
		return "consumerGroups removed"
	}
	names := append(w.names(store.KindKongConsumerGroup, o.Namespace), "gold", "group-00000")
	o.ConsumerGroups = []string{pick(w.r, names)}
	for w.r.IntN(2) == 0 {
		o.ConsumerGroups = append(o.ConsumerGroups, pick(w.r, names))
	}
	return fmt.Sprintf("consumerGroups %v", o.ConsumerGroups)
}

// mutateConsumerGroup edits what decides whether and how a group is served: class, plugins,
// creation time (name claims), controlPlaneRef and the spec fields KIC ignores.
func (w *world) mutateConsumerGroup(o *kup.KongConsumerGroup) string {
	switch w.r.IntN(6) {
	case 0:
		return w.setClassAnnotation(&o.ObjectMeta)
	case 1:
		return w.setPluginsAnnotation(&o.ObjectMeta)
	case 2:
		if o.Spec.ControlPlaneRef != nil {
			o.Spec.ControlPlaneRef = nil
			return "controlPlaneRef removed"
		}
		o.Spec.ControlPlaneRef = &kup.ControlPlaneRef{Type: pick(w.r, []string{"kic", "konnectNamespacedRef"})}
		return "controlPlaneRef " + o.Spec.ControlPlaneRef.Type
	case 3:
		o.Spec.Name = pick(w.r, []string{"", o.Name, "other"})
		o.Spec.Tags = pick(w.r, [][]string{nil, {"t1"}})
		return fmt.Sprintf("spec.name %q, spec.tags %v", o.Spec.Name, o.Spec.Tags)
	case 4:
		setAnn(&o.ObjectMeta, annTags, pick(w.r, []string{"a", "a,b", ""}))
		return "tags annotation"
	}
	return w.retime(&o.ObjectMeta, store.KindKongConsumerGroup)
}
