package sync

import (
	"math/rand/v2"
	"time"
)

// backoff is capped exponential backoff with jitter: the n-th consecutive failure waits a random
// time in [d/2, d], d = min(max, base·2^(n-1)). The cap keeps retries frequent enough that a
// replica converges within about max of a server fault ending; jitter keeps replicas (and
// controller instances) from retrying in lockstep.
type backoff struct {
	base, max time.Duration
	rand      func() float64 // [0,1); injectable for tests
}

func newBackoff(base, max time.Duration) backoff {
	return backoff{base: base, max: max, rand: rand.Float64}
}

// delay returns the wait after the given number of consecutive failures (≥ 1).
func (b backoff) delay(failures int) time.Duration {
	d := b.base
	for i := 1; i < failures && d < b.max; i++ {
		d *= 2
	}
	if d > b.max {
		d = b.max
	}
	half := d / 2
	return half + time.Duration(b.rand()*float64(d-half))
}
