package document

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// This file reads a Kong declarative configuration decoded as generic JSON values, in decK's
// nested shape (what kongsync posts) or Kong's flat export (what GET /config of a real Kong
// returns: every entity in a top-level list, parents named by id), into one table of entities
// keyed by type and natural key, so that two configurations can be compared by meaning.

// nested lists the lists an entity type nests, with the type of their items.
var nested = map[string][][2]string{
	"service":     {{"routes", "route"}, {"plugins", "plugin"}},
	"route":       {{"plugins", "plugin"}},
	"upstream":    {{"targets", "target"}},
	"certificate": {{"snis", "sni"}},
	"consumer": {{"plugins", "plugin"}, {"acls", "acl"}, {"basicauth_credentials", "basicauth_credential"},
		{"hmacauth_credentials", "hmacauth_credential"}, {"jwt_secrets", "jwt_secret"},
		{"keyauth_credentials", "keyauth_credential"}, {"mtls_auth_credentials", "mtls_auth_credential"},
		{"oauth2_credentials", "oauth2_credential"}},
}

// topLevel maps a top-level list of the declarative format to its entity type.
var topLevel = map[string]string{
	"services": "service", "routes": "route", "plugins": "plugin", "upstreams": "upstream", "targets": "target",
	"certificates": "certificate", "snis": "sni", "ca_certificates": "ca_certificate", "consumers": "consumer",
	"acls": "acl", "basicauth_credentials": "basicauth_credential", "hmacauth_credentials": "hmacauth_credential",
	"jwt_secrets": "jwt_secret", "keyauth_credentials": "keyauth_credential",
	"mtls_auth_credentials": "mtls_auth_credential", "oauth2_credentials": "oauth2_credential",
	"consumer_groups": "consumer_group", "consumer_group_consumers": "consumer_group_consumer", "vaults": "vault",
	"licenses": "license",
}

// typeOrder is the order differences are printed in: parents before what they hold.
var typeOrder = []string{"license", "vault", "ca_certificate", "certificate", "sni", "consumer_group", "consumer", "consumer_group_consumer",
	"acl", "basicauth_credential",
	"hmacauth_credential", "jwt_secret", "keyauth_credential", "mtls_auth_credential", "oauth2_credential",
	"upstream", "target", "service", "route", "plugin"}

// foreignKeys are the fields that name another entity.
var foreignKeys = []string{"service", "route", "consumer", "consumer_group", "upstream", "certificate"}

// credentialKey is the field that identifies a credential within its consumer.
var credentialKey = map[string]string{
	"acl": "group", "basicauth_credential": "username", "hmacauth_credential": "username", "jwt_secret": "key",
	"keyauth_credential": "key", "mtls_auth_credential": "subject_name", "oauth2_credential": "client_id",
}

// entity is one Kong entity: its fields without nested lists, its parent (when nested) and,
// once resolved, its natural key.
type entity struct {
	typ    string
	fields map[string]any
	parent *entity
	key    string
}

// entities is a flattened configuration.
type entities struct {
	all  []*entity
	byID map[string]*entity
	// byName finds a parent named by name rather than id (decK's top-level plugins do).
	byName map[string]*entity
	// ignoreIDs keys certificates by their PEM instead of their id.
	ignoreIDs bool
	// mask, when set, replaces the value of each secret field (secretFields) as it is read.
	mask func(any) any
}

// flatten reads a decoded configuration; unknown top-level keys that hold lists of objects
// become entities of that name, other keys (_format_version, _transform) are ignored. mask, if
// not nil, replaces secret values before anything (keys included) is derived from them.
func flatten(doc map[string]any, ignoreIDs bool, mask func(any) any) *entities {
	es := &entities{byID: map[string]*entity{}, byName: map[string]*entity{}, ignoreIDs: ignoreIDs, mask: mask}
	for _, k := range sortedKeys(doc) {
		if strings.HasPrefix(k, "_") {
			continue
		}
		typ, ok := topLevel[k]
		if !ok {
			typ = k
		}
		list, _ := doc[k].([]any)
		for _, item := range list {
			es.add(typ, item, nil)
		}
	}
	for _, e := range es.all {
		es.resolve(e)
	}
	return es
}

