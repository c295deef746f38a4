package translator

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// idHolder is one entity of the finished document with an id: its Kong entity kind (ids are
// unique per kind), its tags (which name the object it came from, read only for a duplicate)
// and the field of that object the id comes from.
type idHolder struct {
	idKey
	tags   []*string
	field  string
	entity any // the entity's pointer, to drop it
}

type idKey struct{ kind, id string }

// dropDuplicateIDs is the last check of a build: Kong refuses the whole declarative
// configuration when two entities of one kind share an id, and some ids come straight from
// users (a credential Secret's or CA Secret's "id", a TLS Secret's uid in a manifest). Of the
// holders of one id the oldest object (creationTimestamp, then namespace/name; one object's
// entities in document order) keeps it; every other entity is left out with a problem naming
// its object, the field and the keeper. One pass to index, one to drop: linear in entities, and
// objects are looked up only for ids held twice.
//
// Only entities whose ids users give are indexed on every build (credentials, CA certificates,
// certificates): the others' ids are go-kong's UUIDv5 of names the translator already keeps
// unique (services, routes, upstreams, plugins, consumers, consumer groups), and indexing them
// too cost 4 ms and 4 MB a build at 10,000 Ingresses. kongInvariants checks those in fuzzing,
// and TestDuplicateIDsAnyKind runs this pass over every kind.
func (t *translation) dropDuplicateIDs(doc *document.Document) {
	t.dropDuplicates(doc, collectIDs(doc, false))
}

func (t *translation) dropDuplicates(doc *document.Document, hs []idHolder) {
	keeper := make(map[idKey]int, len(hs))
	var dups []int
	for i := range hs {
		j, ok := keeper[hs[i].idKey]
		switch {
		case !ok:
			keeper[hs[i].idKey] = i
		case t.olderHolder(&hs[i], &hs[j]):
			keeper[hs[i].idKey] = i
			dups = append(dups, j)
		default:
			dups = append(dups, i)
		}
	}
	if len(dups) == 0 {
		return
	}
	drop := make(map[any]bool, len(dups))
	for _, i := range dups {
		h, k := &hs[i], &hs[keeper[hs[i].idKey]]
		drop[h.entity] = true
		ref, keptBy := refOf(h.tags), refOf(k.tags)
		what := "the " + kindSingular(h.kind)
		if ref == keptBy {
			t.problem(ref, h.field, "%s id %s is given twice (Kong requires unique ids); %s is skipped once",
				kindSingular(h.kind), quoteShort(h.id), what)
			continue
		}
		t.problem(ref, h.field, "%s id %s is already used by %s %s (Kong requires unique ids); %s is skipped",
			kindSingular(h.kind), quoteShort(h.id), keptBy.Kind, keptBy.Namespace+"/"+keptBy.Name, what)
	}
	dropEntities(doc, drop)
}

// olderHolder reports whether a should keep an id rather than b: the older object, else the
// smaller namespace/name, else the earlier in the document.
func (t *translation) olderHolder(a, b *idHolder) bool {
	ra, rb := refOf(a.tags), refOf(b.tags)
	if ra == rb {
		return false
	}
	ta, tb := t.created(ra), t.created(rb)
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	return nsNameKey(ra.Namespace, ra.Name) < nsNameKey(rb.Namespace, rb.Name)
}

func (t *translation) created(ref store.Ref) metav1.Time {
	if o, ok := t.snap.Get(ref); ok && o != nil {
		if m, ok := o.(metav1.Object); ok {
			return m.GetCreationTimestamp()
		}
	}
	return metav1.Time{}
}

func kindSingular(kind string) string {
	if n, ok := entityNames[kind]; ok {
		return n
	}
	return kind
}

