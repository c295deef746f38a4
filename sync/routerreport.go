package sync

import (
	"fmt"
	"slices"

	"github.com/kongsync/kongsync/translator"
)

// FlavorReporter may also be implemented by a Reporter to hear of a replica left out because
// its router flavor needs the other kind of routes than the one translated for (docs/sync.md,
// "Router flavor"): the controller emits a KongRouterFlavorMismatch Warning Event. Called once
// each time a replica becomes mismatched, not on every decision.
type FlavorReporter interface {
	RouterFlavorMismatch(replica string, flavor, chosen translator.RouterFlavor)
}

// FlavorMetrics may also be implemented by a Metrics value to see each replica's router flavor
// and whether it is left out for it, after every choice of the flavor translated for.
type FlavorMetrics interface {
	ObserveRouterFlavor(replica string, flavor translator.RouterFlavor, mismatched bool)
}

// reportFlavors tells logs, the Reporter and the metrics which replicas the choice c leaves
// out (an error and an Event when one starts being left out) and lets back in.
func (l *Loop) reportFlavors(ws []*worker, c *routerChoice) {
	fm, _ := l.cfg.Metrics.(FlavorMetrics)
	fr, _ := l.cfg.Reporter.(FlavorReporter)
	for _, w := range ws {
		view := w.rootView()
		if !view.Known {
			continue
		}
		out := slices.Contains(c.Mismatched, view.Replica)
		if fm != nil {
			fm.ObserveRouterFlavor(view.Replica, view.Flavor, out)
		}
		was := w.mismatched.Swap(out)
		switch {
		case out && !was:
			err := fmt.Errorf("Kong %s reports router_flavor %s, but most replicas report %s: its routes would be refused or misroute",
				view.Replica, view.Flavor, c.Flavor)
			w.log.Error(err, "router flavor mismatch; nothing is posted to this Kong until its flavor matches",
				"routerFlavor", string(view.Flavor), "translatingFor", string(c.Flavor))
			if fr != nil {
				fr.RouterFlavorMismatch(view.Replica, view.Flavor, c.Flavor)
			}
		case was && !out:
			w.log.Info("router flavor matches again; pushing to this Kong", "routerFlavor", string(view.Flavor),
				"translatingFor", string(c.Flavor))
		}
	}
}
