package kongdouble

import (
	"fmt"
	"sort"
	"strings"
)

// luaPretty renders an error table the way Kong's message does (penlight's pretty.write on one
// line): {services={{host="required field missing"}}}; arrays with holes use [i]= keys.
func luaPretty(v any) string {
	var b strings.Builder
	writeLua(&b, v)
	return b.String()
}

func writeLua(b *strings.Builder, v any) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			if isIdent(k) {
				b.WriteString(k)
			} else {
				fmt.Fprintf(b, "[%q]", k)
			}
			b.WriteString("=")
			writeLua(b, t[k])
		}
		b.WriteString("}")
	case []any:
		holes := false
		for _, x := range t {
			holes = holes || x == nil
		}
		b.WriteString("{")
		first := true
		for i, x := range t {
			if x == nil {
				continue
			}
			if !first {
				b.WriteString(",")
			}
			first = false
			if holes {
				fmt.Fprintf(b, "[%d]=", i+1)
			}
			writeLua(b, x)
		}
		b.WriteString("}")
	case string:
		fmt.Fprintf(b, "%q", t)
	default:
		fmt.Fprint(b, t)
	}
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}
