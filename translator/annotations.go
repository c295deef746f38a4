package translator

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Annotation keys KIC reads on Ingresses and Services.
const (
	annPrefix            = "konghq.com/"
	annIngressClass      = "kubernetes.io/ingress.class"
	annForceSSLRedirect  = "ingress.kubernetes.io/force-ssl-redirect"
	annServiceUpstream   = "ingress.kubernetes.io/service-upstream"
	annTags              = annPrefix + "tags"
	annPlugins           = annPrefix + "plugins"
	annStripPath         = annPrefix + "strip-path"
	annPreserveHost      = annPrefix + "preserve-host"
	annProtocols         = annPrefix + "protocols"
	annRedirectCode      = annPrefix + "https-redirect-status-code"
	annRegexPriority     = annPrefix + "regex-priority"
	annMethods           = annPrefix + "methods"
	annSNIs              = annPrefix + "snis"
	annHostAliases       = annPrefix + "host-aliases"
	annHeadersPrefix     = annPrefix + "headers."
	annHeadersSeparator  = annPrefix + "headers-separator"
	annPathHandling      = annPrefix + "path-handling"
	annRequestBuffering  = annPrefix + "request-buffering"
	annResponseBuffering = annPrefix + "response-buffering"
	annRegexPrefix       = annPrefix + "regex-prefix"
	annRewrite           = annPrefix + "rewrite"
	annProtocol          = annPrefix + "protocol"
	annPath              = annPrefix + "path"
	annConnectTimeout    = annPrefix + "connect-timeout"
	annReadTimeout       = annPrefix + "read-timeout"
	annWriteTimeout      = annPrefix + "write-timeout"
	annRetries           = annPrefix + "retries"
	annHostHeader        = annPrefix + "host-header"
	annTLSVerify         = annPrefix + "tls-verify"
	annTLSVerifyDepth    = annPrefix + "tls-verify-depth"
	annClientCert        = annPrefix + "client-cert"
	annCACertSecrets     = annPrefix + "ca-certificates-secrets"
	annCACertConfigMaps  = annPrefix + "ca-certificates-configmaps"
	annOverride          = annPrefix + "override"
	annUpstreamPolicy    = annPrefix + "upstream-policy"
)

// Limits Kong's schema puts on the numeric fields annotations set. KIC passes any integer on and
// lets Kong reject the whole configuration; kongsync rejects the annotation instead.
const (
	maxTimeout   = 2147483646
	maxRetries   = 32767
	maxVerifyDep = 64
)

var (
	// validMethod is KIC's check for an HTTP method: upper-case letters only.
	validMethod = regexp.MustCompile(`\A[A-Z]+\z`)
	// validSNI is KIC's hostname check for route SNIs (no wildcards).
	validSNI = regexp.MustCompile(`^([a-zA-Z0-9]+(-[a-zA-Z0-9]+)*)+(\.([a-zA-Z0-9]+(-[a-zA-Z0-9]+)*))*$`)
	// validHostAlias is KIC's hostname check for host aliases (leading or trailing wildcard).
	validHostAlias = regexp.MustCompile(`^(\*\.)?([a-zA-Z0-9]+(-[a-zA-Z0-9]+)*)+(\.([a-zA-Z0-9]+(-[a-zA-Z0-9]+)*))*?(\.\*)?$`)
)

// annotationField is the JSON path of an annotation, as problems name it.
func annotationField(key string) string { return "metadata.annotations[" + key + "]" }

// splitList splits a comma-separated annotation value, trimming spaces and dropping empty items,
// as KIC does for every list annotation.
func splitList(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	parts := strings.Split(v, ",")
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseStrictBool accepts "true" or "false" in any case: KIC's rule for strip-path and
// preserve-host.
func parseStrictBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("want true or false")
}

// parseLooseBool accepts what strconv.ParseBool accepts, in any case: KIC's rule for the
// buffering annotations and tls-verify.
func parseLooseBool(v string) (bool, error) {
	b, err := strconv.ParseBool(strings.ToLower(v))
	if err != nil {
		return false, fmt.Errorf("want a boolean")
	}
	return b, nil
}

// parseIntRange parses a decimal integer within [lo, hi].
func parseIntRange(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("want an integer")
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("want an integer from %d to %d", lo, hi)
	}
	return n, nil
}

// parseRedirectCode accepts the status codes Kong allows for https_redirect_status_code.
func parseRedirectCode(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("want one of 301, 302, 307, 308, 426")
	}
	switch n {
	case 301, 302, 307, 308, 426:
		return n, nil
	}
	return 0, fmt.Errorf("want one of 301, 302, 307, 308, 426")
}

