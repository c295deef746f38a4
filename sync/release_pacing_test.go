package sync

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/kongsync/kongsync/internal/kongdouble"
)

// A rejected Service in a namespace that changes faster than Kong answers (EndpointSlices of a
// rollout, a tenant's churn) must not stall everyone: every change there may cure it, but its
// retries are held (release.go), so the configurations between them go out and another
// namespace's change reaches Kong during the churn. Without the holds every build includes the
// Service again and every POST is refused (the test fails with holds of 1 ns).
func TestChurnBesideRejectedObjectDoesNotStall(t *testing.T) {
	testChurnBesideRejected(t, nil)
}

func testChurnBesideRejected(t *testing.T, cfg func(*Config)) {
	e := newEnv(t, envOpts{cfg: cfg})
	e.upsert("bad", map[string]string{annPort: "70000"})
	e.wait("the rejection", wait, func() bool { return len(e.loop.Excluded()) == 1 })
	e.converged(wait)
	e.kongs[0].AddFault(kongdouble.Fault{Delay: 5 * time.Millisecond}) // every POST, refused or not
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { // churn beside the rejected object until the victim's change is in Kong
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				e.upsert("churn", map[string]string{"n": strconv.Itoa(i)})
			}
		}
	}()
	before := e.loop.Stats()
	e.upsertIn("victim", "app", nil)
	e.wait("the victim's change in Kong during the churn", wait, func() bool {
		return slices.Contains(serviceNames(e.kongs[0]), "victim.app")
	})
	cancel()
	<-done
	after := e.loop.Stats()
	t.Logf("during the churn: %d POSTs, %d refused", after.Pushes-before.Pushes, after.Rejected-before.Rejected)
}
