package sync

import "time"

// A configuration can change with no event at all: the translator leaves out a CA certificate
// whose NotAfter is before its clock (KIC's expiry check, translator.Options.Now), and reports
// in Result.NextExpiry the earliest NotAfter among those it kept. The loop builds again then,
// as KIC drops an expired certificate at its next sync tick. When is decided by expiryWait,
// from the loop's state and the clock only (Config.Now), so that tests drive it with made-up
// times.

// expirySlack is how long after a NotAfter the loop builds: the translator keeps a certificate
// until its clock is past the NotAfter, so the build must come strictly after it.
const expirySlack = time.Second

// expiryWait is the loop's expiry rebuild: whether one is due, and in how long. next is the
// NextExpiry of the configuration last published (zero: nothing expires); done is the expiry
// whose rebuild already ran, which is never scheduled again (a clock behind the translator's
// would otherwise rebuild in a loop).
func expiryWait(next, done, now time.Time) (time.Duration, bool) {
	if next.IsZero() || !next.After(done) {
		return 0, false
	}
	return max(next.Add(expirySlack).Sub(now), 0), true
}

// expiryTimer is the Run goroutine's timer for expiryWait.
type expiryTimer struct {
	t     *time.Timer
	C     <-chan time.Time // nil while nothing is scheduled
	armed time.Time        // the NextExpiry the timer was decided for
	done  time.Time        // the NextExpiry whose rebuild ran
}

func newExpiryTimer() *expiryTimer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &expiryTimer{t: t}
}

// update decides again when next, the NextExpiry of the latest configuration, differs from the
// one the timer was set for, and reports the instant it scheduled (zero: none).
func (e *expiryTimer) update(next, now time.Time) (time.Time, bool) {
	if next.Equal(e.armed) {
		return time.Time{}, false
	}
	e.armed = next
	e.t.Stop()
	e.C = nil
	d, ok := expiryWait(next, e.done, now)
	if !ok {
		return time.Time{}, true
	}
	e.t.Reset(d)
	e.C = e.t.C
	return now.Add(d), true
}

// fired records that the rebuild for the armed expiry runs now.
func (e *expiryTimer) fired() {
	e.C = nil
	e.done = e.armed
}

func (e *expiryTimer) stop() { e.t.Stop() }
