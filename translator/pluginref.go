package translator

import "github.com/kongsync/kongsync/store"

// What a route asks of the plugin stage: Ingress, stream and Gateway API routes name plugins
// the same way, and the plugin stage attaches them (pluginattach.go).

// routePluginRef is a plugin a Kong route of a Gateway API route asks for.
type routePluginRef struct {
	referrer store.Ref
	route    string // Kong route name
	plugin   pluginRef
	field    string // what asks: the annotation or the filter
}
