package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/kongsync/kongsync/metrics"
)

// leadStatus runs the status writers (Ingress, Gateway API) while this replica holds the Lease.
// Only status writing is leader-elected: every replica pushes to its own Kong regardless.
func leadStatus(ctx context.Context, cfg Config, client kubernetes.Interface, log logr.Logger, writers ...func(context.Context)) error {
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
				log.Info("leading: writing Ingress and Gateway API status", "identity", id)
				if cfg.Hooks.Leading != nil {
					cfg.Hooks.Leading(true)
				}
				var wg sync.WaitGroup
				for _, run := range writers {
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
	// Losing the Lease only stops status writing; campaign again until shutdown.
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
	mh, hh := metrics.MetricsHandler(prom.Registry), metrics.HealthHandler(ready)
	switch {
	case !cfg.Profiling:
	case mln != nil:
		mh = metrics.WithProfiling(mh)
	case hln != nil:
		hh = metrics.WithProfiling(hh)
	default:
		return errors.New("--profiling needs the metrics or the health server (both are disabled)")
	}
	if mln != nil {
		g.go_(func(ctx context.Context) error {
			return metrics.Serve(ctx, log.WithName("metrics"), mln, mh)
		})
	}
	if hln != nil {
		g.go_(func(ctx context.Context) error {
			return metrics.Serve(ctx, log.WithName("health"), hln, hh)
		})
	}
	return nil
}
