package admission

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// maxLines bounds a message: the API server passes it to the client whole.
const maxLines = 10

// judge turns the problems an object would add into a verdict. Problems about references that
// another object may satisfy (translator.MissingRef: `kubectl apply -f dir/` and Helm create
// objects in an order of their own) warn, and so do those of what KIC 3.x accepts and ignores
// or only deprecates (translator.Deprecated: KIC's webhook warns and lets the object in); any
// other refuses the object, with every such problem (the object's own first) as the message. A
// Service is never refused, as KIC never refuses one: it serves other controllers and
// workloads too; its problems warn.
func judge(obj store.Object, added []translator.Problem) Verdict {
	ref, _ := store.RefOf(obj)
	var refuse, warn []translator.Problem
	for _, p := range added {
		if ref.Kind == store.KindService || p.Cause != translator.Invalid {
			warn = append(warn, p)
		} else {
			refuse = append(refuse, p)
		}
	}
	v := Verdict{Allowed: len(refuse) == 0, Warnings: lines(ref, warn)}
	if !v.Allowed {
		v.Message = strings.Join(lines(ref, refuse), "\n")
	}
	return v
}

// lines renders problems, those of ref first, at most maxLines of them.
func lines(ref store.Ref, ps []translator.Problem) []string {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Object == ref && ps[j].Object != ref })
	var out []string
	for i, p := range ps {
		if i == maxLines-1 && len(ps) > maxLines {
			out = append(out, fmt.Sprintf("... and %d more problem(s)", len(ps)-i))
			break
		}
		out = append(out, p.String())
	}
	return out
}
