//go:build integration

package integration

import (
	"testing"
	"time"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// The kube-apiserver restarts under a running kongsync: Kong keeps the last good config
// meanwhile, the watches resume, and a change made after the restart reaches Kong. The file name
// makes this test run last: it disturbs the control plane every test shares.
func TestAPIServerRestart(t *testing.T) {
	ns := newNamespace(t)
	kong := newDouble(t)
	startKongsync(t, "a", ns, []*kongdouble.Server{kong}, nil)
	app{ns: ns, name: "before", host: "before.example.com"}.create(t)
	waitDouble(t, kong, "config before the restart", func() bool { return hasHost(kong, "before.example.com") })
	hash := kong.Hash()
	took, err := plane.RestartAPIServer(60 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver restarted and ready in %s", took.Round(time.Millisecond))
	if kong.Hash() != hash {
		t.Errorf("Kong's config changed across the apiserver restart: %s -> %s", hash, kong.Hash())
	}
	t0 := time.Now()
	app{ns: ns, name: "after", host: "after.example.com"}.create(t)
	waitDouble(t, kong, "a change made after the restart", func() bool {
		return hasHost(kong, "after.example.com") && hasHost(kong, "before.example.com")
	})
	t.Logf("change after the restart reached Kong in %s", time.Since(t0).Round(time.Millisecond))
}
