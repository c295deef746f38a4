package translator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
)

// Credential Secrets, KIC v3.5.13's way: the type comes from the konghq.com/credential label
// only (the kongCredType data key was removed in KIC 3.0), and the Secret's data keys are the
// credential's fields. KIC decodes the data into go-kong's credential structs by JSON field
// name (exact name first, else any case), after converting three keys: redirect_uris (split on
// commas), hash_secret (a boolean) and ttl (an integer). A data key that lands on a field of
// another type (created_at, tags, consumer, ca_certificate, a differently cased TTL) makes the
// whole credential undecodable.
const (
	labelCredential = "konghq.com/credential"
	legacyCredType  = "kongCredType"
)

// Credential types KIC reconciles, as named by the konghq.com/credential label.
const (
	credKeyAuth   = "key-auth"
	credBasicAuth = "basic-auth"
	credHMACAuth  = "hmac-auth"
	credJWT       = "jwt"
	credOAuth2    = "oauth2"
	credACL       = "acl"
	credMTLSAuth  = "mtls-auth"
)

// credential is one parsed credential Secret: its type and exactly one go-kong entity.
type credential struct {
	kind   string
	ukey   string // uniqueKey, computed once when the credential is built
	key    *kong.KeyAuth
	basic  *kong.BasicAuth
	hmac   *kong.HMACAuth
	jwt    *kong.JWTAuth
	oauth2 *kong.Oauth2Credential
	acl    *kong.ACLGroup
	mtls   *kong.MTLSAuth
}

// credIssue is something wrong with a credential Secret, pinned to a field of the Secret.
// Fatal issues drop the credential; the others only drop or default one field, as in KIC.
type credIssue struct {
	field  string
	reason string
	fatal  bool
}

// valueKind is the Go type a data value has after KIC's conversions, or a struct field needs.
type valueKind int

const (
	kindString valueKind = iota
	kindInt
	kindBool
	kindList
	kindObject // a nested entity (consumer, ca_certificate): no Secret value decodes into it
)

// credValue is one converted data value.
type credValue struct {
	kind valueKind
	s    string
	i    int
	b    bool
	list []string
}

// credField is one JSON field of a go-kong credential struct.
type credField struct {
	name string
	kind valueKind
}

// credentialFields lists the JSON fields of each type's go-kong struct (v0.78.0), the ones
// KIC's decoder can fill from a Secret. Unknown types give nil. The lists are shared: callers
// only read them.
func credentialFields(kind string) []credField {
	return credentialFieldTable[kind]
}

// credentialFieldTable is credentialFields' answers, each type's own fields then the common
// ones (consumer, created_at, id, tags).
var credentialFieldTable = func() map[string][]credField {
	common := []credField{{"consumer", kindObject}, {"created_at", kindInt}, {"id", kindString},
		{"tags", kindList}}
	own := map[string][]credField{
		credKeyAuth:   {{"key", kindString}, {"ttl", kindInt}},
		credBasicAuth: {{"username", kindString}, {"password", kindString}},
		credHMACAuth:  {{"username", kindString}, {"secret", kindString}},
		credJWT: {{"algorithm", kindString}, {"key", kindString}, {"rsa_public_key", kindString},
			{"secret", kindString}},
		credOAuth2: {{"name", kindString}, {"client_id", kindString}, {"client_secret", kindString},
			{"client_type", kindString}, {"hash_secret", kindBool}, {"redirect_uris", kindList}},
		credACL:      {{"group", kindString}},
		credMTLSAuth: {{"subject_name", kindString}, {"ca_certificate", kindObject}},
	}
	for k, fs := range own {
		own[k] = slices.Clip(append(fs, common...))
	}
	return own
}()

// requiredFields are the fields without which a credential is skipped. KIC checks the first
// group (its translator would otherwise crash decK); kongsync adds basic-auth's password,
// which Kong's schema requires, so that one Secret cannot make Kong reject the whole config.
func requiredFields(kind string) []string {
	switch kind {
	case credKeyAuth, credJWT:
		return []string{"key"}
	case credBasicAuth:
		return []string{"username", "password"}
	case credHMACAuth:
		return []string{"username"}
	case credOAuth2:
		return []string{"client_id", "name"}
	case credACL:
		return []string{"group"}
	case credMTLSAuth:
		return []string{"subject_name"}
	}
	return nil
}

