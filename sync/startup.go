package sync

import (
	"context"
	"errors"
	"fmt"
	gosync "sync"
	"time"

	"github.com/go-logr/logr"
)

// WaitReachable is KIC's startup check (--kong-admin-init-retries, --kong-admin-init-retry-delay):
// every admin URL must answer GET /status and GET / (its version and router flavor) within attempts tries, delay
// apart, or the controller does not start; a version KIC v3 does not support fails at once, as
// in KIC — a wrong URL or token then shows as a failing Pod with the reason in its log,
// as with KIC, instead of a controller that runs and never configures anything. attempts 0
// means no limit, as in KIC. The URLs are tried concurrently; later outages are the workers'
// business (they probe and back off without limit).
func WaitReachable(ctx context.Context, urls []string, opts ReplicaOptions, attempts uint, delay time.Duration, log logr.Logger) error {
	errs := make([]error, len(urls))
	var wg gosync.WaitGroup
	for i, u := range urls {
		rep, err := NewReplica(u, opts)
		if err != nil {
			errs[i] = err
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = waitOne(ctx, rep, attempts, delay, log)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func waitOne(ctx context.Context, rep *Replica, attempts uint, delay time.Duration, log logr.Logger) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for n := uint(1); ; n++ {
		_, err := rep.Status(ctx)
		if err == nil {
			_, err = rep.Root(ctx)
		}
		if err == nil {
			return nil
		}
		if errors.As(err, new(UnusableVersionError)) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if attempts > 0 && n >= attempts {
			return fmt.Errorf("Kong admin API %s did not answer GET /status and GET / in %d attempts (--kong-admin-init-retries): %w",
				rep.URL(), attempts, err)
		}
		log.Info("Kong admin API not answering yet; retrying", "replica", rep.URL(),
			"attempt", fmt.Sprintf("%d/%d", n, attempts), "error", err.Error())
		timer.Reset(delay)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
	}
}
