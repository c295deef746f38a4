package translator

import (
	"slices"
	"strings"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// groupAlloc is a consumer group entity with its id in one allocation.
type groupAlloc struct {
	kong.ConsumerGroup
	id string
}

// consumerGroups returns the served consumer groups. It is a piece of the whole
// KongConsumerGroup kind, keyed by whether our class is the default: reused while no
// KongConsumerGroup changed.
func (t *consumerBuild) consumerGroups() *consumerGroupSet {
	return piece(t.translation, t.memos.consumerGroups, t.defaultClass, t.buildConsumerGroups)
}

// servesConsumerGroup reports whether the KongConsumerGroup is ours: KIC's class rule for
// KongConsumers (the kubernetes.io/ingress.class annotation; absent counts only when our class
// is the default), and a controlPlaneRef that is unset or KIC's (others are the Kong operator's).
func (t *consumerBuild) servesConsumerGroup(g *kup.KongConsumerGroup) bool {
	class := g.Annotations[annIngressClass]
	return (class == t.opts.IngressClass || (class == "" && t.defaultClass)) && g.Spec.ControlPlaneRef.ForKIC()
}

func (t *consumerBuild) buildConsumerGroups() *consumerGroupSet {
	var served []*kup.KongConsumerGroup
	for _, o := range t.snap.Objects(store.KindKongConsumerGroup) {
		if g, ok := o.(*kup.KongConsumerGroup); ok && t.servesConsumerGroup(g) {
			served = append(served, g)
		}
	}
	slices.SortStableFunc(served, func(a, b *kup.KongConsumerGroup) int {
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			if a.CreationTimestamp.Before(&b.CreationTimestamp) {
				return -1
			}
			return 1
		}
		return strings.Compare(nsNameKey(a.Namespace, a.Name), nsNameKey(b.Namespace, b.Name))
	})
	set := &consumerGroupSet{byRef: make(map[[2]string]*groupEntry, len(served))}
	owners := make(map[string]store.Ref, len(served))
	for _, g := range served {
		e := &groupEntry{obj: g, ref: store.Ref{Kind: store.KindKongConsumerGroup, Namespace: g.Namespace, Name: g.Name}}
		set.byRef[[2]string{g.Namespace, g.Name}] = e
		t.checkGroupSpec(e)
		if owner, taken := owners[g.Name]; taken {
			e.owner = owner
			t.problem(e.ref, "metadata.name", "consumer group name %s is already used by the older %s "+
				"(Kong names groups by metadata.name, unique across namespaces); KongConsumerGroup skipped",
				quoteShort(g.Name), owner)
			continue
		}
		owners[g.Name] = e.ref
		e.owner = e.ref
		a := &groupAlloc{id: t.ids.consumerGroups.id(g.Name)}
		a.Name, a.ID, a.Tags = &g.Name, &a.id, objectTags(store.KindKongConsumerGroup, g)
		e.out = &a.ConsumerGroup
		set.list = append(set.list, e.out)
		if g.Annotations[annPlugins] != "" {
			set.plugins = append(set.plugins, e)
		}
	}
	slices.SortFunc(set.list, func(a, b *kong.ConsumerGroup) int { return strings.Compare(*b.Name, *a.Name) })
	slices.SortFunc(set.plugins, func(a, b *groupEntry) int {
		return strings.Compare(nsNameKey(a.ref.Namespace, a.ref.Name), nsNameKey(b.ref.Namespace, b.ref.Name))
	})
	return set
}

// checkGroupSpec reports the spec fields KIC does not translate (they are the Kong operator's),
// so that a user who set them learns that they have no effect.
func (t *consumerBuild) checkGroupSpec(e *groupEntry) {
	s := e.obj.Spec
	if s.Name != "" && s.Name != e.obj.Name {
		t.problem(e.ref, "spec.name", "not used: the Kong consumer group is named after metadata.name "+
			"(%s), as in KIC", quoteShort(e.obj.Name))
	}
	if len(s.Tags) > 0 {
		t.problem(e.ref, "spec.tags", "not used: the consumer group's extra tags come from the "+
			"konghq.com/tags annotation, as in KIC")
	}
}

// consumerMembers lists a KongConsumer's consumerGroups items with their membership entities
// (made once per consumer piece, so that reused consumers keep their entities' pointers). A
// repeated name counts once; a consumer without username can join no group in a declarative
// config (Kong resolves a membership's consumer by username or id, and only consumers with a
// username get an id; KIC would write an empty consumer name).
func (t *consumerBuild) consumerMembers(c *configurationv1.KongConsumer, ref store.Ref) []groupMember {
	if len(c.ConsumerGroups) == 0 {
		return nil
	}
	if c.Username == "" {
		t.problem(ref, "consumerGroups", "a consumer without username cannot join consumer groups in a "+
			"declarative config (Kong names a member by username or id, and only consumers with a "+
			"username get an id); memberships skipped")
		return nil
	}
	out := make([]groupMember, 0, len(c.ConsumerGroups))
	ents := make([]document.ConsumerGroupConsumer, len(c.ConsumerGroups))
	seen := make(map[string]bool, len(c.ConsumerGroups)) // the list can be long: no search of out
	for i, name := range c.ConsumerGroups {
		if seen[name] {
			t.problem(ref, groupMember{index: i}.field(), "consumer group %s is listed twice; the repeat is ignored", quoteShort(name))
			continue
		}
		seen[name] = true
		ents[i] = document.ConsumerGroupConsumer{ConsumerGroup: name, Consumer: c.Username}
		out = append(out, groupMember{name: name, index: i, entry: &ents[i]})
	}
	return out
}

// resolveMembers keeps the memberships whose group is served and owns its name, and returns a
// problem for each other one: KIC would write a membership of a group that is missing or not
// ours, which Kong rejects with the whole configuration.
func (t *consumerBuild) resolveMembers(e *consumerEntry, groups *consumerGroupSet) ([]*document.ConsumerGroupConsumer, []Problem) {
	var out []*document.ConsumerGroupConsumer
	var probs []Problem
	for _, m := range e.p.val.members {
		ge := groups.byRef[[2]string{e.obj.Namespace, m.name}]
		switch {
		case ge == nil:
			reason, cause := t.missingGroupReason(e.obj.Namespace, m.name)
			probs = append(probs, causedProblem(cause, e.ref, m.field(), "%s", reason))
		case ge.out == nil:
			probs = append(probs, newProblem(e.ref, m.field(), "KongConsumerGroup %s/%s is skipped (its name is %s's); "+
				"membership skipped", e.obj.Namespace, m.name, ge.owner))
		default:
			out = append(out, m.entry)
		}
	}
	return out, probs
}

// missingGroupReason says why a group name a consumer lists makes no membership: the group does
// not exist in the consumer's namespace (yet: MissingRef), or it is not ours.
func (t *consumerBuild) missingGroupReason(ns, name string) (string, Cause) {
	o, ok := t.snap.Get(store.Ref{Kind: store.KindKongConsumerGroup, Namespace: ns, Name: name})
	g, isGroup := o.(*kup.KongConsumerGroup)
	switch {
	case !ok || !isGroup:
		return "KongConsumerGroup " + ns + "/" + name + " not found; membership skipped", MissingRef
	case !g.Spec.ControlPlaneRef.ForKIC():
		return "KongConsumerGroup " + ns + "/" + name + " belongs to another control plane (spec.controlPlaneRef); membership skipped", Invalid
	}
	return "KongConsumerGroup " + ns + "/" + name + " is not of ingress class " + quoteShort(t.opts.IngressClass) +
		"; membership skipped", Invalid
}
