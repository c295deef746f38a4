package translator

import (
	"testing"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/store"
)

// Vault ids are go-kong's FillID (what KIC v3.5.13 runs with FillIDs on): the UUIDv5 of the
// prefix in the vaults namespace, in the default workspace.
func TestVaultIDsAreGoKongs(t *testing.T) {
	ids := newIDSpaces()
	for _, prefix := range []string{"aws-prod", "my-env", "z9", "b-empty", "shared", "a-very-long-prefix-0123456789"} {
		v := kong.Vault{Prefix: kong.String(prefix)}
		if err := v.FillID(""); err != nil {
			t.Fatal(err)
		}
		if got := ids.vaults.id(prefix); got != *v.ID {
			t.Errorf("prefix %s: id %s, go-kong's %s", prefix, got, *v.ID)
		}
	}
}

// Kong's pattern for a prefix, ^[a-z][a-z%d-]-[a-z%d]+$ in Lua: a lowercase letter, then
// lowercase letters, digits or '-', ending with a letter or digit (two characters at least).
func TestVaultPrefixValid(t *testing.T) {
	for p, want := range map[string]bool{
		"ab": true, "a1": true, "a-b": true, "aws-prod-2": true, "a--b": true,
		"": false, "a": false, "1a": false, "-a": false, "a-": false, "Ab": false, "aB": false,
		"a_b": false, "a.b": false, "a b": false, "é1": false,
	} {
		if got := vaultPrefixValid(p); got != want {
			t.Errorf("vaultPrefixValid(%q) = %v, want %v", p, got, want)
		}
	}
}

// A config is absent, null or an object; numbers keep their text.
func TestVaultConfig(t *testing.T) {
	for raw, want := range map[string]string{
		"": "<nil>", "null": "<nil>", " {} ": "<nil>", `{"a":1.50}`: "map[a:1.50]",
		"[]": "bad", `"s"`: "bad", "1": "bad", `{"a":1} {}`: "bad", "{": "bad",
	} {
		c, ok := vaultConfig([]byte(raw))
		got := "bad"
		if ok {
			got = "<nil>"
			if c != nil {
				got = fmtConfig(c)
			}
		}
		if got != want {
			t.Errorf("vaultConfig(%q) = %s, want %s", raw, got, want)
		}
	}
}

func fmtConfig(c kong.Configuration) string {
	s := "map["
	for k, v := range c { // one key in every case above
		s += k + ":" + v.(interface{ String() string }).String()
	}
	return s + "]"
}

// A vault entity's tags name its KongVault (no namespace: cluster-scoped), so that the sync
// loop and the Programmed writer map Kong's verdicts on it back to the object.
func TestVaultTagsNameTheObject(t *testing.T) {
	objs := loadObjects(t, "../testdata/golden/vault-basic")
	res := translateObjects(t, objs)
	if len(res.Document.Vaults) == 0 {
		t.Fatal("no vaults")
	}
	for _, v := range res.Document.Vaults {
		tags := make([]string, len(v.Tags))
		for i, p := range v.Tags {
			tags[i] = *p
		}
		ref, ok := RefFromTags(tags)
		if !ok || ref.Kind != store.KindKongVault || ref.Namespace != "" || ref.Name == "" {
			t.Errorf("vault %s: tags %v give %v, %v", *v.Prefix, tags, ref, ok)
		}
	}
}
