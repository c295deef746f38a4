package runner

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"

	"github.com/kongsync/kongsync/store"
)

// Only the leader pushes with discovered replicas, as KIC; --force-leader-election overrides.
func TestPushesElected(t *testing.T) {
	for _, tc := range []struct {
		svc, force string
		want       bool
	}{
		{"", "", false}, {"kong/admin", "", true},
		{"", LeaderElectionEnabled, true}, {"kong/admin", LeaderElectionDisabled, false},
	} {
		if got := pushesElected(Config{KongAdminSvc: tc.svc, LeaderElection: tc.force}); got != tc.want {
			t.Errorf("svc %q force %q: %v, want %v", tc.svc, tc.force, got, tc.want)
		}
		tasks := electedTasks(Config{KongAdminSvc: tc.svc, LeaderElection: tc.force}, nil)
		if (len(tasks) == 1) != tc.want {
			t.Errorf("svc %q force %q: %d elected tasks without status writing", tc.svc, tc.force, len(tasks))
		}
	}
}

// A follower is ready once its caches synced (as KIC's non-leaders); the leader once every
// replica took its config; without election, the loop decides alone.
func TestReadinessFollowsLeadership(t *testing.T) {
	cfg := Defaults()
	cfg.KongAdminSvc = "kong/admin"
	loop, err := newLoop(cfg, store.New(), nil, nil, nil, nil, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	var synced atomic.Bool
	ready := readiness(cfg, loop, &synced)
	if ready() {
		t.Error("ready before the caches synced")
	}
	synced.Store(true)
	if !ready() {
		t.Error("a synced follower is not ready")
	}
	loop.Lead(true)
	if ready() {
		t.Error("a leader that pushed nothing yet is ready")
	}
	// The leader's task ends with the Lease (its context) and stops the pushes.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	leadPushes(loop)(ctx)
	if loop.Leading() || !ready() {
		t.Errorf("after leadership: leading %v ready %v", loop.Leading(), ready())
	}
}
