package document

import (
	"github.com/kong/go-kong/kong"
)

// Plugin is a top-level plugin: a kong.Plugin whose service, route, consumer and consumer group
// are written as decK's file format writes them, one string naming the entity. KIC emits every
// KongPlugin attachment this way (not nested), and Kong's declarative loader resolves the name;
// go-kong's object form ({"id": ...}) would need the entity's UUID.
type Plugin struct {
	kong.Plugin
}

// pluginFields is Plugin without its methods, so that MarshalJSON can encode it normally.
type pluginFields Plugin

// pluginWithRefs shadows kong.Plugin's reference objects with strings; the shallower fields win
// in encoding/json.
type pluginWithRefs struct {
	*pluginFields
	Consumer      *string `json:"consumer,omitempty"`
	ConsumerGroup *string `json:"consumer_group,omitempty"`
	Route         *string `json:"route,omitempty"`
	Service       *string `json:"service,omitempty"`
}

// MarshalJSON writes the plugin with its references as names (or ids when no name is set).
func (p *Plugin) MarshalJSON() ([]byte, error) {
	out := pluginWithRefs{pluginFields: (*pluginFields)(p)}
	if p.Consumer != nil {
		out.Consumer = firstSet(p.Consumer.Username, p.Consumer.CustomID, p.Consumer.ID)
	}
	if p.ConsumerGroup != nil {
		out.ConsumerGroup = firstSet(p.ConsumerGroup.Name, p.ConsumerGroup.ID)
	}
	if p.Route != nil {
		out.Route = firstSet(p.Route.Name, p.Route.ID)
	}
	if p.Service != nil {
		out.Service = firstSet(p.Service.Name, p.Service.ID)
	}
	return marshalNoEscape(out)
}

func firstSet(vals ...*string) *string {
	for _, v := range vals {
		if v != nil {
			return v
		}
	}
	return nil
}