// add records an entity and, recursively, those it nests.
func (es *entities) add(typ string, item any, parent *entity) {
	m, ok := item.(map[string]any)
	if !ok {
		return
	}
	e := &entity{typ: typ, fields: map[string]any{}, parent: parent}
	kids := map[string]string{}
	for _, n := range nested[typ] {
		kids[n[0]] = n[1]
	}
	for k, v := range m {
		if _, isKid := kids[k]; !isKid {
			e.fields[k] = v
		}
	}
	if es.mask != nil {
		for _, f := range secretFields[typ] {
			if v, ok := e.fields[f]; ok && v != nil {
				e.fields[f] = es.mask(v)
			}
		}
	}
	es.all = append(es.all, e)
	if id, ok := m["id"].(string); ok && id != "" {
		es.byID[id] = e
	}
	if name := naturalName(e); name != "" {
		es.byName[typ+"\x00"+name] = e
	}
	for _, k := range sortedKeys(kids) {
		list, _ := m[k].([]any)
		for _, child := range list {
			es.add(kids[k], child, e)
		}
	}
}

// resolve replaces foreign keys (a nested entity's parent, or {"id": …}, an id or a name) by
// "type key" of the entity they name, and computes e's key.
func (es *entities) resolve(e *entity) {
	if e.key != "" {
		return
	}
	e.key = "\x00" // cycle guard: a self-reference resolves to nothing
	if e.parent != nil {
		es.resolve(e.parent)
		e.fields[e.parent.typ] = e.parent.typ + " " + e.parent.key
	}
	for _, fk := range foreignKeys {
		if e.parent != nil && e.parent.typ == fk {
			continue
		}
		if ref, ok := es.lookup(fk, e.fields[fk]); ok {
			es.resolve(ref)
			e.fields[fk] = ref.typ + " " + ref.key
		}
	}
	e.key = keyOf(e, es.ignoreIDs)
}

// lookup finds the entity a foreign key value names.
func (es *entities) lookup(typ string, v any) (*entity, bool) {
	var ref string
	switch t := v.(type) {
	case string:
		ref = t
	case map[string]any:
		if id, ok := t["id"].(string); ok {
			ref = id
		} else if name, ok := t["name"].(string); ok {
			ref = name
		}
	}
	if ref == "" {
		return nil, false
	}
	if e, ok := es.byID[ref]; ok && e.typ == typ {
		return e, true
	}
	e, ok := es.byName[typ+"\x00"+ref]
	return e, ok
}

// naturalName is an entity's own unique name, if its type has one.
func naturalName(e *entity) string {
	for _, f := range []string{"name", "username", "custom_id"} {
		if (e.typ == "plugin" || e.typ == "vault") && f == "name" {
			continue // a plugin's or vault's name is not unique
		}
		if s, ok := e.fields[f].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// keyOf is an entity's natural key: what identifies it in any configuration that holds it,
// whatever its id.
func keyOf(e *entity, ignoreIDs bool) string {
	str := func(f string) string {
		switch v := e.fields[f].(type) {
		case string:
			return v
		case secretDigest: // a key-auth key: its digest, never the key
			return "<redacted:" + string(v) + ">"
		}
		return ""
	}
	switch {
	case e.typ == "plugin":
		var scope []string
		for _, fk := range []string{"service", "route", "consumer", "consumer_group"} {
			if s := str(fk); s != "" {
				scope = append(scope, s)
			}
		}
		if len(scope) == 0 {
			scope = []string{"global"}
		}
		k := str("name") + " (" + strings.Join(scope, ", ") + ")"
		if in := str("instance_name"); in != "" {
			k += " " + in
		}
		return k
	case e.typ == "consumer_group_consumer":
		return str("consumer") + " in " + str("consumer_group")
	case e.typ == "target":
		return str("target") + " (" + str("upstream") + ")"
	case credentialKey[e.typ] != "":
		return str(credentialKey[e.typ]) + " (" + str("consumer") + ")"
	case e.typ == "vault": // its name is the backend, which several vaults share
		return str("prefix")
	case e.typ == "license": // never by its payload, a secret (KIC's id is of the KongLicense's name)
		if id := str("id"); id != "" {
			return id
		}
		return "(no id)"
	case e.typ == "certificate" || e.typ == "ca_certificate":
		if id := str("id"); id != "" && !ignoreIDs {
			return id
		}
		return certKey(str("cert"))
	}
	if n := naturalName(e); n != "" {
		return n
	}
	if id := str("id"); id != "" {
		return id
	}
	b, _ := json.Marshal(e.fields)
	return string(b)
}

// certKey names a certificate by its PEM's digest (they have no name).
func certKey(pem string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(pem)))
	return fmt.Sprintf("cert-sha256:%x", sum[:8])
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// shortValue renders a value as JSON, cut to n bytes.
func shortValue(v any, n int) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > n {
		return string(b[:n-3]) + "..."
	}
	return string(b)
}
