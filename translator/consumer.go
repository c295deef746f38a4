package translator

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// consumerEntry is one KongConsumer on its way to a Kong consumer.
type consumerEntry struct {
	obj     *configurationv1.KongConsumer
	ref     store.Ref
	out     *document.Consumer
	creds   []credentialUse
	members []groupMember
	dropped bool
}

// consumerPiece is a KongConsumer's piece: its Kong consumer with the credentials of the
// Secrets it lists (read), where each came from, and its consumerGroups items with their
// membership entities.
type consumerPiece struct {
	out     *document.Consumer
	creds   []credentialUse
	members []groupMember
}

// credentialUse is a credential with the Secret it came from and its place in the consumer.
type credentialUse struct {
	secret store.Ref
	field  string // "credentials[i]" on the KongConsumer
	cred   *credential
}

// consumerList is the consumers part of the document: the Kong consumers and their
// memberships in consumer groups.
type consumerList struct {
	consumers []*document.Consumer
	members   []*document.ConsumerGroupConsumer
	// plugins are the consumers whose KongConsumer has konghq.com/plugins, in output order.
	plugins []*consumerEntry
}

// translateConsumers builds the Kong consumers, credentials nested, of the KongConsumers this
// controller serves, and their consumer group memberships. Output order is KIC's deckgen order:
// by username, then custom_id, both ascending, a missing value first; memberships follow their
// consumers, each consumer's in its listed order (KIC's DB-less conversion). The whole of it is a
// piece of the KongConsumer kind (and of the credential Secrets its consumers' pieces read, and
// of the KongConsumerGroups), keyed by whether our class is the default: reused while none of
// those changed.
func (t *translation) translateConsumers() consumerList {
	return piece(t, t.memos.allConsumers, t.defaultClass, t.consumers)
}

func (t *translation) consumers() consumerList {
	groups := t.consumerGroups()
	entries := t.claimConsumers(t.selectConsumers())
	for _, e := range entries {
		p := piece(t, t.memos.consumers, e.obj, func() *consumerPiece {
			pe := &consumerEntry{obj: e.obj, ref: e.ref, out: t.newConsumer(e.obj)}
			t.consumerCredentials(pe)
			return &consumerPiece{out: pe.out, creds: pe.creds, members: t.consumerMembers(pe)}
		})
		e.out, e.creds, e.members = p.out, p.creds, p.members
	}
	t.dropCredentialConflicts(entries)
	kept := slices.DeleteFunc(entries, func(e *consumerEntry) bool { return e.dropped })
	slices.SortFunc(kept, func(a, b *consumerEntry) int { return consumerCompare(a.out, b.out) })
	out := consumerList{consumers: make([]*document.Consumer, len(kept))}
	for i, e := range kept {
		out.consumers[i] = e.out
		out.members = append(out.members, t.resolveMembers(e, groups, e.members)...)
		if e.obj.Annotations[annPlugins] != "" {
			out.plugins = append(out.plugins, e)
		}
	}
	return out
}

// servesConsumer reports whether the KongConsumer is ours. KIC matches only the
// kubernetes.io/ingress.class annotation; an absent one counts only when our IngressClass is
// the cluster default. Like KIC's controllers, it skips a consumer whose spec.controlPlaneRef
// names another control plane (the Kong operator's), silently as one of another class.
func (t *translation) servesConsumer(c *configurationv1.KongConsumer) bool {
	return t.servesClassAnnotation(c) && c.ServedByKIC()
}

// selectConsumers returns the served KongConsumers, oldest first, ties broken by
// "namespace/name": the order in which they claim usernames and custom_ids.
func (t *translation) selectConsumers() []*configurationv1.KongConsumer {
	var out []*configurationv1.KongConsumer
	for _, o := range t.snap.Objects(store.KindKongConsumer) {
		c, ok := o.(*configurationv1.KongConsumer)
		if ok && t.servesConsumer(c) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b *configurationv1.KongConsumer) int {
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			if a.CreationTimestamp.Before(&b.CreationTimestamp) {
				return -1
			}
			return 1
		}
		return compareNsName(a.Namespace, a.Name, b.Namespace, b.Name)
	})
	return out
}

// claimConsumers turns KongConsumers into entries. Kong keeps usernames and custom_ids unique
// and rejects the whole config otherwise; KIC sends both consumers anyway, in map order.
// kongsync gives the value to the oldest KongConsumer and skips the later ones with a problem.
func (t *translation) claimConsumers(objs []*configurationv1.KongConsumer) []*consumerEntry {
	usernames := make(map[string]store.Ref, len(objs))
	customIDs := map[string]store.Ref{}
	out := make([]*consumerEntry, 0, len(objs))
	for _, c := range objs {
		ref := store.Ref{Kind: store.KindKongConsumer, Namespace: c.Namespace, Name: c.Name}
		if c.Username == "" && c.CustomID == "" {
			t.problem(ref, "", "neither username nor custom_id is set; KongConsumer skipped")
			continue
		}
		if owner, taken := usernames[c.Username]; taken && c.Username != "" {
			t.problem(ref, "username", "username %q is already used by the older %s; KongConsumer skipped",
				c.Username, owner)
			continue
		}
		if owner, taken := customIDs[c.CustomID]; taken && c.CustomID != "" {
			t.problem(ref, "custom_id", "custom_id %q is already used by the older %s; KongConsumer skipped",
				c.CustomID, owner)
			continue
		}
		if c.Username != "" {
			usernames[c.Username] = ref
		}
		if c.CustomID != "" {
			customIDs[c.CustomID] = ref
		}
		out = append(out, &consumerEntry{obj: c, ref: ref})
	}
	return out
}

