package main

import "github.com/kongsync/kongsync/translator"

// boolFlags is what the standard library's FlagSet (dump, diff) and pflag's (run) share for
// boolean flags, so that the three commands define the hardening flags alike.
type boolFlags interface {
	BoolVar(p *bool, name string, value bool, usage string)
}

// defineHardeningFlags defines kongsync's opt-in refusals (docs/security.md). Off, the
// translation is KIC's; `dump` and `diff` take them so that they translate as the controller.
func defineHardeningFlags(fs boolFlags, h *translator.Hardening) {
	fs.BoolVar(&h.RefuseExternalNameServices, "refuse-external-name-services", false,
		"kongsync: give ExternalName Services' upstreams no targets, with a problem (their externalName can be any host)")
	fs.BoolVar(&h.RefuseUnmanagedEndpointSlices, "refuse-unmanaged-endpoint-slices", false,
		"kongsync: skip the endpoints of EndpointSlices not managed by Kubernetes' endpoint controller, with a problem")
}
