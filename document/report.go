package document

import "strings"

// DiffReport groups Compare's differences by entity for machines (kongsync diff --format json,
// the diagnostics server's diff report). Added are the entities only the actual configuration
// has ("+"), Removed those only the expected one has ("-"), Changed those whose fields differ
// ("~"); each list keeps Compare's order and is never null, so consumers need no nil checks.
type DiffReport struct {
	Added   []EntityRef    `json:"added"`
	Removed []EntityRef    `json:"removed"`
	Changed []EntityChange `json:"changed"`
}

// EntityRef names an entity by type and natural key, as Difference.Entity does.
type EntityRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// EntityChange lists the differing fields of one entity present on both sides.
type EntityChange struct {
	EntityRef
	Fields []FieldChange `json:"fields"`
}

// FieldChange is one differing field; Expected and Actual are short JSON text (truncated to
// 160 bytes with "..."), omitted when the field is unset on that side. For a secret, Redacted
// is set and a value set is RedactedText: that the field differs is all that is said.
type FieldChange struct {
	Field    string `json:"field"`
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
	Redacted bool   `json:"redacted,omitempty"`
}

// Empty reports whether the report holds no difference.
func (r DiffReport) Empty() bool {
	return len(r.Added)+len(r.Removed)+len(r.Changed) == 0
}

// Report groups differences (as Compare returns them: an entity's fields adjacent) by entity.
func Report(diffs []Difference) DiffReport {
	r := DiffReport{Added: []EntityRef{}, Removed: []EntityRef{}, Changed: []EntityChange{}}
	for _, d := range diffs {
		ref := refOf(d.Entity)
		switch d.Op {
		case "+":
			r.Added = append(r.Added, ref)
		case "-":
			r.Removed = append(r.Removed, ref)
		default:
			f := FieldChange{Field: d.Field, Expected: d.Expected, Actual: d.Actual, Redacted: d.Redacted}
			if n := len(r.Changed); n > 0 && r.Changed[n-1].EntityRef == ref {
				r.Changed[n-1].Fields = append(r.Changed[n-1].Fields, f)
				continue
			}
			r.Changed = append(r.Changed, EntityChange{EntityRef: ref, Fields: []FieldChange{f}})
		}
	}
	return r
}

func refOf(entity string) EntityRef {
	kind, name, _ := strings.Cut(entity, " ")
	return EntityRef{Kind: kind, Name: name}
}
