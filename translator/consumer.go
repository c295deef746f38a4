package translator

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/document"
	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// servesConsumer reports whether the KongConsumer is ours. KIC matches only the
// kubernetes.io/ingress.class annotation; an absent one counts only when our IngressClass is
// the cluster default. Like KIC's controllers, it skips a consumer whose spec.controlPlaneRef
// names another control plane (the Kong operator's), silently as one of another class.
func (t *consumerBuild) servesConsumer(c *configurationv1.KongConsumer) bool {
	return t.servesClassAnnotation(c) && c.ServedByKIC()
}

// consumerPieceOf computes a KongConsumer's piece.
func (t *consumerBuild) consumerPieceOf(c *configurationv1.KongConsumer, ref store.Ref) *consumerPiece {
	p := &consumerPiece{out: t.newConsumer(c)}
	t.consumerCredentials(c, ref, p)
	p.members = t.consumerMembers(c, ref)
	return p
}

// newConsumer is the Kong consumer without credentials: username, custom_id, KIC's tags, and
// the UUIDv5 id go-kong derives from the username (a consumer with only a custom_id has none).
func (t *consumerBuild) newConsumer(c *configurationv1.KongConsumer) *document.Consumer {
	a := &consumerAlloc{}
	a.Tags = objectTagsIn(store.KindKongConsumer, c, &a.tags, nil)
	if c.Username != "" {
		a.username, a.id = c.Username, t.ids.consumers.id(c.Username)
		a.Username, a.ID = &a.username, &a.id
	}
	if c.CustomID != "" {
		a.customID = c.CustomID
		a.CustomID = &a.customID
	}
	return &a.Consumer
}

// consumerAlloc is a Kong consumer with its strings and tags in one allocation.
type consumerAlloc struct {
	document.Consumer
	username, customID, id string
	tags                   tagBlock
}

// consumerCredentials attaches the credentials of the Secrets the consumer lists, in listed
// order (KIC's order). A Secret listed twice counts once, and so does a unique credential value
// two of its Secrets hold (Kong would refuse the second; KIC drops the consumer).
func (t *consumerBuild) consumerCredentials(c *configurationv1.KongConsumer, ref store.Ref, p *consumerPiece) {
	seen := map[string]bool{}
	values := map[string]int{} // credential value (ukey) -> index of the first Secret holding it
	for i, name := range c.Credentials {
		if seen[name] {
			t.problem(ref, credentialField(i), "Secret %q is listed twice; the repeat is ignored", name)
			continue
		}
		seen[name] = true
		secret, ok := t.snap.Secret(c.Namespace, name)
		if !ok {
			t.missingRef(ref, credentialField(i), "Secret %s/%s not found; credential skipped", c.Namespace, name)
			continue
		}
		cred := t.secretCredential(secret)
		if cred == nil {
			t.problem(ref, credentialField(i), "Secret %s/%s holds no valid credential (see its problem); "+
				"credential skipped", c.Namespace, name)
			continue
		}
		if first, dup := values[cred.ukey]; dup && cred.ukey != "" {
			t.problem(ref, credentialField(i), "Secret %s/%s repeats the %s of credentials[%d]; credential skipped",
				c.Namespace, name, globalNameKind(cred.ukey), first)
			continue
		}
		values[cred.ukey] = i
		p.creds = append(p.creds, credentialUse{secret: secretRef(secret), index: i, cred: cred})
		addCredential(p.out, cred)
	}
}

// secretCredential parses a credential Secret, recording its issues on the Secret.
func (t *consumerBuild) secretCredential(s *corev1.Secret) *credential {
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
