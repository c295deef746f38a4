package sync

import (
	"sort"

	"github.com/blang/semver/v4"

	"github.com/kongsync/kongsync/translator"
)

// The router flavor and Kong version translated for (docs/sync.md, "Router flavor"). Replicas
// can disagree: a rolling change of router_flavor, or a Kong started with another setting. A
// configuration of expressions routes is refused (or misroutes) on a Kong of the traditional
// flavors, and the other way round, so the loop translates for the flavor of the most replicas
// and leaves the others out. The choice is chooseRouter, a pure function of what each worker
// last read from GET /: the workers do the I/O, the loop applies the decision.

// rootView is what one worker knows of its replica's GET /.
type rootView struct {
	Replica string
	// Tried: GET / was read at least once, whatever the answer (a Kong that never answers
	// must not hold the choice back).
	Tried bool
	// Known: a usable version and flavor were read (the last ones, kept across failures).
	Known   bool
	Version semver.Version
	Flavor  translator.RouterFlavor
	// Enterprise: the version reported names Kong Enterprise.
	Enterprise bool
	// Listeners are the ports it listens on, sorted.
	Listeners []KongListener
}

// routerChoice is what the loop translates for, and which replicas it leaves out.
type routerChoice struct {
	// Decided is false while some replica has not answered GET / yet, or none answered
	// usably: the previous choice (or, at startup, none: nothing is posted) stands.
	Decided bool
	Flavor  translator.RouterFlavor
	// Version is the lowest version of the replicas of the chosen flavor.
	Version semver.Version
	// Enterprise: every replica of the chosen flavor is Kong Enterprise, so licenses load on all.
	Enterprise bool
	// Mismatched are the replicas of the other kind of routes, sorted: not posted to.
	Mismatched []string
	// Listeners are the ports every replica of the chosen flavor listens on, sorted.
	Listeners []KongListener
}

// sameRoutes reports whether a configuration translated for flavor a loads on a Kong of flavor
// b: traditional and traditional_compatible take the same traditional routes (KIC translates
// them alike), expressions takes expressions.
func sameRoutes(a, b translator.RouterFlavor) bool { return a.Expressions() == b.Expressions() }

// chooseRouter decides from every replica's GET / once each has been read (or failed) once:
// the kind of routes (traditional or expressions) most replicas that answered need, a tie going
// to traditional; within it, the flavor most of them report (a tie: traditional before
// traditional_compatible); the lowest version among them; and, as Mismatched, the replicas that
// need the other kind. Replicas that never answered usably count for nothing.
func chooseRouter(views []rootView) routerChoice {
	count := map[translator.RouterFlavor]int{}
	for _, v := range views {
		if !v.Tried {
			return routerChoice{}
		}
		if v.Known {
			count[v.Flavor]++
		}
	}
	if len(count) == 0 {
		return routerChoice{}
	}
	expr := count[translator.RouterExpressions]
	trad := count[translator.RouterTraditional] + count[translator.RouterTraditionalCompatible]
	c := routerChoice{Decided: true, Flavor: translator.RouterExpressions}
	if trad >= expr {
		c.Flavor = translator.RouterTraditional
		if count[translator.RouterTraditionalCompatible] > count[translator.RouterTraditional] {
			c.Flavor = translator.RouterTraditionalCompatible
		}
	}
	var low *semver.Version
	var listens [][]KongListener
	c.Enterprise = true
	for _, v := range views {
		switch {
		case !v.Known:
		case !sameRoutes(v.Flavor, c.Flavor):
			c.Mismatched = append(c.Mismatched, v.Replica)
		default:
			c.Enterprise = c.Enterprise && v.Enterprise
			listens = append(listens, v.Listeners)
			if low == nil || v.Version.LT(*low) {
				low = &v.Version
			}
		}
	}
	c.Listeners = commonListeners(listens)
	c.Version = *low
	sort.Strings(c.Mismatched)
	return c
}
