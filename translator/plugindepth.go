package translator

import (
	"strconv"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// maxPluginConfigDepth is how deeply a plugin config may nest, counting the config object as 1.
// Kong decodes the declarative configuration with lua-cjson's default depth limit of 1000 (Kong
// never changes it: kong/db/declarative/init.lua uses cjson.safe as it is) and encodes
// {entities, meta} with the same limit to hash it; a plugin config sits under at most 8 levels
// of the document (a plugin nested in a route of a service) and 5 of that encoding. 990 keeps
// every plugin Kong could load, and stops a config a few hundred KB deep from becoming a YAML
// output of hundreds of MB (the YAML writer indents each level).
const maxPluginConfigDepth = 990

// configDepthOK reports, and returns false for, a plugin config nested deeper than Kong takes
// (on ref, a plugin of kind with fields).
// The walk stops one level past the limit, so its cost is bounded by the limit, not the input.
func (t *translation) configDepthOK(ref store.Ref, kind store.Kind, fields *configurationv1.PluginFields, config map[string]any) bool {
	if nestingExceeds(config, maxPluginConfigDepth) {
		field := "config"
		switch {
		case fields.ConfigFrom != nil:
			field = "configFrom.secretKeyRef"
		case len(fields.ConfigPatches) > 0:
			field = "configPatches"
		}
		t.problem(ref, field, "the plugin config nests more than %s levels (Kong's JSON decoder refuses it); %s skipped",
			strconv.Itoa(maxPluginConfigDepth), kind)
		return false
	}
	return true
}
