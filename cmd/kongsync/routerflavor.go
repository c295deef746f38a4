package main

import (
	"github.com/kongsync/kongsync/translator"
)

// routerFlavorUsage is --router-flavor's help, for dump.
const routerFlavorUsage = "Kong's router_flavor to translate for, as Kong reports it in GET /: traditional, " +
	"traditional_compatible (Kong's default) or expressions (routes as expressions with a priority, as KIC writes them)"

// routerFlavorFlag is --router-flavor: it parses as translator.ParseRouterFlavor does, so an
// unknown flavor is refused with the ones Kong knows, and records that it was given.
type routerFlavorFlag struct {
	f   *translator.RouterFlavor
	set bool
	// fromKong: unset means the flavor Kong reports (diff), so no default is shown.
	fromKong bool
}

func (r *routerFlavorFlag) String() string {
	if r == nil || r.f == nil || r.fromKong && !r.set {
		return ""
	}
	return string(*r.f)
}

func (r *routerFlavorFlag) Set(s string) error {
	f, err := translator.ParseRouterFlavor(s)
	if err != nil {
		return err
	}
	*r.f, r.set = f, true
	return nil
}