// credentialType reads the type label. ok is false, with an issue, when the Secret cannot be
// a credential KIC reconciles.
func credentialType(s *corev1.Secret) (string, *credIssue) {
	kind, ok := s.Labels[labelCredential]
	field := "metadata.labels[" + labelCredential + "]"
	if !ok {
		reason := "Secret is used as a credential but has no " + labelCredential + " label"
		if _, legacy := secretData(s)[legacyCredType]; legacy {
			reason += " (the " + legacyCredType + " data key is no longer read; move its value to the label)"
		}
		return "", &credIssue{field: field, reason: reason + "; credential skipped", fatal: true}
	}
	if credentialFields(kind) == nil {
		return "", &credIssue{field: field, fatal: true, reason: fmt.Sprintf(
			"unsupported credential type %q (want one of acl, basic-auth, hmac-auth, jwt, key-auth, "+
				"mtls-auth, oauth2); credential skipped", kind)}
	}
	return kind, nil
}

// fieldValues are a credential's decoded fields, in the order of credentialFields.
type fieldValues []namedValue

type namedValue struct {
	name string
	v    credValue
}

func (f fieldValues) get(name string) (credValue, bool) {
	for _, nv := range f {
		if nv.name == name {
			return nv.v, true
		}
	}
	return credValue{}, false
}

// conversionIssues reports the ttl and hash_secret values KIC cannot convert, whatever the
// credential type: KIC drops such a ttl and sets such a hash_secret to false.
func conversionIssues(data map[string][]byte) []credIssue {
	var issues []credIssue
	if raw, ok := data["hash_secret"]; ok {
		if _, err := strconv.ParseBool(string(raw)); err != nil {
			issues = append(issues, credIssue{field: "data[hash_secret]",
				reason: fmt.Sprintf("%q is not a boolean; hash_secret set to false", raw)})
		}
	}
	if raw, ok := data["ttl"]; ok {
		if _, err := strconv.Atoi(string(raw)); err != nil {
			issues = append(issues, credIssue{field: "data[ttl]",
				reason: fmt.Sprintf("%q is not an integer; ttl left unset", raw)})
		}
	}
	return issues
}

// convertValue applies KIC's conversion for a data key. ok is false for a ttl that is not an
// integer, which KIC leaves out of the credential's data altogether.
func convertValue(key string, raw []byte) (credValue, bool) {
	v := string(raw)
	switch key {
	case "redirect_uris":
		return credValue{kind: kindList, list: strings.Split(v, ",")}, true
	case "hash_secret":
		b, _ := strconv.ParseBool(v)
		return credValue{kind: kindBool, b: b}, true
	case "ttl":
		n, err := strconv.Atoi(v)
		return credValue{kind: kindInt, i: n}, err == nil
	}
	return credValue{kind: kindString, s: v}, true
}

// needsFold reports whether any data key could equal a (lower-case ASCII) field name only when
// ignoring case: one with an upper-case or non-ASCII letter (Unicode folds "ſ" to "s").
func needsFold(data map[string][]byte) bool {
	for k := range data {
		for i := 0; i < len(k); i++ {
			if c := k[i]; c >= 0x80 || ('A' <= c && c <= 'Z') {
				return true
			}
		}
	}
	return false
}

// lookupField finds the value for a JSON field: the exact key, else a key equal to it
// ignoring case. KIC's decoder takes an arbitrary one of several such keys; kongsync takes
// the smallest, so the result does not depend on map order.
func lookupField(data map[string][]byte, name string, fold bool) (string, credValue, bool) {
	if raw, ok := data[name]; ok {
		if v, ok := convertValue(name, raw); ok {
			return name, v, true
		}
	}
	if !fold {
		return "", credValue{}, false
	}
	best, found := "", false
	for k := range data {
		if k != name && strings.EqualFold(k, name) && (!found || k < best) {
			best, found = k, true
		}
	}
	if !found {
		return "", credValue{}, false
	}
	v, ok := convertValue(best, data[best])
	return best, v, ok
}

// decodeFields maps the Secret's data onto a type's fields. A value of the wrong type for its
// field makes the credential undecodable, as in KIC.
func decodeFields(kind string, data map[string][]byte) (fieldValues, *credIssue) {
	fields := credentialFields(kind)
	fold := needsFold(data)
	out := make(fieldValues, 0, len(fields))
	for _, f := range fields {
		key, v, ok := lookupField(data, f.name, fold)
		if !ok {
			continue
		}
		if v.kind != f.kind {
			return nil, &credIssue{field: "data[" + key + "]", fatal: true, reason: fmt.Sprintf(
				"cannot decode %s credential: field %s takes %s, not %s; credential skipped",
				kind, f.name, kindName(f.kind), kindName(v.kind))}
		}
		out = append(out, namedValue{f.name, v})
	}
	return out, nil
}

func kindName(k valueKind) string {
	switch k {
	case kindInt:
		return "an integer"
	case kindBool:
		return "a boolean"
	case kindList:
		return "a list"
	case kindObject:
		return "an object"
	}
	return "a string"
}

// isUUID reports whether s has the 8-4-4-4-12 hex form Kong requires of ids.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", r):
			return false
		}
	}
	return true
}