// validProtocol is KIC's list of protocols a route or service annotation may name.
func validProtocol(p string) bool {
	switch p {
	case "http", "https", "grpc", "grpcs", "ws", "wss", "tls", "tcp", "tls_passthrough":
		return true
	}
	return false
}

// parseProtocols parses konghq.com/protocols: every item must be a known protocol.
func parseProtocols(v string) ([]string, error) {
	ps := splitList(v)
	for _, p := range ps {
		if !validProtocol(p) {
			return nil, fmt.Errorf("unknown protocol %s", quoteShort(p))
		}
	}
	for _, p := range ps {
		if !streamProtocol(p) {
			return ps, nil
		}
	}
	if len(ps) > 0 {
		return nil, fmt.Errorf("an Ingress route needs an HTTP, gRPC or WebSocket protocol (Kong rejects a route with only stream protocols and no sources, destinations or SNIs)")
	}
	return ps, nil
}

// streamProtocol reports the Kong protocols that route by connection, not by request.
func streamProtocol(p string) bool {
	return p == "tcp" || p == "tls" || p == "tls_passthrough" || p == "udp"
}

// parseMethods parses konghq.com/methods: items are upper-cased and must be letters only.
func parseMethods(v string) ([]string, error) {
	ms := splitList(v)
	for i, m := range ms {
		ms[i] = strings.ToUpper(m)
		if !validMethod.MatchString(ms[i]) {
			return nil, fmt.Errorf("invalid method %s", quoteShort(m))
		}
	}
	return ms, nil
}

// parseSNIs parses konghq.com/snis: items must be hostnames without wildcards. An empty value
// is valid and means "no SNI criteria".
func parseSNIs(v string) ([]string, error) {
	ss := splitList(v)
	for _, s := range ss {
		if !validSNI.MatchString(s) {
			return nil, fmt.Errorf("invalid SNI %s", quoteShort(s))
		}
	}
	return ss, nil
}

// parseHostAliases parses konghq.com/host-aliases: items must be hostnames, optionally with a
// leading or trailing wildcard label. A repeated alias is dropped here, once for every route
// (KIC skips it on each route, comparing it with every host before it).
func parseHostAliases(v string) ([]string, error) {
	hs := splitList(v)
	seen := make(map[string]bool, len(hs))
	out := hs[:0]
	for _, h := range hs {
		if !validHostAlias.MatchString(h) {
			return nil, fmt.Errorf("invalid host alias %s", quoteShort(h))
		}
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out, nil
}

// parsePathHandling accepts the two path_handling values Kong knows.
func parsePathHandling(v string) (string, error) {
	if v == "v0" || v == "v1" {
		return v, nil
	}
	return "", fmt.Errorf("want v0 or v1")
}

// splitHeaderValues splits one konghq.com/headers.<name> value by the separator, trimming
// spaces, as KIC does (empty items are kept: KIC keeps them too).
func splitHeaderValues(v, sep string) []string {
	parts := strings.Split(v, sep)
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// parseServicePath accepts a Kong service path: it must start with a slash.
func parseServicePath(v string) (string, error) {
	if !strings.HasPrefix(v, "/") {
		return "", fmt.Errorf("want a path starting with /")
	}
	return v, nil
}

// pluginRef is one konghq.com/plugins item: a KongPlugin name, with the namespace it is looked
// up in. remote marks the "namespace:name" form, which KIC allows only under a ReferenceGrant.
type pluginRef struct {
	namespace, name string
	remote          bool
}

// parsePluginRefs parses konghq.com/plugins of an object in namespace ns as KIC does: items
// split on commas, blank ones dropped, "namespace:name" when the item has a colon that is
// neither its first nor its last byte (an item with a colon there is dropped), spaces trimmed
// around each part.
func parsePluginRefs(v, ns string) []pluginRef {
	items := strings.Split(v, ",")
	out := make([]pluginRef, 0, len(items))
	for _, it := range items {
		if strings.TrimSpace(it) == "" {
			continue
		}
		i := strings.IndexByte(it, ':')
		switch {
		case i == 0 || i == len(it)-1:
			continue
		case i > 0:
			pns := strings.TrimSpace(it[:i])
			if pns == "" {
				out = append(out, pluginRef{namespace: ns, name: strings.TrimSpace(it[i+1:])})
				continue
			}
			out = append(out, pluginRef{namespace: pns, name: strings.TrimSpace(it[i+1:]), remote: true})
		default:
			out = append(out, pluginRef{namespace: ns, name: strings.TrimSpace(it)})
		}
	}
	return out
}
