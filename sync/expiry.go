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

// deadline is a timer the Run goroutine selects on: C is nil while nothing is scheduled, so
// that a stopped timer's case never fires. The expiry and retry timers are deadlines.
type deadline struct {
	t *time.Timer
	C <-chan time.Time
}

func newDeadline() deadline {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return deadline{t: t}
}

// schedule stops the timer and, when ok, starts it again for d.
func (dl *deadline) schedule(d time.Duration, ok bool) {
	dl.t.Stop()
	dl.C = nil
	if ok {
		dl.t.Reset(d)
		dl.C = dl.t.C
	}
}

func (dl *deadline) stop() { dl.t.Stop() }

// expiryTimer is the Run goroutine's timer for expiryWait.
type expiryTimer struct {
	deadline
	armed time.Time // the NextExpiry the timer was decided for
	done  time.Time // the NextExpiry whose rebuild ran
}

func newExpiryTimer() *expiryTimer { return &expiryTimer{deadline: newDeadline()} }

// update decides again when next, the NextExpiry of the latest configuration, differs from the
// one the timer was set for, and reports the instant it scheduled (zero: none).
func (e *expiryTimer) update(next, now time.Time) (time.Time, bool) {
	if next.Equal(e.armed) {
		return time.Time{}, false
	}
	e.armed = next
	d, ok := expiryWait(next, e.done, now)
	e.schedule(d, ok)
	if !ok {
		return time.Time{}, true
	}
	return now.Add(d), true
}

// fired records that the rebuild for the armed expiry runs now.
func (e *expiryTimer) fired() {
	e.C = nil
	e.done = e.armed
}