// checkFields reports a missing required field, an empty value (Kong rejects empty strings,
// and with them the whole config) and an id that is not a UUID.
func checkFields(kind string, fields fieldValues) *credIssue {
	for _, name := range requiredFields(kind) {
		if _, ok := fields.get(name); !ok {
			return &credIssue{field: "data[" + name + "]", fatal: true, reason: fmt.Sprintf(
				"%s credential needs %s; credential skipped", kind, name)}
		}
	}
	for _, nv := range fields {
		if nv.v.kind == kindString && nv.v.s == "" && !(kind == credJWT && nv.name == "algorithm") {
			return &credIssue{field: "data[" + nv.name + "]", fatal: true, reason: fmt.Sprintf(
				"%s is empty, which Kong rejects; credential skipped", nv.name)}
		}
	}
	if id, ok := fields.get("id"); ok && !isUUID(id.s) {
		return &credIssue{field: "data[id]", fatal: true, reason: fmt.Sprintf(
			"%q is not a UUID, which Kong rejects; credential skipped", id.s)}
	}
	return nil
}

// parseCredential turns a credential Secret into a credential tagged with tags. cred is nil
// when a fatal issue skips it; non-fatal issues come with a credential.
func parseCredential(s *corev1.Secret, tags []*string) (*credential, []credIssue) {
	kind, issue := credentialType(s)
	if issue != nil {
		return nil, []credIssue{*issue}
	}
	data := secretData(s)
	issues := conversionIssues(data)
	fields, issue := decodeFields(kind, data)
	if issue == nil {
		issue = checkFields(kind, fields)
	}
	if issue != nil {
		return nil, append(issues, *issue)
	}
	return buildCredential(kind, fields, tags), issues
}

// str is a field's string value, nil when absent.
func (f fieldValues) str(name string) *string {
	if v, ok := f.get(name); ok {
		return kong.String(v.s)
	}
	return nil
}

// buildCredential fills the go-kong entity of kind from checked fields.
func buildCredential(kind string, f fieldValues, tags []*string) *credential {
	id := f.str("id")
	c := &credential{kind: kind}
	switch kind {
	case credKeyAuth:
		c.key = &kong.KeyAuth{ID: id, Key: f.str("key"), Tags: tags}
		if v, ok := f.get("ttl"); ok {
			c.key.TTL = kong.Int(v.i)
		}
	case credBasicAuth:
		c.basic = &kong.BasicAuth{ID: id, Username: f.str("username"), Password: f.str("password"), Tags: tags}
	case credHMACAuth:
		c.hmac = &kong.HMACAuth{ID: id, Username: f.str("username"), Secret: f.str("secret"), Tags: tags}
	case credJWT:
		c.jwt = &kong.JWTAuth{ID: id, Algorithm: f.str("algorithm"), Key: f.str("key"),
			RSAPublicKey: f.str("rsa_public_key"), Secret: f.str("secret"), Tags: tags}
		if c.jwt.Algorithm == nil || *c.jwt.Algorithm == "" {
			c.jwt.Algorithm = kong.String("HS256") // Kong's default, set so that diffs stay quiet
		}
	case credOAuth2:
		c.oauth2 = buildOAuth2(f, tags)
		c.oauth2.ID = id
	case credACL:
		c.acl = &kong.ACLGroup{ID: id, Group: f.str("group"), Tags: tags}
	case credMTLSAuth:
		c.mtls = &kong.MTLSAuth{ID: id, SubjectName: f.str("subject_name"), Tags: tags}
	}
	c.ukey = c.uniqueKey()
	return c
}

func buildOAuth2(f fieldValues, tags []*string) *kong.Oauth2Credential {
	o := &kong.Oauth2Credential{Name: f.str("name"), ClientID: f.str("client_id"),
		ClientSecret: f.str("client_secret"), ClientType: f.str("client_type"), Tags: tags}
	if v, ok := f.get("hash_secret"); ok {
		o.HashSecret = kong.Bool(v.b)
	}
	if v, ok := f.get("redirect_uris"); ok {
		o.RedirectURIs = kong.StringSlice(v.list...)
	}
	return o
}

// uniqueKey is the value Kong keeps unique across all credentials of the type, prefixed by a
// description of the field and a NUL, or "" for types without one (acl, mtls-auth). Two
// credentials with one key make KIC drop every consumer involved, and kongsync does the same.
func (c *credential) uniqueKey() string {
	switch c.kind {
	case credKeyAuth:
		return "key-auth key\x00" + *c.key.Key
	case credBasicAuth:
		return "basic-auth username\x00" + *c.basic.Username
	case credHMACAuth:
		return "hmac-auth username\x00" + *c.hmac.Username
	case credJWT:
		return "jwt-auth key\x00" + *c.jwt.Key
	case credOAuth2:
		return "oauth2-credentials client_id\x00" + *c.oauth2.ClientID
	}
	return ""
}
