package document

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// yamlUnsafe returns the index in JSON text b of the first character that YAML readers do not
// take as itself inside a quoted string, or -1: DEL and the C1 controls (YAML refuses them raw;
// U+0085, NEL, is a line break that YAML folds into a space) and the noncharacters U+FFFE and
// U+FFFF. encoding/json writes these raw, and every other character it writes raw YAML reads as
// itself (it escapes C0 controls and U+2028/U+2029). JSON is YAML, and a JSON dump is read by
// YAML tools (kubectl, sigs.k8s.io/yaml, Helm), so the encoders escape these too.
func yamlUnsafe(b []byte) int {
	first := bytes.IndexByte(b, 0x7f)
	// U+0080–U+009F are 0xC2 0x80–0x9F; U+FFFE and U+FFFF are 0xEF 0xBF 0xBE–0xBF. In UTF-8
	// 0xC2 and 0xEF are only ever lead bytes.
	for _, lead := range []byte{0xc2, 0xef} {
		for off := 0; off < len(b); {
			j := bytes.IndexByte(b[off:], lead)
			if j < 0 || first >= 0 && off+j >= first {
				break
			}
			j += off
			if lead == 0xc2 && j+1 < len(b) && b[j+1] >= 0x80 && b[j+1] <= 0x9f ||
				lead == 0xef && j+2 < len(b) && b[j+1] == 0xbf && b[j+2] >= 0xbe {
				first = j
				break
			}
			off = j + 1
		}
	}
	return first
}

// appendYAMLSafe appends JSON text b with each yamlUnsafe character written as a \u escape.
// Such characters only occur inside JSON strings (JSON's structure is ASCII), where the escape
// means the same character to every JSON reader.
func appendYAMLSafe(dst, b []byte) []byte {
	const hex = "0123456789abcdef"
	for {
		i := yamlUnsafe(b)
		if i < 0 {
			return append(dst, b...)
		}
		dst = append(dst, b[:i]...)
		r, size := utf8.DecodeRune(b[i:])
		dst = append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		b = b[i+size:]
	}
}

// quoted is a string yaml.v3 must write double-quoted.
type quoted string

// MarshalYAML implements yaml.Marshaler.
func (q quoted) MarshalYAML() (any, error) {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(q), Style: yaml.DoubleQuotedStyle}, nil
}

// misread reports the strings yaml.v3 writes in a way YAML readers read back as something
// else, or refuse: "<<" and "=" plain (a merge key, YAML 1.1's value key), and strings with
// line breaks in literal blocks or single quotes, where it loses a leading break, fails on a
// first line starting with a tab, and folds U+0085, U+2028 and U+2029 (line breaks to YAML).
// Only literal blocks the fast emitter writes too (literalSafe) are kept; double quotes say
// every other one exactly.
func misread(s string) bool {
	if s == "<<" || s == "=" {
		return true
	}
	return strings.ContainsAny(s, "\n\r\u0085\u2028\u2029") && !(strings.Contains(s, "\n") && literalSafe(s))
}

// quoteMisread returns tree (a decoded JSON value) with the misread keys and strings made
// quoted, and whether it changed anything; maps and lists without one are returned as they are.
// Keys keep yaml.v3's order: it sorts a quoted key as the string it is.
func quoteMisread(tree any) (any, bool) {
	switch t := tree.(type) {
	case string:
		if misread(t) {
			return quoted(t), true
		}
	case []any:
		var out []any
		for i, v := range t {
			q, changed := quoteMisread(v)
			if changed && out == nil {
				out = slices.Clone(t)
			}
			if out != nil {
				out[i] = q
			}
		}
		if out != nil {
			return out, true
		}
	case map[string]any:
		return quoteMisreadMap(t)
	}
	return tree, false
}

// quoteMisreadMap is quoteMisread for an object: a map[any]any when a key must be quoted.
func quoteMisreadMap(m map[string]any) (any, bool) {
	vals, changed, quoteKeys := m, false, false
	for k, v := range m {
		quoteKeys = quoteKeys || misread(k)
		if q, ok := quoteMisread(v); ok {
			if !changed {
				vals, changed = maps.Clone(m), true
			}
			vals[k] = q
		}
	}
	if !quoteKeys {
		return vals, changed
	}
	out := make(map[any]any, len(vals))
	for k, v := range vals {
		if misread(k) {
			out[quoted(k)] = v
		} else {
			out[k] = v
		}
	}
	return out, true
}
