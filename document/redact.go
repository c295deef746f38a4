package document

import (
	"crypto/sha256"
	"fmt"

	"github.com/kong/go-kong/kong"
)

// RedactedValue replaces a secret in a redacted document: KIC's placeholder, a vault reference
// Kong would refuse to resolve, so a redacted dump can never be loaded by mistake.
const RedactedValue = "{vault://redacted-value}"

// Redacted returns a copy of d without the values that come from Secrets' private parts, as
// KIC redacts its config dumps unless --dump-sensitive-config: certificate private keys,
// basic-auth passwords, HMAC and JWT secrets and OAuth2 client secrets become RedactedValue;
// a key-auth key becomes a vault reference derived from its sha256, so that two dumps show
// whether a key changed without showing it. Everything else is shared with d, which is left
// unchanged.
func Redacted(d *Document) *Document {
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
		out.Consumers[i] = redactedConsumer(c)
	}
	if d.Certificates == nil {
		out.Certificates = nil
	}
	if d.Consumers == nil {
		out.Consumers = nil
	}
	return &out
}

// redactedConsumer copies a consumer with its credentials' secrets replaced (KIC keeps ACL
// groups and mTLS credentials, which hold no secret).
func redactedConsumer(c *Consumer) *Consumer {
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
		v.Secret = redactedIfSet(v.Secret) // "key" identifies the issuer; it is no secret
		return v
	})
	cp.KeyAuths = mapCopy(c.KeyAuths, func(v kong.KeyAuth) kong.KeyAuth {
		if v.Key != nil {
			sum := sha256.Sum256([]byte(*v.Key))
			v.Key = kong.String(fmt.Sprintf("{vault://%x}", sum[:16]))
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
