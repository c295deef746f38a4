package status

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// KIC v3.5.13's Programmed condition: type, reasons and messages (its controllers/utils).
const (
	ConditionProgrammed = "Programmed"
	ReasonProgrammed    = "Programmed"
	ReasonInvalid       = "Invalid"
	ReasonPending       = "Pending"
	MessageProgrammed   = "Object was successfully configured in Kong."
	MessageInvalid      = "Object failed to be configured in Kong - see its attached Events for more information."
	MessagePending      = "Object is pending configuration in Kong."
)

// verdict is what a configuration Kong holds says of one object.
type verdict int

const (
	verdictUnknown   verdict = iota // the configuration has no entity of it (a KongPlugin nothing references)
	verdictSucceeded                // an entity of it is in the configuration, and it has no problem
	verdictFailed                   // a problem names it, or Kong rejected it and it is left out
)

// ensureProgrammed returns the conditions with Programmed set for v at generation gen, and
// whether they changed, as KIC does: a condition of the same status, reason and observed
// generation is left alone; an existing Programmed condition is never turned to pending (a
// new leader does not know yet what its predecessor wrote); the transition time moves only when
// the status does. Other conditions are kept as they are.
func ensureProgrammed(v verdict, gen int64, cur []metav1.Condition, now metav1.Time) ([]metav1.Condition, bool) {
	want := metav1.Condition{Type: ConditionProgrammed, Status: metav1.ConditionTrue, ObservedGeneration: gen,
		LastTransitionTime: now, Reason: ReasonProgrammed, Message: MessageProgrammed}
	switch v {
	case verdictFailed:
		want.Status, want.Reason, want.Message = metav1.ConditionFalse, ReasonInvalid, MessageInvalid
	case verdictUnknown:
		want.Status, want.Reason, want.Message = metav1.ConditionFalse, ReasonPending, MessagePending
	}
	for i, c := range cur {
		if c.Type != ConditionProgrammed {
			continue
		}
		if v == verdictUnknown || (c.Status == want.Status && c.Reason == want.Reason && c.ObservedGeneration == gen) {
			return cur, false
		}
		if c.Status == want.Status {
			want.LastTransitionTime = c.LastTransitionTime
		}
		out := append([]metav1.Condition(nil), cur...)
		out[i] = want
		return out, true
	}
	return append(append([]metav1.Condition(nil), cur...), want), true
}

// verdicts is what one published configuration says of the objects it was made from.
type verdicts struct {
	failed     map[store.Ref]bool
	configured map[store.Ref]bool
}

func newVerdicts(doc *document.Document, problems []translator.Problem, excluded []store.Ref) verdicts {
	v := verdicts{failed: map[store.Ref]bool{}, configured: configuredRefs(doc)}
	for _, p := range problems {
		v.failed[p.Object] = true
	}
	for _, r := range excluded {
		v.failed[r] = true
	}
	return v
}

func (v verdicts) of(ref store.Ref) verdict {
	switch {
	case v.failed[ref]:
		return verdictFailed
	case v.configured[ref]:
		return verdictSucceeded
	}
	return verdictUnknown
}

// configuredRefs are the objects the configuration's entities were made from, by their k8s-*
// tags (KIC's "configured Kubernetes objects"). A new entity list in document.Document whose
// objects get Programmed is one more loop here.
func configuredRefs(doc *document.Document) map[store.Ref]bool {
	out := map[store.Ref]bool{}
	if doc == nil {
		return out
	}
	add := func(tags []*string) {
		ts := make([]string, 0, len(tags))
		for _, t := range tags {
			if t != nil {
				ts = append(ts, *t)
			}
		}
		if ref, ok := translator.RefFromTags(ts); ok {
			out[ref] = true
		}
	}
	for _, p := range doc.Plugins {
		add(p.Tags)
	}
	for _, g := range doc.ConsumerGroups {
		add(g.Tags)
	}
	for _, v := range doc.Vaults {
		add(v.Tags)
	}
	// Custom entities carry no tags (Kong's schemas of their types have none): the document
	// keeps their KongCustomEntity beside them.
	for _, l := range doc.CustomEntities {
		for _, e := range l.Entities {
			out[store.Ref{Kind: store.KindKongCustomEntity, Namespace: e.Namespace, Name: e.Name}] = true
		}
	}
	for _, c := range doc.Consumers {
		add(c.Tags)
		for _, p := range c.Plugins {
			add(p.Tags)
		}
	}
	for _, u := range doc.Upstreams {
		add(u.Tags)
	}
	for _, s := range doc.Services {
		add(s.Tags) // a Service's or KongServiceFacade's (its Kong service), or a route's
		for _, p := range s.Plugins {
			add(p.Tags)
		}
		for _, r := range s.Routes {
			add(r.Tags)
			for _, p := range r.Plugins {
				add(p.Tags)
			}
		}
	}
	return out
}
