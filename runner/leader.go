package runner

import (
	"context"
	"sync/atomic"

	kongsync "github.com/kongsync/kongsync/sync"
)

// KIC's --force-leader-election values.
const (
	LeaderElectionEnabled  = "enabled"
	LeaderElectionDisabled = "disabled"
)

// pushesElected reports whether only the elected leader pushes. KIC enables leader election
// in DB-less mode when it discovers the Kong replicas (--kong-admin-svc): every replica then
// sees every Kong, and one writer is enough. With --kong-admin-url each controller is a
// sidecar of its own Kong and pushes to it. --force-leader-election decides otherwise.
func pushesElected(cfg Config) bool {
	switch cfg.LeaderElection {
	case LeaderElectionEnabled:
		return true
	case LeaderElectionDisabled:
		return false
	}
	return cfg.KongAdminSvc != ""
}

// leadPushes is the leader's task that lets the loop push while this replica leads; the loop
// translates and probes all along, so a new leader pushes at once.
func leadPushes(loop *kongsync.Loop) func(context.Context) {
	return func(ctx context.Context) {
		loop.Lead(true)
		<-ctx.Done()
		loop.Lead(false)
	}
}

// readiness is /readyz. A replica that pushes is ready once every Kong replica holds one of its
// configurations. A follower (pushes elected, not leading) is ready once its caches synced, as
// KIC reports its non-leaders ready: its readiness must not wait for the leader (a rollout
// whose new translation differs would never see the new Pods ready).
func readiness(cfg Config, loop *kongsync.Loop, synced *atomic.Bool) func() bool {
	if !pushesElected(cfg) {
		return loop.Ready
	}
	return func() bool {
		if loop.Leading() {
			return loop.Ready()
		}
		return synced.Load()
	}
}

// electedTasks are what runs while this replica holds the Lease: the status writers, and the
// pushes when they are elected.
func electedTasks(cfg Config, loop *kongsync.Loop, status ...func(context.Context)) []func(context.Context) {
	tasks := append([]func(context.Context){}, status...)
	if pushesElected(cfg) {
		tasks = append(tasks, leadPushes(loop))
	}
	return tasks
}
