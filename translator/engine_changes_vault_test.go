package translator

import (
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// vaultPrefixes are the prefixes the world's vaults take: a few, so that vaults contend for
// them, and some Kong refuses.
var vaultPrefixes = []string{"aws-prod", "shared", "shared", "my-env", "env", "Bad_Prefix", ""}

// vaultObjects are KongVaults of every kind of case: ours with config, one without class
// annotation, one of another control plane, two contending for one prefix.
func vaultObjects() []store.Object {
	at := func(m int) metav1.Time { return metav1.NewTime(time.Date(2025, 1, 1, 1, m, 0, 0, time.UTC)) }
	kong := func() map[string]string { return map[string]string{annIngressClass: "kong"} }
	vault := func(name, backend, prefix string, m int, ann map[string]string, config string) *kva.KongVault {
		return &kva.KongVault{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann, CreationTimestamp: at(m),
			UID: types.UID("uid-" + name)}, Spec: kva.KongVaultSpec{Backend: backend, Prefix: prefix, Config: json.RawMessage(config)}}
	}
	konnect := vault("konnect", "env", "konnect-owned", 3, kong(), "")
	konnect.Spec.ControlPlaneRef = &kup.ControlPlaneRef{Type: "konnectNamespacedRef",
		KonnectNamespacedRef: &kup.KonnectNamespacedRef{Name: "cp"}}
	return []store.Object{
		vault("aws", "aws", "aws-prod", 1, kong(), `{"region":"eu-west-1","ttl":60}`),
		vault("shared-old", "env", "shared", 2, kong(), `{"prefix":"app_"}`),
		vault("shared-young", "env", "shared", 4, kong(), ""),
		vault("unannotated", "env", "my-env", 5, nil, `{}`),
		konnect,
	}
}

// mutateVault edits what decides whether and how a vault is served: class, prefix (contending
// with others, or refused by Kong), backend, description, config (sometimes not an object),
// controlPlaneRef, spec.tags and konghq.com/tags, creation time (prefix claims).
func (w *world) mutateVault(o *kva.KongVault) string {
	switch w.r.IntN(8) {
	case 0:
		return w.setClassAnnotation(&o.ObjectMeta)
	case 1:
		o.Spec.Prefix = pick(w.r, vaultPrefixes)
		return fmt.Sprintf("prefix %q", o.Spec.Prefix)
	case 2:
		o.Spec.Backend = pick(w.r, []string{"env", "aws", "hcv", ""})
		o.Spec.Description = pick(w.r, []string{"", "d"})
		return fmt.Sprintf("backend %q, description %q", o.Spec.Backend, o.Spec.Description)
	case 3:
		o.Spec.Config = json.RawMessage(pick(w.r, []string{"", "null", "{}", `{"prefix":"x_"}`, `{"a":{"b":[1,2.5]}}`, "[1]", `"s"`}))
		return fmt.Sprintf("config %s", o.Spec.Config)
	case 4:
		if o.Spec.ControlPlaneRef != nil {
			o.Spec.ControlPlaneRef = nil
			return "controlPlaneRef removed"
		}
		o.Spec.ControlPlaneRef = &kup.ControlPlaneRef{Type: pick(w.r, []string{"kic", "konnectNamespacedRef"})}
		return "controlPlaneRef " + o.Spec.ControlPlaneRef.Type
	case 5:
		o.Spec.Tags = pick(w.r, [][]string{nil, {"t1"}})
		setAnn(&o.ObjectMeta, annTags, pick(w.r, []string{"a", "a,b", ""}))
		return fmt.Sprintf("spec.tags %v, tags annotation", o.Spec.Tags)
	}
	return w.retime(&o.ObjectMeta, store.KindKongVault)
}
