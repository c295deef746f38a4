package translator

import (
	"fmt"
	"sort"

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
}

// String renders a problem as one line: "Ingress default/app: spec.rules[0].host: reason".
func (p Problem) String() string {
	if p.Field == "" {
		return fmt.Sprintf("%s: %s", p.Object, p.Reason)
	}
	return fmt.Sprintf("%s: %s: %s", p.Object, p.Field, p.Reason)
}

// SortProblems orders problems by object, field and reason, so output is deterministic.
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
			return a.Field < b.Field
		}
		return a.Reason < b.Reason
	})
}

func newProblem(ref store.Ref, field, format string, args ...any) Problem {
	reason := format
	if len(args) > 0 {
		reason = fmt.Sprintf(format, args...)
	}
	return Problem{Object: ref, Field: field, Reason: reason}
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