var entityNames = map[string]string{
	"ca_certificates": "CA certificate", "certificates": "certificate", "consumer_groups": "consumer group",
	"consumers": "consumer", "plugins": "plugin", "services": "service", "routes": "route", "upstreams": "upstream",
	"acls": "ACL credential", "basicauth_credentials": "basic-auth credential", "hmacauth_credentials": "HMAC credential",
	"jwt_secrets": "JWT credential", "keyauth_credentials": "key-auth credential", "mtls_auth_credentials": "mTLS credential",
	"oauth2_credentials": "OAuth2 credential",
}

// refOf is the object an entity came from, by its tags (read only for duplicates).
func refOf(tags []*string) store.Ref {
	plain := make([]string, 0, len(tags))
	for _, t := range tags {
		if t != nil {
			plain = append(plain, *t)
		}
	}
	ref, _ := RefFromTags(plain)
	return ref
}

// collectIDs lists the entities with an id whose ids users give (all: every entity with an id),
// in document order.
func collectIDs(doc *document.Document, all bool) []idHolder {
	var hs []idHolder
	if all {
		n := len(doc.ConsumerGroups) + len(doc.Consumers) + len(doc.Plugins) + len(doc.Upstreams) + len(doc.Services)
		for _, s := range doc.Services {
			n += len(s.Routes)
		}
		hs = make([]idHolder, 0, n+len(doc.CACertificates)+len(doc.Certificates))
	}
	add := func(kind string, id *string, tags []*string, field string, e any) {
		if id != nil && *id != "" {
			hs = append(hs, idHolder{idKey: idKey{kind, *id}, tags: tags, field: field, entity: e})
		}
	}
	for _, c := range doc.CACertificates {
		add("ca_certificates", c.ID, c.Tags, "data[id]", c)
	}
	for _, c := range doc.Certificates {
		add("certificates", c.ID, c.Tags, "metadata.uid", c)
	}
	for _, c := range doc.Consumers {
		collectCredentialIDs(c, add)
	}
	if all {
		collectDerivedIDs(doc, add)
	}
	return hs
}

// collectDerivedIDs lists the entities whose ids are UUIDv5 of their names.
func collectDerivedIDs(doc *document.Document, add func(string, *string, []*string, string, any)) {
	for _, g := range doc.ConsumerGroups {
		add("consumer_groups", g.ID, g.Tags, "metadata.name", g)
	}
	for _, c := range doc.Consumers {
		add("consumers", c.ID, c.Tags, "username", c)
		for _, p := range c.Plugins {
			add("plugins", p.ID, p.Tags, "metadata.name", p)
		}
	}
	for _, p := range doc.Plugins {
		add("plugins", p.ID, p.Tags, "metadata.name", p)
	}
	for _, s := range doc.Services {
		add("services", s.ID, s.Tags, "metadata.name", s)
		for _, p := range s.Plugins {
			add("plugins", p.ID, p.Tags, "metadata.name", p)
		}
		for _, r := range s.Routes {
			add("routes", r.ID, r.Tags, "metadata.name", r)
			for _, p := range r.Plugins {
				add("plugins", p.ID, p.Tags, "metadata.name", p)
			}
		}
	}
	for _, u := range doc.Upstreams {
		add("upstreams", u.ID, u.Tags, "metadata.name", u)
	}
}

// collectCredentialIDs lists a consumer's credentials, whose ids come from their Secrets' "id".
func collectCredentialIDs(c *document.Consumer, add func(string, *string, []*string, string, any)) {
	for _, x := range c.ACLGroups {
		add("acls", x.ID, x.Tags, "data[id]", x)
	}
	for _, x := range c.BasicAuths {
		add("basicauth_credentials", x.ID, x.Tags, "data[id]", x)
	}
	for _, x := range c.HMACAuths {
		add("hmacauth_credentials", x.ID, x.Tags, "data[id]", x)
	}
	for _, x := range c.JWTAuths {
		add("jwt_secrets", x.ID, x.Tags, "data[id]", x)
	}
	for _, x := range c.KeyAuths {
		add("keyauth_credentials", x.ID, x.Tags, "data[id]", x)
	}
	for _, x := range c.MTLSAuths {
		add("mtls_auth_credentials", x.ID, x.Tags, "data[id]", x)
	}
	for _, x := range c.Oauth2Creds {
		add("oauth2_credentials", x.ID, x.Tags, "data[id]", x)
	}
}

