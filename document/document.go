// Package document is the Kong declarative configuration (format 3.0) that the translator
// produces and the sync loop posts: a thin layer over go-kong's entity types that adds decK's
// nesting (routes in services, targets in upstreams, SNIs in certificates) and a canonical
// encoding, so that the same document always gives the same bytes and the same hash.
package document

import (
	"github.com/kong/go-kong/kong"
)

// FormatVersion is the declarative format kongsync emits.
const FormatVersion = "3.0"

// Document is one complete Kong declarative configuration. Every list is sorted by the
// translator; encoders never reorder.
type Document struct {
	FormatVersion  string                `json:"_format_version"`
	CACertificates []*kong.CACertificate `json:"ca_certificates,omitempty"`
	Certificates   []*Certificate        `json:"certificates,omitempty"`
	// ConsumerGroupConsumers are the memberships, as DB-less Kong takes them (KIC converts
	// decK's consumer "groups" into this list before posting).
	ConsumerGroupConsumers []*ConsumerGroupConsumer `json:"consumer_group_consumers,omitempty"`
	ConsumerGroups         []*kong.ConsumerGroup    `json:"consumer_groups,omitempty"`
	Consumers              []*Consumer              `json:"consumers,omitempty"`
	// Licenses are Kong Enterprise licenses (KongLicense): at most one, as KIC sends. Their
	// payload is a secret (secretFields).
	Licenses  []*kong.License `json:"licenses,omitempty"`
	Plugins   []*Plugin       `json:"plugins,omitempty"`
	Services  []*Service      `json:"services,omitempty"`
	Upstreams []*Upstream     `json:"upstreams,omitempty"`
	// Vaults are Kong's secret stores, keyed by prefix (KongVault).
	Vaults []*kong.Vault `json:"vaults,omitempty"`
	// CustomEntities are the custom entities by type (KongCustomEntity), sorted by type; each
	// list is written as a top-level key of its own, in key order among the others (custom.go).
	CustomEntities []*CustomEntities `json:"-"`
}

// Service is a Kong service with its routes and plugins nested, as decK's file format nests them.
type Service struct {
	kong.Service
	Routes  []*Route       `json:"routes,omitempty"`
	Plugins []*kong.Plugin `json:"plugins,omitempty"`
}

// Route is a Kong route with its plugins nested.
type Route struct {
	kong.Route
	Plugins []*kong.Plugin `json:"plugins,omitempty"`
}

// Upstream is a Kong upstream with its targets nested.
type Upstream struct {
	kong.Upstream
	Targets []*kong.Target `json:"targets,omitempty"`
}

// Certificate is a Kong certificate with SNI objects nested (decK's shape: each SNI names its
// certificate by id), which go-kong's Certificate, with SNIs as plain strings, cannot express.
type Certificate struct {
	ID   *string   `json:"id,omitempty"`
	Cert *string   `json:"cert,omitempty"`
	Key  *string   `json:"key,omitempty"`
	SNIs []*SNI    `json:"snis,omitempty"`
	Tags []*string `json:"tags,omitempty"`
}

// SNI is a server name bound to a certificate.
type SNI struct {
	Name        *string         `json:"name,omitempty"`
	Certificate *CertificateRef `json:"certificate,omitempty"`
	Tags        []*string       `json:"tags,omitempty"`
}

// CertificateRef points at a certificate by id.
type CertificateRef struct {
	ID *string `json:"id,omitempty"`
}

// Consumer is a Kong consumer with its plugins and credentials nested, under decK's file-format
// keys, because DB-less Kong takes credentials only inside their consumer in a declarative config.
type Consumer struct {
	kong.Consumer
	Plugins     []*kong.Plugin           `json:"plugins,omitempty"`
	ACLGroups   []*kong.ACLGroup         `json:"acls,omitempty"`
	BasicAuths  []*kong.BasicAuth        `json:"basicauth_credentials,omitempty"`
	HMACAuths   []*kong.HMACAuth         `json:"hmacauth_credentials,omitempty"`
	JWTAuths    []*kong.JWTAuth          `json:"jwt_secrets,omitempty"`
	KeyAuths    []*kong.KeyAuth          `json:"keyauth_credentials,omitempty"`
	MTLSAuths   []*kong.MTLSAuth         `json:"mtls_auth_credentials,omitempty"`
	Oauth2Creds []*kong.Oauth2Credential `json:"oauth2_credentials,omitempty"`
}

// ConsumerGroupConsumer puts a consumer (by username) in a consumer group (by name).
type ConsumerGroupConsumer struct {
	ConsumerGroup string `json:"consumer_group"`
	Consumer      string `json:"consumer"`
}

// New returns an empty document of the current format version.
func New() *Document { return &Document{FormatVersion: FormatVersion} }

// IsEmpty is Kong's test for an empty configuration: no entity of any type. The translator
// then adds a stub upstream (DB-less Kong does not report itself ready after an empty config),
// and the sync loop expects Kong's empty hash from a replica that loaded one.
func IsEmpty(d *Document) bool {
	return d == nil || len(d.CACertificates)+len(d.Certificates)+len(d.Consumers)+len(d.Plugins)+
		len(d.Services)+len(d.Upstreams)+len(d.ConsumerGroups)+len(d.ConsumerGroupConsumers)+len(d.Vaults)+len(d.Licenses)+customCount(d) == 0
}
