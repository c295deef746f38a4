package kongdouble

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kongsync/kongsync/translator/atc"
)

// Kong's router flavors (kong.conf router_flavor). The double reports the one it runs in GET /
// and validates routes as Kong 3.9 does under it (kong/db/schema/entities/routes.lua).
const (
	FlavorTraditional           = "traditional"
	FlavorTraditionalCompatible = "traditional_compatible"
	FlavorExpressions           = "expressions"
)

// validFlavor reports whether Kong would start with router_flavor = f.
func validFlavor(f string) bool {
	return f == FlavorTraditional || f == FlavorTraditionalCompatible || f == FlavorExpressions
}

// maxPriority is the largest route priority Kong accepts (2^46 - 1).
const maxPriority = 1<<46 - 1

// Kong's messages for a route that mixes the two ways of matching.
const (
	errExprPrefix   = "Router Expression failed validation: "
	matchFieldsList = "'methods', 'hosts', 'paths', 'headers', 'snis', 'sources' or 'destinations'"
	errExprMixed    = errExprPrefix + "cannot set 'expression' with " + matchFieldsList + " simultaneously"
	errRegexPrioMix = errExprPrefix + "cannot set 'regex_priority' with 'expression' simultaneously"
	errPriorityMix  = errExprPrefix + "cannot set 'priority' with " + matchFieldsList + " simultaneously"
)

// routeFlavor applies the route rules that depend on the router flavor and reports whether the
// route matches by expression (which then stands in for the traditional match fields Kong
// otherwise requires). Outside expressions, Kong's routes have no expression or priority field.
func (e *entity) routeFlavor(protocols []string) bool {
	if e.v.flavor != FlavorExpressions {
		for _, f := range []string{"expression", "priority"} {
			if _, ok := e.data[f]; ok {
				e.field(f, "unknown field")
			}
		}
		return false
	}
	e.integer("priority", 0, maxPriority)
	expr, set := e.data["expression"], e.data["expression"] != nil
	if s, isStr := expr.(string); set && !isStr {
		e.field("expression", "expected a string")
		return true
	} else if set && s == "" {
		e.field("expression", "length must be at least 1")
		return true
	}
	if msg := expressionRoute(e.data, protocols); msg != "" {
		e.entityErr(msg)
	}
	return set
}

// expressionRoute is Kong's validate_route under expressions, in its order: an expression and
// traditional match fields exclude each other, regex_priority goes only with the latter and
// priority only with the former, and the expression must parse and type-check against the
// schema of the route's first protocol. It returns Kong's message, or "".
func expressionRoute(data map[string]any, protocols []string) string {
	expr, _ := data["expression"].(string)
	others := false
	for _, f := range []string{"snis", "sources", "destinations", "methods", "hosts", "paths", "headers"} {
		others = others || !emptyField(data[f])
	}
	switch {
	case expr == "" && others && !unset(data["priority"]):
		return errPriorityMix
	case expr == "":
		return ""
	case others:
		return errExprMixed
	case !unset(data["regex_priority"]):
		return errRegexPrioMix
	}
	schema := atc.SchemaHTTP
	if len(protocols) > 0 {
		schema, _ = atc.SchemaFor(protocols[0])
	}
	m, err := atc.Parse(amendNetPort(expr))
	if err == nil {
		err = atc.CheckIn(schema, m)
	}
	if err != nil {
		return errExprPrefix + err.Error()
	}
	return ""
}

// emptyField is Kong's is_empty_field: absent, null, or an empty array or object.
func emptyField(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// unset is how Kong reads priority and regex_priority here: absent, null, or 0 (the default).
func unset(v any) bool {
	n, isNum := v.(float64)
	return v == nil || isNum && n == 0
}

// netPortRE finds Kong 3.x's deprecated net.port field, which Kong rewrites to net.dst.port
// before validating (kong/router/transform.lua, amending_expression).
var netPortRE = regexp.MustCompile(`(net\.port)(\s*)([=><!])`)

func amendNetPort(expr string) string {
	if !strings.Contains(expr, "net.port") {
		return expr
	}
	return netPortRE.ReplaceAllString(expr, "net.dst.port$2$3")
}

// mustSetList is the list of match fields Kong requires one of for a route of the protocol,
// with 'expression' under the expressions flavor (routes_subschemas.lua).
func (v *validator) mustSetList(fields ...string) string {
	if v.flavor == FlavorExpressions {
		fields = append(fields, "expression")
	}
	return "'" + strings.Join(fields, "', '") + "'"
}

// flavorError is the startup error of a Kong given an unknown router_flavor.
func flavorError(f string) error {
	return fmt.Errorf("router_flavor has an invalid value: '%s' (traditional, traditional_compatible, expressions)", f)
}