// keep returns l without the entities in drop; l itself when none is (entities and their lists
// are never modified after translation, so a changed list is a new one).
func keep[T any](l []*T, drop map[any]bool) []*T {
	n := 0
	for _, x := range l {
		if !drop[x] {
			n++
		}
	}
	if n == len(l) {
		return l
	}
	out := make([]*T, 0, n)
	for _, x := range l {
		if !drop[x] {
			out = append(out, x)
		}
	}
	return out
}

// dropEntities removes the entities in drop from doc, copying what holds them.
func dropEntities(doc *document.Document, drop map[any]bool) {
	doc.CACertificates = keep(doc.CACertificates, drop)
	doc.Certificates = keep(doc.Certificates, drop)
	doc.ConsumerGroups = keep(doc.ConsumerGroups, drop)
	doc.Plugins = keep(doc.Plugins, drop)
	doc.Upstreams = keep(doc.Upstreams, drop)
	consumers := keep(doc.Consumers, drop)
	copied := len(consumers) != len(doc.Consumers)
	for i, c := range consumers {
		cc := *c
		cc.ACLGroups, cc.BasicAuths, cc.HMACAuths = keep(c.ACLGroups, drop), keep(c.BasicAuths, drop), keep(c.HMACAuths, drop)
		cc.JWTAuths, cc.KeyAuths, cc.MTLSAuths = keep(c.JWTAuths, drop), keep(c.KeyAuths, drop), keep(c.MTLSAuths, drop)
		cc.Oauth2Creds, cc.Plugins = keep(c.Oauth2Creds, drop), keep(c.Plugins, drop)
		if sameConsumerLists(c, &cc) {
			continue
		}
		if !copied {
			consumers, copied = append([]*document.Consumer(nil), consumers...), true
		}
		consumers[i] = &cc
	}
	doc.Consumers = consumers
	services := keep(doc.Services, drop)
	copied = len(services) != len(doc.Services)
	for i, s := range services {
		ss, changed := withoutDropped(s, drop)
		if !changed {
			continue
		}
		if !copied {
			services, copied = append([]*document.Service(nil), services...), true
		}
		services[i] = ss
	}
	doc.Services = services
}

// withoutDropped is s without its dropped routes and plugins (a copy), or s.
func withoutDropped(s *document.Service, drop map[any]bool) (*document.Service, bool) {
	routes, plugins := keep(s.Routes, drop), keep(s.Plugins, drop)
	changed := len(routes) != len(s.Routes) || len(plugins) != len(s.Plugins)
	copied := len(routes) != len(s.Routes)
	for k, r := range routes {
		rp := keep(r.Plugins, drop)
		if len(rp) == len(r.Plugins) {
			continue
		}
		if !copied {
			routes, copied = append([]*document.Route(nil), routes...), true
		}
		rr := *r
		rr.Plugins = rp
		routes[k] = &rr
		changed = true
	}
	if !changed {
		return s, false
	}
	ss := *s
	ss.Routes, ss.Plugins = routes, plugins
	return &ss, true
}

func sameConsumerLists(a, b *document.Consumer) bool {
	return len(a.ACLGroups) == len(b.ACLGroups) && len(a.BasicAuths) == len(b.BasicAuths) &&
		len(a.HMACAuths) == len(b.HMACAuths) && len(a.JWTAuths) == len(b.JWTAuths) &&
		len(a.KeyAuths) == len(b.KeyAuths) && len(a.MTLSAuths) == len(b.MTLSAuths) &&
		len(a.Oauth2Creds) == len(b.Oauth2Creds) && len(a.Plugins) == len(b.Plugins)
}
