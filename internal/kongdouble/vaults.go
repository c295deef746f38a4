package kongdouble

import (
	"fmt"
	"regexp"
	"strings"
)

// VaultNames are the vault backends the double knows: Kong's bundled env vault and the
// Enterprise ones (aws, azure, gcp, hcv, konnect), accepted like consumer groups so that configs
// written for them load.
var VaultNames = []string{"aws", "azure", "env", "gcp", "hcv", "konnect"}

// vaultPrefixRE is Kong's pattern for a vault prefix, ^[a-z][a-z%d-]-[a-z%d]+$ in Lua.
var vaultPrefixRE = regexp.MustCompile(`^[a-z][a-z0-9-]*[a-z0-9]$`)

// checkVault is Kong's vaults schema: prefix required, matching the pattern and not the name
// of a loaded vault (unique: the schema's unique key); name required and a loaded vault
// (Kong's subschema error); config a record.
func checkVault(e *entity) {
	e.required("prefix")
	e.required("name")
	if p, ok := e.str("prefix"); ok {
		switch {
		case !vaultPrefixRE.MatchString(p):
			e.field("prefix", "invalid value: "+p)
		case contains(VaultNames, p):
			e.field("prefix", "must not be one of: "+strings.Join(VaultNames, ", "))
		}
	}
	if n, ok := e.str("name"); ok && n != "" && !contains(VaultNames, n) {
		e.field("name", fmt.Sprintf("vault '%s' is not installed", n))
	}
	e.str("description")
	if c, ok := e.data["config"]; ok {
		if _, isRecord := c.(map[string]any); !isRecord {
			e.field("config", "expected a record")
		}
	}
}
