package document

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/kongsync/kongsync/internal/safetext"
)

// CompareOptions tune Compare.
type CompareOptions struct {
	// IgnoreIDs leaves ids out (entities are matched by natural key anyway); IgnoreTags, tags.
	IgnoreIDs, IgnoreTags bool
	// Strict also reports fields only the actual configuration has. Without it, such fields
	// are taken as Kong's: a real Kong's export fills in every default and timestamp.
	Strict bool
	// ShowSecrets compares and prints the values of secret fields (SecretFields) as they are.
	// Without it they are redacted on both sides, as /debug/config redacts them: each is
	// compared by its digest under SecretKey, so a changed password is still a difference,
	// printed as RedactedText, and a key-auth key naming its credential is shown as its digest.
	ShowSecrets bool
	// SecretKey keys those digests; nil: a fresh random key (NewSecretKey) for this call.
	SecretKey []byte
}

// Difference is one way an actual configuration (Kong's) differs from the expected one.
type Difference struct {
	// Op is "-" (the entity is only expected), "+" (only in the actual configuration) or "~"
	// (a field differs).
	Op string
	// Entity is the entity's type and natural key, e.g. "route default.web.web.example.com.80".
	Entity string
	// Field is the differing field's path ("" for a whole entity); Expected and Actual its
	// values as short JSON ("" when absent), RedactedText for a secret.
	Field, Expected, Actual string
	// Redacted says the field is a secret whose values are not shown.
	Redacted bool
}

// RedactedDiffers is what a comparison prints for a secret set on both sides to different values.
const RedactedDiffers = "<redacted, differs>"

// String renders a difference on one line, escaped (safetext): entity names and config keys come
// from objects and may hold control characters.
func (d Difference) String() string {
	switch d.Op {
	case "-":
		return safetext.Escape(fmt.Sprintf("- %s: only in the expected configuration", d.Entity))
	case "+":
		return safetext.Escape(fmt.Sprintf("+ %s: only in the actual configuration", d.Entity))
	}
	if d.Redacted && d.Expected != "" && d.Actual != "" {
		return safetext.Escape(fmt.Sprintf("~ %s: %s: %s", d.Entity, d.Field, RedactedDiffers))
	}
	exp, act := orUnset(d.Expected), orUnset(d.Actual)
	return safetext.Escape(fmt.Sprintf("~ %s: %s: expected %s, actual %s", d.Entity, d.Field, exp, act))
}

func orUnset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

// Compare compares two Kong declarative configurations decoded as generic JSON values (nested
// as decK nests them, or flat as Kong exports them) by meaning, as ../shared/tools/kongcmp.py
// does: entities are matched by natural key (name, username, target in its upstream, a plugin
// by name and scope, a credential in its consumer, a certificate by id), parents are named by
// key instead of id, absent, null and empty values are the same, created_at and updated_at
// are ignored. Lists of values keep their order. Differences come sorted by entity type
// (parents first), key and field.
//
// Secret fields are redacted unless opts.ShowSecrets (see CompareOptions).
func Compare(expected, actual map[string]any, opts CompareOptions) []Difference {
	var mask func(any) any
	if !opts.ShowSecrets {
		key := opts.SecretKey
		if key == nil {
			key = NewSecretKey()
		}
		mask = secretMasker(key)
	}
	exp, act := index(flatten(expected, opts.IgnoreIDs, mask)), index(flatten(actual, opts.IgnoreIDs, mask))
	var out []Difference
	for _, id := range unionKeys(exp, act) {
		e, a := exp[id], act[id]
		switch {
		case a == nil:
			out = append(out, Difference{Op: "-", Entity: id})
		case e == nil:
			out = append(out, Difference{Op: "+", Entity: id})
		default:
			out = append(out, compareFields(id, clean(e.fields, opts), clean(a.fields, opts), opts.Strict)...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return entityLess(out[i].Entity, out[j].Entity) })
	return out
}

// index keys entities by "type key"; of duplicates (an invalid configuration) the last wins.
func index(es *entities) map[string]*entity {
	m := make(map[string]*entity, len(es.all))
	for _, e := range es.all {
		m[e.typ+" "+e.key] = e
	}
	return m
}

func unionKeys(a, b map[string]*entity) []string {
	keys := sortedKeys(a)
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// entityLess orders "type key" labels by typeOrder, then key.
func entityLess(a, b string) bool {
	ta, ka, _ := strings.Cut(a, " ")
	tb, kb, _ := strings.Cut(b, " ")
	ra, rb := typeRank(ta), typeRank(tb)
	if ra != rb {
		return ra < rb
	}
	if ta != tb {
		return ta < tb
	}
	return ka < kb
}

func typeRank(t string) int {
	if i := slices.Index(typeOrder, t); i >= 0 {
		return i
	}
	return len(typeOrder)
}

// clean drops what never counts: timestamps, empty values, and ids or tags when asked.
func clean(fields map[string]any, opts CompareOptions) map[string]any {
	out := make(map[string]any, len(fields))
	for k, v := range fields {
		if k == "created_at" || k == "updated_at" || opts.IgnoreIDs && k == "id" || opts.IgnoreTags && k == "tags" || isEmpty(v) {
			continue
		}
		out[k] = v
	}
	return out
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}

// compareFields reports each differing field of one entity.
func compareFields(id string, exp, act map[string]any, strict bool) []Difference {
	var out []Difference
	walk("", exp, act, strict, func(path string, e, a any) {
		d := Difference{Op: "~", Entity: id, Field: path}
		var eSecret, aSecret bool
		d.Expected, eSecret = valueText(e)
		d.Actual, aSecret = valueText(a)
		d.Redacted = eSecret || aSecret
		out = append(out, d)
	})
	return out
}

// valueText is a field's value as printed: short JSON, RedactedText for a secret's digest, ""
// when absent.
func valueText(v any) (string, bool) {
	switch v.(type) {
	case nil:
		return "", false
	case secretDigest:
		return RedactedText, true
	}
	return shortValue(v, 160), false
}

// walk calls diff for each path where exp and act differ. Objects are compared key by key;
// without strict, keys only act has are not differences (Kong's defaults). Lists compare
// element by element, in order.
func walk(path string, exp, act any, strict bool, diff func(path string, e, a any)) {
	em, eok := exp.(map[string]any)
	am, aok := act.(map[string]any)
	if eok && aok {
		for _, k := range sortedKeys(em) {
			walkKey(join(path, k), em[k], am[k], strict, diff)
		}
		if strict {
			for _, k := range sortedKeys(am) {
				if _, ok := em[k]; !ok && !isEmpty(am[k]) {
					diff(join(path, k), nil, am[k])
				}
			}
		}
		return
	}
	el, eok := exp.([]any)
	al, aok := act.([]any)
	if eok && aok && len(el) == len(al) {
		for i := range el {
			walk(fmt.Sprintf("%s[%d]", path, i), el[i], al[i], strict, diff)
		}
		return
	}
	if !sameValue(exp, act) {
		diff(path, exp, act)
	}
}

// sameValue compares leaves; numbers by value, whatever their Go type (JSON gives float64,
// YAML decoders ints).
func sameValue(a, b any) bool {
	fa, aok := number(a)
	fb, bok := number(b)
	if aok && bok {
		return fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func walkKey(path string, e, a any, strict bool, diff func(string, any, any)) {
	switch {
	case isEmpty(e) && isEmpty(a):
	case isEmpty(a):
		diff(path, e, nil)
	case isEmpty(e):
		if strict {
			diff(path, nil, a)
		}
	default:
		walk(path, e, a, strict, diff)
	}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
