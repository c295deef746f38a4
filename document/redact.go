package document

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/kong/go-kong/kong"
)

// secretFields are the fields of Kong entities that hold a secret, by entity type as Kong names
// it (flattened_errors' entity_type, Compare's types). It is the only such list: Redacted
// (/debug/config), Compare (kongsync diff and /debug/config/diff-report) and sync's redaction of
// Kong's error answers (which reach logs and Events) all read it, and TestRedactedFollowsSecretFields
// holds Redacted's typed code to it. Plugin configurations are not in it, as KIC does not redact
// them either.
var secretFields = map[string][]string{
	"certificate":          {"key", "key_alt"},
	"basicauth_credential": {"password"},
	"hmacauth_credential":  {"secret"},
	"jwt_secret":           {"secret"}, // "key" names the issuer; it is no secret
	"keyauth_credential":   {"key"},
	"oauth2_credential":    {"client_secret"},
	"license":              {"payload"}, // a Kong Enterprise license (KIC redacts it too)
}

// SecretFields returns the fields of an entity type that hold a secret; kind is the type as
// Kong names it (keyauth_credential) or the list a declarative configuration holds it in
// (keyauth_credentials). The result must not be modified.
func SecretFields(kind string) []string {
	if f, ok := secretFields[kind]; ok {
		return f
	}
	return secretFields[topLevel[kind]]
}

// SecretFieldNames lists, sorted and once each, every field name that holds a secret in some
// entity type: what Kong's messages may quote ("entity with key set to '...'").
func SecretFieldNames() []string {
	var out []string
	for _, fs := range secretFields {
		for _, f := range fs {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out
}

// RedactedText is what a comparison prints for a secret value, on either side.
const RedactedText = "<redacted>"

// secretDigest is what Compare holds in place of a secret value: a keyed digest, so that equal
// secrets still compare equal and a changed one differs, while the value can neither be read
// back nor found by hashing candidate passwords (an unsalted hash of a short password can).
type secretDigest string

// secretMasker returns the function that replaces a secret value by its HMAC-SHA256 under key
// (8 bytes of it: enough to tell values apart, useless without the key).
func secretMasker(key []byte) func(any) any {
	return func(v any) any {
		b, err := json.Marshal(v) // a string as itself; JSON also tells "1" from 1
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		mac := hmac.New(sha256.New, key)
		mac.Write(b)
		return secretDigest(hex.EncodeToString(mac.Sum(nil)[:8]))
	}
}

// NewSecretKey returns a fresh random key for the digests Redacted and Compare show in place of
// secrets: digests under one key can be compared with each other, and mean nothing to anyone
// without it. A process (the diagnostics server) or a run (kongsync diff) makes one.
func NewSecretKey() []byte {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails (it crashes the program instead)
	return key
}

// RedactedValue replaces a secret in a redacted document: KIC's placeholder, a vault reference
// Kong would refuse to resolve, so a redacted dump can never be loaded by mistake.
const RedactedValue = "{vault://redacted-value}"

// Redacted returns a copy of d without the values of secretFields, as KIC redacts its config
// dumps unless --dump-sensitive-config: certificate private keys, basic-auth passwords, HMAC and
// JWT secrets, OAuth2 client secrets and license payloads become RedactedValue; a key-auth key, which must stay
// unique for Kong to load the dump, becomes a vault reference derived from its HMAC under key
// (NewSecretKey), so that two dumps taken under one key show whether a key changed without
// showing it, or letting anyone guess it by hashing candidates. Everything else is shared with
// d, which is left unchanged.
func Redacted(d *Document, key []byte) *Document {
	if d == nil {
		return nil
	}
	out := *d
	out.Certificates = make([]*Certificate, len(d.Certificates))
	for i, c := range d.Certificates {
		cp := *c
		if cp.Key != nil {
			cp.Key = kong.String(RedactedValue)
		}
		out.Certificates[i] = &cp
	}
	out.Consumers = make([]*Consumer, len(d.Consumers))
	for i, c := range d.Consumers {
		out.Consumers[i] = redactedConsumer(c, key)
	}
	if d.Certificates == nil {
		out.Certificates = nil
	}
	out.Licenses = mapCopy(d.Licenses, func(v kong.License) kong.License {
		v.Payload = redactedIfSet(v.Payload)
		return v
	})
	if d.Consumers == nil {
		out.Consumers = nil
	}
	return &out
}

// redactedConsumer copies a consumer with its credentials' secrets replaced (KIC keeps ACL
// groups and mTLS credentials, which hold no secret).
func redactedConsumer(c *Consumer, key []byte) *Consumer {
	cp := *c
	cp.BasicAuths = mapCopy(c.BasicAuths, func(v kong.BasicAuth) kong.BasicAuth {
		v.Password = redactedIfSet(v.Password)
		return v
	})
	cp.HMACAuths = mapCopy(c.HMACAuths, func(v kong.HMACAuth) kong.HMACAuth {
		v.Secret = redactedIfSet(v.Secret)
		return v
	})
	cp.JWTAuths = mapCopy(c.JWTAuths, func(v kong.JWTAuth) kong.JWTAuth {
		v.Secret = redactedIfSet(v.Secret)
		return v
	})
	cp.KeyAuths = mapCopy(c.KeyAuths, func(v kong.KeyAuth) kong.KeyAuth {
		if v.Key != nil {
			mac := hmac.New(sha256.New, key)
			mac.Write([]byte(*v.Key))
			v.Key = kong.String(fmt.Sprintf("{vault://%x}", mac.Sum(nil)[:16]))
		}
		return v
	})
	cp.Oauth2Creds = mapCopy(c.Oauth2Creds, func(v kong.Oauth2Credential) kong.Oauth2Credential {
		v.ClientSecret = redactedIfSet(v.ClientSecret)
		return v
	})
	return &cp
}

func redactedIfSet(s *string) *string {
	if s == nil {
		return nil
	}
	return kong.String(RedactedValue)
}

// mapCopy copies each element through f into a new list (nil stays nil).
func mapCopy[T any](in []*T, f func(T) T) []*T {
	if in == nil {
		return nil
	}
	out := make([]*T, len(in))
	for i, p := range in {
		v := f(*p)
		out[i] = &v
	}
	return out
}
