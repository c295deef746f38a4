package sync

import "sync/atomic"

// Stats are cumulative counters over the loop's life, for tests and diagnostics.
type Stats struct {
	// Builds counts configs handed to the replicas; Skipped counts wake-ups with nothing
	// changed in the store.
	Builds, Skipped int64
	// AheadUsed counts builds that handed over the translation made during the window;
	// AheadWasted counts those made in vain because the store moved on (translated again).
	AheadUsed, AheadWasted int64
	// Pushes counts POST /config attempts, all replicas together; the rest break them down.
	Pushes, Accepted, Unchanged, Rejected, TooLarge, Busy, ServerErrors, NetworkErrors, Failed int64
	// Probes and ProbeFailures count GET /status calls.
	Probes, ProbeFailures int64
	// EmptyDetected counts replicas found empty (restarted) after holding a config.
	EmptyDetected int64
	// RejectedObjects counts objects reported as rejected by Kong.
	RejectedObjects int64
	// Deferred counts pushes pacing held back (one per hold, however many configs were
	// coalesced during it), all replicas together.
	Deferred int64
}

type counters struct {
	builds, skipped, aheadUsed, aheadWasted                                        atomic.Int64
	pushes, accepted, unchanged, rejected, tooLarge, busy, server, network, failed atomic.Int64
	probes, probeFailures, emptyDetected, rejectedObjects, deferred                atomic.Int64
}

// Stats returns the current counters.
func (l *Loop) Stats() Stats {
	c := &l.stats
	return Stats{
		Builds: c.builds.Load(), Skipped: c.skipped.Load(),
		AheadUsed: c.aheadUsed.Load(), AheadWasted: c.aheadWasted.Load(),
		Pushes: c.pushes.Load(), Accepted: c.accepted.Load(), Unchanged: c.unchanged.Load(),
		Rejected: c.rejected.Load(), TooLarge: c.tooLarge.Load(), Busy: c.busy.Load(),
		ServerErrors: c.server.Load(), NetworkErrors: c.network.Load(), Failed: c.failed.Load(),
		Probes: c.probes.Load(), ProbeFailures: c.probeFailures.Load(),
		EmptyDetected: c.emptyDetected.Load(), RejectedObjects: c.rejectedObjects.Load(),
		Deferred: c.deferred.Load(),
	}
}

func (l *Loop) countPush(r Result) {
	c := &l.stats
	c.pushes.Add(1)
	m := map[Result]*atomic.Int64{
		ResultAccepted: &c.accepted, ResultUnchanged: &c.unchanged, ResultRejected: &c.rejected,
		ResultTooLarge: &c.tooLarge, ResultBusy: &c.busy, ResultServerError: &c.server,
		ResultNetworkError: &c.network, ResultFailed: &c.failed,
	}
	if p, ok := m[r]; ok {
		p.Add(1)
	}
}
