package translator

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/kong/go-kong/kong"

	kva "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	"github.com/kongsync/kongsync/store"
)

// The vault family: KongVaults → Kong vaults, as KIC v3.5.13 translates them (FillVaults). A
// vault's entity is its backend (name), prefix, description, config and KIC's tags, with
// go-kong's UUIDv5 id of the prefix. Kong keeps prefixes unique: of the served vaults sharing
// one, the oldest (creationTimestamp, then name) is translated and the others are skipped with
// a problem, as KIC's translator does and its webhook refuses a second one.

// vaultMemos are what the vault family keeps between builds.
type vaultMemos struct {
	vaults *memo[bool, *vaultSet] // vaults, whole: keyed by whether our class is the default
}

// vaultBuild is the vault family's view of a build, which assemble hands it.
type vaultBuild struct {
	*translation
	memos *vaultMemos
}

// vaultSet is the translated vaults, in KIC's deckgen order: by prefix, descending.
type vaultSet struct {
	list []*kong.Vault
}

// vaultAlloc is a vault entity with its id in one allocation.
type vaultAlloc struct {
	kong.Vault
	id string
}

// vaults returns the served KongVaults' entities. It is a piece of the whole KongVault kind:
// reused while no KongVault changed and our class stays (or stays not) the default.
func (t *vaultBuild) vaults() *vaultSet {
	return piece(t.translation, t.memos.vaults, t.defaultClass, t.buildVaults)
}

// servesVault is KIC's filter for KongVaults: the kubernetes.io/ingress.class annotation names
// our class (or is absent, our class being the default), and the controlPlaneRef is unset or
// KIC's (others are the Kong operator's, which KIC's controller does not watch).
func (t *vaultBuild) servesVault(v *kva.KongVault) bool {
	return t.servesClassAnnotation(v) && v.Spec.ControlPlaneRef.ForKIC()
}

// servedVaults lists the served KongVaults in claim order: oldest first, then by name (KIC's
// compareKongVault; names are unique, the kind being cluster-scoped).
func (t *vaultBuild) servedVaults() []*kva.KongVault {
	var served []*kva.KongVault
	for _, o := range t.snap.Objects(store.KindKongVault) {
		if v, ok := o.(*kva.KongVault); ok && t.servesVault(v) {
			served = append(served, v)
		}
	}
	slices.SortStableFunc(served, func(a, b *kva.KongVault) int {
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			if a.CreationTimestamp.Before(&b.CreationTimestamp) {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return served
}

func (t *vaultBuild) buildVaults() *vaultSet {
	served := t.servedVaults()
	set := &vaultSet{}
	owners := make(map[string]string, len(served))
	for _, v := range served {
		ref := store.Ref{Kind: store.KindKongVault, Name: v.Name}
		if !t.checkVaultSpec(v, ref) {
			continue
		}
		if owner, taken := owners[v.Spec.Prefix]; taken {
			t.problem(ref, "spec.prefix", "prefix %s is already used by KongVault %s, which is older (or as "+
				"old, with a lower name; Kong keeps vault prefixes unique); KongVault skipped", quoteShort(v.Spec.Prefix), owner)
			continue
		}
		owners[v.Spec.Prefix] = v.Name
		config, ok := vaultConfig(v.Spec.Config)
		if !ok {
			// KIC claims the prefix before it reads the config, so the vault keeps it.
			t.problem(ref, "spec.config", "config must be a JSON object; KongVault skipped")
			continue
		}
		a := &vaultAlloc{id: t.ids.vaults.id(v.Spec.Prefix)}
		a.ID, a.Name, a.Prefix = &a.id, &v.Spec.Backend, &v.Spec.Prefix
		a.Config, a.Tags = config, objectTags(store.KindKongVault, v)
		if v.Spec.Description != "" {
			a.Description = &v.Spec.Description
		}
		set.list = append(set.list, &a.Vault)
	}
	slices.SortFunc(set.list, func(a, b *kong.Vault) int { return strings.Compare(*b.Prefix, *a.Prefix) })
	return set
}

// checkVaultSpec reports what makes a vault unusable before it claims its prefix: an empty
// backend or prefix (the CRD requires both; KIC would send a vault Kong rejects, with the whole
// configuration), or a prefix Kong's schema refuses. spec.tags (the Kong operator's) is reported
// as unused, as for KongConsumerGroups: KIC ignores it. It returns false when the vault is skipped.
func (t *vaultBuild) checkVaultSpec(v *kva.KongVault, ref store.Ref) bool {
	if len(v.Spec.Tags) > 0 {
		t.problem(ref, "spec.tags", "not used: the vault's extra tags come from the konghq.com/tags "+
			"annotation, as in KIC")
	}
	switch {
	case v.Spec.Backend == "":
		t.problem(ref, "spec.backend", "backend is empty; KongVault skipped")
		return false
	case v.Spec.Prefix == "":
		t.problem(ref, "spec.prefix", "prefix is empty; KongVault skipped")
		return false
	case !vaultPrefixValid(v.Spec.Prefix):
		t.problem(ref, "spec.prefix", "prefix %s is not one Kong accepts (a lowercase letter, then lowercase "+
			"letters, digits or '-', ending with a letter or digit); KongVault skipped", quoteShort(v.Spec.Prefix))
		return false
	case v.Spec.Prefix == "env":
		t.problem(ref, "spec.prefix", "prefix \"env\" is the name of Kong's bundled env vault, which Kong "+
			"refuses as a prefix; KongVault skipped")
		return false
	}
	return true
}

// vaultPrefixValid is Kong's pattern for a vault prefix (the host part of a vault reference):
// ^[a-z][a-z0-9-]*[a-z0-9]$.
func vaultPrefixValid(p string) bool {
	if len(p) < 2 || p[0] < 'a' || p[0] > 'z' || p[len(p)-1] == '-' {
		return false
	}
	for i := 1; i < len(p); i++ {
		c := p[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// vaultConfig reads spec.config as KIC does: absent (or null) is no config, anything else must
// be a JSON object. Numbers keep their exact text, as in plugin configs.
func vaultConfig(raw json.RawMessage) (kong.Configuration, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var config map[string]any
	if err := dec.Decode(&config); err != nil || dec.More() || config == nil {
		return nil, false
	}
	if len(config) == 0 {
		return nil, true // KIC's empty configuration, which its encoding omits
	}
	return config, true
}
