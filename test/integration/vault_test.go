//go:build integration

package integration

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kongsync/kongsync/internal/kongdouble"
	"github.com/kongsync/kongsync/runner"
)

// With Kong's published CRDs installed, KongVaults (cluster-scoped) of our class reach Kong as
// vaults and get Programmed; of two vaults with one prefix the older is kept and the younger
// is not Programmed; a vault of another class reaches nothing. Deleting the holder hands the
// prefix to the other. The test serves a class of its own: KongVaults are cluster-wide, and
// other tests' kongsyncs serve "kong".
func TestKongVaultFromCRD(t *testing.T) {
	installKongCRDs(t)
	ns := newNamespace(t)
	ctx := ctxT(t)
	class := "vault-" + ns[len(ns)-8:]
	vaults := kongResource("v1alpha1", "kongvaults", "")
	prefix := "p-" + ns[len(ns)-8:]
	vault := func(name, cls, prefix, config string) {
		spec := map[string]any{"backend": "env", "prefix": prefix, "description": "from " + name}
		if config != "" {
			spec["config"] = map[string]any{"prefix": config}
		}
		obj := kongObject("v1alpha1", "KongVault", "", name, cls, map[string]any{"spec": spec})
		if _, err := vaults.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = vaults.Delete(ctxT(t), name, metav1.DeleteOptions{}) })
	}
	older, younger, other := "a-"+ns, "b-"+ns, "c-"+ns
	vault(older, class, prefix, "old_")
	vault(younger, class, prefix, "young_") // as old or younger: its name loses a tie
	vault(other, "another-"+class, "q-"+ns[len(ns)-8:], "")
	kong := newDouble(t)
	startKongsync(t, "vault", ns, []*kongdouble.Server{kong}, func(c *runner.Config) {
		statusConfig(c)
		c.IngressClass = class
	})
	waitDouble(t, kong, "the older vault in Kong", func() bool {
		c := kong.Config()
		return strings.Contains(c, `"prefix":"`+prefix+`"`) && strings.Contains(c, "k8s-name:"+older) &&
			strings.Contains(c, `"config":{"prefix":"old_"}`)
	})
	if c := kong.Config(); strings.Contains(c, "k8s-name:"+younger) || strings.Contains(c, "k8s-name:"+other) {
		t.Errorf("the younger vault or one of another class reached Kong: %s", c)
	}
	waitProgrammed(t, vaults, older, "True/Programmed")
	// The KongVault CRD defaults status.conditions only inside a status, which nothing creates.
	if got := programmedOf(t, vaults, other); got != "" {
		t.Errorf("a vault of another class: Programmed %q, want no condition", got)
	}
	if got := programmedOf(t, vaults, younger); got == "True/Programmed" {
		t.Errorf("the younger vault with a held prefix is Programmed")
	}

	if err := vaults.Delete(ctx, older, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the prefix handed to the other vault", func() bool {
		c := kong.Config()
		return strings.Contains(c, "k8s-name:"+younger) && !strings.Contains(c, "k8s-name:"+older)
	})
	patch := []byte(`{"spec":{"description":"changed"}}`)
	if _, err := vaults.Patch(ctx, younger, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDouble(t, kong, "the description changed", func() bool {
		return strings.Contains(kong.Config(), `"description":"changed"`)
	})
}
