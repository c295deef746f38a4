package translator

import (
	"fmt"
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
	dropped bool
}

// consumerPiece is a KongConsumer's piece: its Kong consumer with the credentials of the
// Secrets it lists (read), and where each came from.
type consumerPiece struct {
	out   *document.Consumer
	creds []credentialUse
}

// credentialUse is a credential with the Secret it came from and its place in the consumer.
type credentialUse struct {
	secret store.Ref
	field  string // "credentials[i]" on the KongConsumer
	cred   *credential
}

// translateConsumers builds the Kong consumers, credentials nested, of the KongConsumers this
// controller serves. Output order is KIC's deckgen order: by username, then custom_id, both
// ascending, a missing value first. The whole of it is a piece of the KongConsumer kind (and of
// the credential Secrets its consumers' pieces read), keyed by whether our class is the default:
// reused while none of those changed.
func (t *translation) translateConsumers() []*document.Consumer {
	return piece(t, t.memos.allConsumers, t.defaultClass, t.consumers)
}

func (t *translation) consumers() []*document.Consumer {
	entries := t.claimConsumers(t.selectConsumers())
	for _, e := range entries {
		p := piece(t, t.memos.consumers, e.obj, func() *consumerPiece {
			pe := &consumerEntry{obj: e.obj, ref: e.ref, out: t.newConsumer(e.obj, e.ref)}
			t.consumerCredentials(pe)
			return &consumerPiece{out: pe.out, creds: pe.creds}
		})
		e.out, e.creds = p.out, p.creds
	}
	t.dropCredentialConflicts(entries)
	var out []*document.Consumer
	for _, e := range entries {
		if !e.dropped {
			out = append(out, e.out)
		}
	}
	sort.Slice(out, func(i, j int) bool { return consumerLess(out[i], out[j]) })
	return out
}

// servesConsumer reports whether the KongConsumer is ours. KIC matches only the
// kubernetes.io/ingress.class annotation; an absent one counts only when our IngressClass is
// the cluster default.
func (t *translation) servesConsumer(c *configurationv1.KongConsumer) bool {
	return t.servesClassAnnotation(c)
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
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return nsNameKey(a.Namespace, a.Name) < nsNameKey(b.Namespace, b.Name)
	})
	return out
}

// claimConsumers turns KongConsumers into entries. Kong keeps usernames and custom_ids unique
// and rejects the whole config otherwise; KIC sends both consumers anyway, in map order.
// kongsync gives the value to the oldest KongConsumer and skips the later ones with a problem.
func (t *translation) claimConsumers(objs []*configurationv1.KongConsumer) []*consumerEntry {
	usernames := map[string]store.Ref{}
	customIDs := map[string]store.Ref{}
	var out []*consumerEntry
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
func (t *translation) newConsumer(c *configurationv1.KongConsumer, ref store.Ref) *document.Consumer {
	out := &document.Consumer{Consumer: kong.Consumer{Tags: objectTags(store.KindKongConsumer, c)}}
	if c.Username != "" {
		out.Username = kong.String(c.Username)
	}
	if c.CustomID != "" {
		out.CustomID = kong.String(c.CustomID)
	}
	_ = out.Consumer.FillID("")
	if len(c.ConsumerGroups) > 0 {
		t.problem(ref, "consumerGroups", "KongConsumerGroups are not supported (Kong Enterprise); "+
			"consumer translated without groups")
	}
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
func (t *translation) dropCredentialConflicts(entries []*consumerEntry) {
	holders := map[string][]credentialHolder{}
	var keys []string
	for _, e := range entries {
		for _, u := range e.creds {
			k := u.cred.uniqueKey()
			if k == "" {
				continue
			}
			if _, ok := holders[k]; !ok {
				keys = append(keys, k)
			}
			holders[k] = append(holders[k], credentialHolder{entry: e, use: u})
		}
	}
	for _, k := range keys {
		hs := holders[k]
		if len(hs) < 2 {
			continue
		}
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

// consumerLess is KIC's deckgen order: username, then custom_id, ascending, unset first.
func consumerLess(a, b *document.Consumer) bool {
	if c := compareOptional(a.Username, b.Username); c != 0 {
		return c < 0
	}
	return compareOptional(a.CustomID, b.CustomID) < 0
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
