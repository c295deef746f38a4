package kongdouble

import "strings"

// schema is what the double knows of one Kong entity type (Kong 3.x, open-source).
type schema struct {
	fields   map[string]bool
	children map[string]string // nested collection → the foreign key its entities point back with
	unique   []string          // unique keys besides the primary key
	check    func(*entity)
}

func set(fields string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(fields) {
		m[f] = true
	}
	return m
}

// schemas is read-only after initialisation.
var schemas = map[string]*schema{
	"services": {
		fields: set(`id name host port protocol path retries connect_timeout read_timeout write_timeout
			tags client_certificate tls_verify tls_verify_depth ca_certificates enabled url created_at updated_at`),
		children: map[string]string{"routes": "service", "plugins": "service"},
		unique:   []string{"name"},
		check:    checkService,
	},
	"routes": {
		fields: set(`id name protocols methods hosts paths headers https_redirect_status_code regex_priority
			strip_path path_handling preserve_host request_buffering response_buffering snis sources
			destinations tags service expression priority created_at updated_at`),
		children: map[string]string{"plugins": "route"},
		unique:   []string{"name"},
		check:    checkRoute,
	},
	"plugins": {
		fields: set(`id name instance_name config protocols enabled tags route service consumer
			consumer_group ordering created_at updated_at`),
		unique: []string{"instance_name"},
		check:  checkPlugin,
	},
	"upstreams": {
		fields: set(`id name algorithm slots healthchecks hash_on hash_fallback hash_on_header
			hash_fallback_header hash_on_cookie hash_on_cookie_path hash_on_query_arg
			hash_fallback_query_arg hash_on_uri_capture hash_fallback_uri_capture host_header
			client_certificate use_srv_name tags sticky_sessions_cookie sticky_sessions_cookie_path
			created_at updated_at`),
		children: map[string]string{"targets": "upstream"},
		unique:   []string{"name"},
		check:    checkUpstream,
	},
	"targets": {
		fields: set(`id target upstream weight tags created_at updated_at`),
		check:  checkTarget,
	},
	"certificates": {
		fields:   set(`id cert key cert_alt key_alt tags created_at updated_at`),
		children: map[string]string{"snis": "certificate"},
		check:    checkCertificate,
	},
	"snis": {
		fields: set(`id name certificate tags created_at updated_at`),
		unique: []string{"name"},
		check:  checkSNI,
	},
	"ca_certificates": {
		fields: set(`id cert cert_digest tags created_at updated_at`),
		unique: []string{"cert_digest"},
		check:  checkCACertificate,
	},
	"consumers": {
		fields: set(`id username custom_id tags created_at updated_at`),
		children: map[string]string{"plugins": "consumer", "keyauth_credentials": "consumer",
			"basicauth_credentials": "consumer", "acls": "consumer", "jwt_secrets": "consumer",
			"hmacauth_credentials": "consumer", "oauth2_credentials": "consumer",
			"mtls_auth_credentials": "consumer"},
		unique: []string{"username", "custom_id"},
		check:  checkConsumer,
	},
	"keyauth_credentials": {
		fields: set(`id key ttl tags consumer created_at`), unique: []string{"key"},
	},
	"basicauth_credentials": {
		fields: set(`id username password tags consumer created_at`), unique: []string{"username"},
		check: func(e *entity) { e.required("username"); e.required("password") },
	},
	"acls": {
		fields: set(`id group tags consumer created_at`),
		check:  func(e *entity) { e.required("group") },
	},
	"jwt_secrets": {
		fields: set(`id key secret algorithm rsa_public_key tags consumer created_at`), unique: []string{"key"},
	},
	"oauth2_credentials": {
		fields: set(`id name client_id client_secret hash_secret redirect_uris client_type tags consumer created_at`),
		unique: []string{"client_id"},
		check:  func(e *entity) { e.required("name") },
	},
	// mtls-auth is an Enterprise plugin; accepted so that configs written for it load.
	"mtls_auth_credentials": {
		fields: set(`id subject_name ca_certificate tags consumer created_at`),
		check:  func(e *entity) { e.required("subject_name") },
	},
	// Consumer groups are Kong Enterprise entities (open-source Kong refuses these top-level
	// keys); accepted, like mtls-auth, so that configs written for them load.
	"consumer_groups": {
		fields: set(`id name tags created_at updated_at`), unique: []string{"name"},
		check: func(e *entity) { e.required("name") },
	},
	"consumer_group_consumers": {
		fields: set(`consumer_group consumer`),
		check:  func(e *entity) { e.required("consumer_group"); e.required("consumer") },
	},
	// Vaults are keyed by prefix (vaults.go).
	"vaults": {
		fields: set(`id prefix name description config tags created_at updated_at`), unique: []string{"prefix"},
		check: checkVault,
	},
	// Licenses are Kong Enterprise's only: validate refuses the key unless the double reports
	// an Enterprise version (Options.Version, e.g. "3.9.1.0-enterprise-edition").
	"licenses": {
		fields: set(`id payload created_at updated_at`),
		check:  func(e *entity) { e.required("payload") },
	},
	// The degraphql plugin's entities (Kong Enterprise): accepted only while the plugin is enabled
	// on the node (customentities.go).
	"degraphql_routes": {
		fields: set(`id service methods uri query created_at updated_at`),
		check:  checkDegraphqlRoute,
	},
	"hmacauth_credentials": {
		fields: set(`id username secret tags consumer created_at`), unique: []string{"username"},
		check: func(e *entity) { e.required("username") },
	},
}

// BundledPlugins are the plugins Kong 3.x ships, the default of Options.Plugins.
var BundledPlugins = strings.Fields(`jwt acl correlation-id cors oauth2 tcp-log udp-log file-log
	http-log key-auth hmac-auth basic-auth ip-restriction request-transformer response-transformer
	request-size-limiting rate-limiting response-ratelimiting syslog loggly datadog ldap-auth statsd
	bot-detection aws-lambda request-termination prometheus proxy-cache session acme grpc-gateway
	grpc-web pre-function post-function azure-functions zipkin opentelemetry ai-proxy
	ai-prompt-decorator ai-prompt-template ai-prompt-guard ai-request-transformer
	ai-response-transformer standard-webhooks redirect`)
