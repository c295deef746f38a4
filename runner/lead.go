package runner

import (
	"context"
	"fmt"
	"os"
	gosync "sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/kongsync/kongsync/metrics"
)

// leadStatus runs tasks (the status writer; the pushes when they are elected, see
// pushesElected) while this replica holds the Lease, each until the Lease is lost.
func leadStatus(ctx context.Context, cfg Config, client kubernetes.Interface, log logr.Logger, tasks ...func(context.Context)) error {
	id := cfg.Identity
	if id == "" {
		id = hostname()
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, electionNamespace(cfg), cfg.ElectionID,
		client.CoreV1(), client.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: id})
	if err != nil {
		return fmt.Errorf("leader election lock: %w", err)
	}
	dur := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   dur(cfg.LeaseDuration, 15*time.Second),
		RenewDeadline:   dur(cfg.RenewDeadline, 10*time.Second),
		RetryPeriod:     dur(cfg.RetryPeriod, 2*time.Second),
		ReleaseOnCancel: true,
		Name:            cfg.ElectionID,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				log.Info("leading", "identity", id, "pushing", pushesElected(cfg), "writingStatus", cfg.UpdateStatus)
				if cfg.Hooks.Leading != nil {
					cfg.Hooks.Leading(true)
				}
				var wg gosync.WaitGroup
				for _, run := range tasks {
					wg.Go(func() { run(ctx) })
				}
				wg.Wait()
			},
			OnStoppedLeading: func() {
				log.Info("stopped leading", "identity", id)
				if cfg.Hooks.Leading != nil {
					cfg.Hooks.Leading(false)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	// Losing the Lease stops the tasks; campaign again until shutdown.
	for ctx.Err() == nil {
		le.Run(ctx)
	}
	return nil
}

// electionNamespace: --election-namespace, else the pod's namespace, else the publish
// Service's, else "default".
func electionNamespace(cfg Config) string {
	if cfg.ElectionNamespace != "" {
		return cfg.ElectionNamespace
	}
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil && len(b) > 0 {
		return string(b)
	}
	if ns, _, ok := splitNamespacedName(cfg.PublishService); ok {
		return ns
	}
	return "default"
}

// serveDiagnostics binds the metrics and health listeners now (a port clash fails startup) and
// serves them in g.
func serveDiagnostics(g *group, cfg Config, prom *metrics.Prometheus, ready func() bool, log logr.Logger) error {
	mln, err := metrics.Listen(cfg.MetricsBindAddress)
	if err != nil {
		return fmt.Errorf("metrics listener: %w", err)
	}
	hln, err := metrics.Listen(cfg.HealthProbeBindAddress)
	if err != nil {
		if mln != nil {
			mln.Close()
		}
		return fmt.Errorf("health listener: %w", err)
	}
	if mln != nil {
		g.go_(func(ctx context.Context) error {
			return metrics.Serve(ctx, log.WithName("metrics"), mln, metrics.MetricsHandler(prom.Registry))
		})
	}
	if hln != nil {
		g.go_(func(ctx context.Context) error {
			return metrics.Serve(ctx, log.WithName("health"), hln, metrics.HealthHandler(ready))
		})
	}
	return nil
}
