package translator

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kongsync/kongsync/internal/safetext"
	"github.com/kongsync/kongsync/store"
)

// Problem is one object, or one field of it, that could not be translated. Problems name the
// object and field so that a user can find and fix it; the rest of the config is unaffected.
type Problem struct {
	Object store.Ref
	// Field is the JSON path of the offending field, e.g. "spec.rules[0].http.paths[1].path",
	// or "metadata.annotations[konghq.com/protocols]"; empty when the object as a whole is at fault.
	Field string
	// Reason says what is wrong and what happened to the object (skipped, field ignored).
	Reason string
	// Cause is what kind of problem it is, for those who treat kinds differently (the admission
	// webhook refuses Invalid, and only warns about the others).
	Cause Cause
}

// Cause is what kind of problem a Problem is.
type Cause uint8

const (
	// Invalid: the object, or a field of it, is wrong. The zero value.
	Invalid Cause = iota
	// MissingRef: the object names another that is not there (yet), or one in another namespace
	// without the ReferenceGrant that would open it; creating that object fixes it, and
	// `kubectl apply -f dir/` and Helm create objects in an order of their own.
	MissingRef
	// Deprecated: something KIC 3.x also accepts and ignores or only deprecates (KongIngress,
	// its proxy and route sections, konghq.com/override on an Ingress).
	Deprecated
)

// String renders a problem as one line: "Ingress default/app: spec.rules[0].host: reason".
// Names, fields and reasons come from objects (offline, names never met an API server's
// validation), so the line is escaped (safetext): no control or bidi character reaches a
// terminal, a log line or an admission warning raw, and a newline cannot forge a second line.
func (p Problem) String() string {
	return safetext.Escape(p.Object.String() + ": " + p.Message())
}

// Message is the problem without its object, "spec.rules[0].host: reason", escaped as String
// is: the text of an Event or a status condition about the object.
func (p Problem) Message() string {
	if p.Field == "" {
		return safetext.Escape(p.Reason)
	}
	return safetext.Escape(p.Field + ": " + p.Reason)
}

// SortProblems orders problems by object, field and reason, so output is deterministic. Fields
// compare indexes by number ("paths[9]" before "paths[10]"), the order a user reads a manifest in.
func SortProblems(ps []Problem) {
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Object != b.Object {
			if a.Object.Kind != b.Object.Kind {
				return a.Object.Kind < b.Object.Kind
			}
			if a.Object.Namespace != b.Object.Namespace {
				return a.Object.Namespace < b.Object.Namespace
			}
			return a.Object.Name < b.Object.Name
		}
		if a.Field != b.Field {
			if fieldLess(a.Field, b.Field) != fieldLess(b.Field, a.Field) {
				return fieldLess(a.Field, b.Field)
			}
			return a.Field < b.Field // equal but for leading zeros
		}
		if a.Reason != b.Reason {
			return a.Reason < b.Reason
		}
		return a.Cause < b.Cause
	})
}

func newProblem(ref store.Ref, field, format string, args ...any) Problem {
	return causedProblem(Invalid, ref, field, format, args...)
}

func causedProblem(cause Cause, ref store.Ref, field, format string, args ...any) Problem {
	reason := format
	if len(args) > 0 {
		reason = fmt.Sprintf(format, args...)
	}
	return Problem{Object: ref, Field: field, Reason: capReason(reason), Cause: cause}
}

// maxReason bounds a problem's reason: names and values from manifests can be any length, and a
// problem ends up in logs, Events and dump's stderr.
const maxReason = 1024

// capReason cuts reason to maxReason bytes (at a rune boundary), saying so.
func capReason(reason string) string {
	if len(reason) <= maxReason {
		return reason
	}
	cut := maxReason
	for cut > 0 && !utf8RuneStart(reason[cut]) {
		cut--
	}
	return reason[:cut] + fmt.Sprintf("... (cut; %d bytes in all)", len(reason))
}

// finishProblems sorts problems and drops exact duplicates (one Service port used by several
// Kong services, for example, reports a bad annotation once).
func finishProblems(ps []Problem) []Problem {
	SortProblems(ps)
	out := ps[:0]
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// fieldLess compares two field paths, runs of digits by numeric value.
func fieldLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// WithRefusals adds the manifest reader's refusals (objects an API server would have refused,
// left out of the store) to a build's problems, sorted as problems are: `dump` and `diff -f`
// report both alike.
func WithRefusals(ps []Problem, rs []store.Refusal) []Problem {
	if len(rs) == 0 {
		return ps
	}
	out := make([]Problem, 0, len(ps)+len(rs))
	out = append(out, ps...)
	for _, r := range rs {
		out = append(out, Problem{Object: r.Object, Field: r.Field, Reason: capReason(r.Reason)})
	}
	return finishProblems(out)
}