// newConsumer is the Kong consumer without credentials: username, custom_id, KIC's tags, and
// the UUIDv5 id go-kong derives from the username (a consumer with only a custom_id has none).
func (t *translation) newConsumer(c *configurationv1.KongConsumer) *document.Consumer {
	out := &document.Consumer{Consumer: kong.Consumer{Tags: objectTags(store.KindKongConsumer, c)}}
	if c.Username != "" {
		out.Username = kong.String(c.Username)
	}
	if c.CustomID != "" {
		out.CustomID = kong.String(c.CustomID)
	}
	_ = out.Consumer.FillID("")
	return out
}

// consumerCredentials attaches the credentials of the Secrets the consumer lists, in listed
// order (KIC's order). A Secret listed twice counts once.
func (t *translation) consumerCredentials(e *consumerEntry) {
	seen := map[string]bool{}
	for i, name := range e.obj.Credentials {
		field := fmt.Sprintf("credentials[%d]", i)
		if seen[name] {
			t.problem(e.ref, field, "Secret %q is listed twice; the repeat is ignored", name)
			continue
		}
		seen[name] = true
		secret, ok := t.snap.Secret(e.obj.Namespace, name)
		if !ok {
			t.problem(e.ref, field, "Secret %s/%s not found; credential skipped", e.obj.Namespace, name)
			continue
		}
		cred := t.secretCredential(secret)
		if cred == nil {
			t.problem(e.ref, field, "Secret %s/%s holds no valid credential (see its problem); "+
				"credential skipped", e.obj.Namespace, name)
			continue
		}
		e.creds = append(e.creds, credentialUse{secret: secretRef(secret), field: field, cred: cred})
		addCredential(e.out, cred)
	}
}

// secretCredential parses a credential Secret, recording its issues on the Secret.
func (t *translation) secretCredential(s *corev1.Secret) *credential {
	cred, issues := parseCredential(s, objectTags(store.KindSecret, s))
	for _, is := range issues {
		t.problem(secretRef(s), is.field, "%s", is.reason)
	}
	return cred
}

// addCredential appends the credential to its type's list on the consumer.
func addCredential(c *document.Consumer, cred *credential) {
	switch cred.kind {
	case credKeyAuth:
		c.KeyAuths = append(c.KeyAuths, cred.key)
	case credBasicAuth:
		c.BasicAuths = append(c.BasicAuths, cred.basic)
	case credHMACAuth:
		c.HMACAuths = append(c.HMACAuths, cred.hmac)
	case credJWT:
		c.JWTAuths = append(c.JWTAuths, cred.jwt)
	case credOAuth2:
		c.Oauth2Creds = append(c.Oauth2Creds, cred.oauth2)
	case credACL:
		c.ACLGroups = append(c.ACLGroups, cred.acl)
	case credMTLSAuth:
		c.MTLSAuths = append(c.MTLSAuths, cred.mtls)
	}
}

// credentialHolder is one use of a unique credential value.
type credentialHolder struct {
	entry *consumerEntry
	use   credentialUse
}

// dropCredentialConflicts finds credentials whose unique field (key-auth key, basic-auth and
// hmac-auth username, jwt key, oauth2 client_id) has one value in two places, and, as KIC
// does, skips every KongConsumer involved, with a problem on each Secret and KongConsumer.
// One map from each value to its first use finds them; only values used twice collect all
// their uses.
func (t *translation) dropCredentialConflicts(entries []*consumerEntry) {
	first := make(map[string]credentialHolder, len(entries))
	var dup map[string][]credentialHolder
	var keys []string
	for _, e := range entries {
		for _, u := range e.creds {
			k := u.cred.ukey
			if k == "" {
				continue
			}
			h := credentialHolder{entry: e, use: u}
			f, seen := first[k]
			if !seen {
				first[k] = h
				continue
			}
			if dup == nil {
				dup = map[string][]credentialHolder{}
			}
			if _, ok := dup[k]; !ok {
				keys = append(keys, k)
				dup[k] = []credentialHolder{f}
			}
			dup[k] = append(dup[k], h)
		}
	}
	for _, k := range keys {
		hs := dup[k]
		what := strings.SplitN(k, "\x00", 2)[0]
		for _, h := range hs {
			others := otherHolders(hs, h)
			t.problem(h.use.secret, "", "credential used by %s conflicts on %s with %s; every "+
				"KongConsumer involved is skipped", h.entry.ref, what, others)
			t.problem(h.entry.ref, h.use.field, "credential from %s conflicts on %s with %s; "+
				"KongConsumer skipped", h.use.secret, what, others)
			h.entry.dropped = true
		}
	}
}

// otherHolders names the other uses of h's value: "Secret ns/a used by KongConsumer ns/b".
func otherHolders(hs []credentialHolder, h credentialHolder) string {
	var names []string
	for _, o := range hs {
		if o.entry == h.entry && o.use.secret == h.use.secret {
			continue
		}
		names = append(names, fmt.Sprintf("%s used by %s", o.use.secret, o.entry.ref))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// consumerCompare is KIC's deckgen order: username, then custom_id, ascending, unset first.
func consumerCompare(a, b *document.Consumer) int {
	if c := compareOptional(a.Username, b.Username); c != 0 {
		return c
	}
	return compareOptional(a.CustomID, b.CustomID)
}

func compareOptional(a, b *string) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return strings.Compare(*a, *b)
}
