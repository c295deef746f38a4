package sync

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultLoadBudget is the share of time Kong may spend loading configurations this loop posts
// (Config.LoadBudget): after a load that cost Kong d, the next POST to that replica waits until
// 4·d after it ended. Each POST makes DB-less Kong parse the whole document and rebuild its
// router in every worker while it serves traffic (seconds of CPU at 10k routes), so a stream of
// changes posted as fast as they settle would keep Kong loading all the time.
const DefaultLoadBudget = 0.2

// PaceReason says which rule holds a push back. The values double as the metric label.
type PaceReason string

// Pace reasons.
const (
	PaceNone PaceReason = ""
	// PaceLoadBudget: the last load's cost, spread over the budget, has not elapsed since it ended.
	PaceLoadBudget PaceReason = "load_budget"
	// PaceInterval: Config.MinPushInterval (KIC's --proxy-sync-seconds) has not elapsed since
	// the last push started.
	PaceInterval PaceReason = "proxy_sync_interval"
)

// AdminLatencyHeader is the header Kong's admin API reports its own handling time in, in whole
// milliseconds (kong/constants.lua HEADERS.ADMIN_LATENCY; on unless kong.conf's `headers`
// leaves out latency_tokens).
const AdminLatencyHeader = "X-Kong-Admin-Latency"

// pacing is what one replica's next POST must wait for: the last push Kong took, what it cost
// Kong, and the rules. Its methods take the time as an argument and do no I/O, so the worker's
// decisions are a function of its state and the clock (table-tested with made-up times).
type pacing struct {
	budget   float64       // Config.LoadBudget, in (0, 1]
	interval time.Duration // Config.MinPushInterval; 0 = none

	start, end time.Time     // the last POST Kong took (201 or 304), zero before one
	cost       time.Duration // what that POST cost Kong
}

// took records a POST Kong took, sent at start and answered at end, that cost Kong cost. The
// interval counts from when Kong started on it as far as kongsync can tell, the answer's arrival
// less Kong's own figure: never before Kong's start, so that Kong, not only kongsync, sees POSTs
// at least the interval apart whatever the network's jitter.
func (p *pacing) took(start, end time.Time, cost time.Duration) {
	p.start, p.end, p.cost = end.Add(-cost), end, cost
	if p.start.Before(start) {
		p.start = start
	}
}

// rest is how long Kong must rest after a load of cost d for loading to take at most the
// budget's share of the time from that load's start to the next one's: d·(1−b)/b.
func (p pacing) rest() time.Duration {
	if p.budget >= 1 || p.budget <= 0 {
		return 0
	}
	return time.Duration(float64(p.cost) * (1 - p.budget) / p.budget)
}

// hold returns when the next POST may start and the rule that sets it, or PaceNone (and the
// zero time) when nothing holds a POST back at now.
func (p pacing) hold(now time.Time) (time.Time, PaceReason) {
	if p.end.IsZero() {
		return time.Time{}, PaceNone
	}
	until, why := p.end.Add(p.rest()), PaceLoadBudget
	if p.interval > 0 {
		if t := p.start.Add(p.interval); t.After(until) {
			until, why = t, PaceInterval
		}
	}
	if !until.After(now) {
		return time.Time{}, PaceNone
	}
	return until, why
}

// loadCost is what a POST cost Kong: its own figure (X-Kong-Admin-Latency, milliseconds) when it
// reports one, else the round trip. Kong's figure leaves out the network and kongsync's own
// streaming of the body. It is a Lua number (a difference of ngx.now() readings times 1000, so
// it may carry a fraction); it cannot really exceed the round trip, so a larger one (clock
// granularity) gives way to the round trip.
func loadCost(h http.Header, roundTrip time.Duration) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get(AdminLatencyHeader))
	if v == "" {
		return roundTrip, false
	}
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil || !(ms >= 0) || ms > float64(time.Hour/time.Millisecond) {
		return roundTrip, false
	}
	d := time.Duration(ms * float64(time.Millisecond))
	if d > roundTrip {
		return roundTrip, false
	}
	return d, true
}
