package kongdouble

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"math"
	"net"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
)

var (
	serviceProtocols    = []string{"grpc", "grpcs", "http", "https", "tcp", "tls", "tls_passthrough", "udp"}
	routeProtocols      = []string{"grpc", "grpcs", "http", "https", "tcp", "tls", "tls_passthrough", "udp", "ws", "wss"}
	streamProtocols     = []string{"tcp", "tls", "tls_passthrough", "udp"}
	algorithms          = []string{"consistent-hashing", "least-connections", "round-robin", "latency", "sticky-sessions"}
	algorithmsBefore311 = []string{"consistent-hashing", "least-connections", "round-robin", "latency"}
	hashOn              = []string{"none", "consumer", "ip", "header", "cookie", "path", "query_arg", "uri_capture"}
	redirectCodes       = []string{"426", "301", "302", "307", "308"}
	nameRE              = regexp.MustCompile(`^[\p{L}\p{N}.\-_~]+$`)
	hostnameRE          = regexp.MustCompile(`^(\*\.)?[A-Za-z0-9_]([A-Za-z0-9\-_]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9\-_]*[A-Za-z0-9_])?)*\.?$`)
)

func (e *entity) required(f string) {
	if v, ok := e.data[f]; !ok || v == nil {
		e.field(f, "required field missing")
	}
}

func (e *entity) str(f string) (string, bool) {
	v, ok := e.data[f]
	if !ok {
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		e.field(f, "expected a string")
		return "", false
	}
	return s, true
}

// integer checks an optional integer field's range.
func (e *entity) integer(f string, min, max float64) {
	v, ok := e.data[f]
	if !ok {
		return
	}
	n, isNum := v.(float64)
	if !isNum || n != math.Trunc(n) {
		e.field(f, "expected an integer")
		return
	}
	if n < min || n > max {
		e.field(f, fmt.Sprintf("value should be between %.0f and %.0f", min, max))
	}
}

func (e *entity) boolean(fields ...string) {
	for _, f := range fields {
		if v, ok := e.data[f]; ok {
			if _, isBool := v.(bool); !isBool {
				e.field(f, "expected a boolean")
			}
		}
	}
}

func (e *entity) oneOf(f string, allowed []string) {
	v, ok := e.data[f]
	if !ok {
		return
	}
	s := fmt.Sprint(v)
	if !contains(allowed, s) {
		e.field(f, "expected one of: "+strings.Join(allowed, ", "))
	}
}

func (e *entity) utf8Name() {
	if s, ok := e.data["name"].(string); ok && s != "" && !nameRE.MatchString(s) {
		e.field("name", fmt.Sprintf("invalid value '%s': it must only contain alphanumeric and '., -, _, ~' characters", s))
	}
}

func checkService(e *entity) {
	e.utf8Name()
	protocol, host, hasPath := "http", "", false
	if raw, ok := e.str("url"); ok {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			e.field("url", "missing host in url")
		} else {
			protocol, host, hasPath = u.Scheme, u.Hostname(), u.Path != ""
		}
	}
	if p, ok := e.str("protocol"); ok {
		protocol = p
		e.oneOf("protocol", serviceProtocols)
	}
	if h, ok := e.str("host"); ok {
		host = h
		if msg := checkHost(h); msg != "" && !strings.HasPrefix(msg, "invalid port") {
			e.field("host", "invalid value: "+h)
		} else if strings.Count(h, ":") == 1 {
			e.field("host", "must not have a port")
		}
	}
	if host == "" {
		e.field("host", "required field missing")
	}
	e.integer("port", 0, 65535)
	e.integer("retries", 0, 32767)
	for _, f := range []string{"connect_timeout", "read_timeout", "write_timeout"} {
		e.integer(f, 1, 2147483646)
	}
	e.integer("tls_verify_depth", 0, 64)
	e.boolean("tls_verify", "enabled")
	if p, ok := e.str("path"); ok {
		hasPath = true
		if !strings.HasPrefix(p, "/") {
			e.field("path", "should start with: /")
		}
	}
	if hasPath && contains(append([]string{"grpc", "grpcs"}, streamProtocols...), protocol) {
		e.field("path", "value must be null")
		e.entityErr("failed conditional validation given value of field 'protocol'")
	}
}

func checkRoute(e *entity) {
	e.utf8Name()
	protocols := []string{"http", "https"}
	if v, ok := e.data["protocols"]; ok {
		list, isList := v.([]any)
		if !isList {
			e.field("protocols", "expected a set")
		}
		protocols = nil
		for _, p := range list {
			s := fmt.Sprint(p)
			if !contains(routeProtocols, s) {
				e.field("protocols", "unknown type: "+s)
				return
			}
			protocols = append(protocols, s)
		}
	}
	e.routePaths()
	e.routeHosts()
	e.oneOf("https_redirect_status_code", redirectCodes)
	e.oneOf("path_handling", []string{"v0", "v1"})
	e.integer("regex_priority", -9007199254740992, 9007199254740992)
	e.boolean("strip_path", "preserve_host", "request_buffering", "response_buffering")
	if e.routeFlavor(protocols) {
		return
	}
	has := func(fields ...string) bool {
		for _, f := range fields {
			if l, ok := e.data[f].([]any); ok && len(l) > 0 {
				return true
			}
			if m, ok := e.data[f].(map[string]any); ok && len(m) > 0 {
				return true
			}
		}
		return false
	}
	switch {
	case contains(protocols, "http") || contains(protocols, "https"):
		// Kong's http subschema: snis count only when https is among the protocols.
		p, fields := "https", []string{"methods", "hosts", "headers", "paths", "snis"}
		if !contains(protocols, "https") {
			p, fields = "http", fields[:4]
		}
		if !has(fields...) {
			e.entityErr(fmt.Sprintf("must set one of %s when 'protocols' is '%s'", e.v.mustSetList(fields...), p))
		}
	case len(protocols) > 0 && contains(streamProtocols, protocols[0]):
		if !has("sources", "destinations", "snis") {
			e.entityErr("must set one of " + e.v.mustSetList("sources", "destinations", "snis") +
				" when 'protocols' is 'tcp', 'tls' or 'udp'")
		}
	}
}

// routePaths applies Kong's router_path rules to each path.
func (e *entity) routePaths() {
	v, ok := e.data["paths"]
	if !ok {
		return
	}
	list, isList := v.([]any)
	if !isList {
		e.field("paths", "expected a set")
		return
	}
	for i, p := range list {
		f := fmt.Sprintf("paths.%d", i+1)
		s, isStr := p.(string)
		switch {
		case !isStr:
			e.field(f, "expected a string")
		case !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "~/"):
			e.field(f, "should start with: / (fixed path) or ~/ (regex path)")
		case strings.Contains(s, "//"):
			e.field(f, "must not have empty segments")
		case strings.HasPrefix(s, "~"):
			if err := checkRegex(s[1:]); err != nil {
				e.field(f, fmt.Sprintf("invalid regex: '%s' (PCRE returned: %s)", s[1:], err))
			}
		default:
			if n := normalizePath(s); n != s {
				e.field(f, fmt.Sprintf("non-normalized path, consider use '%s' instead", n))
			}
		}
	}
}

// routeHosts applies Kong's typedefs.hosts: at most one wildcard, as the leftmost or rightmost
// label, and otherwise a hostname (or IP) with an optional port.
func (e *entity) routeHosts() {
	list, ok := e.data["hosts"].([]any)
	if !ok {
		return
	}
	for i, h := range list {
		f := fmt.Sprintf("hosts.%d", i+1)
		s, isStr := h.(string)
		switch {
		case !isStr:
			e.field(f, "expected a string")
		case strings.Count(s, "*") > 1:
			e.field(f, "invalid wildcard: must have at most one wildcard")
		case strings.Contains(s, "*") && !strings.HasPrefix(s, "*.") && !strings.HasSuffix(s, ".*"):
			e.field(f, "invalid wildcard: must be placed at leftmost or rightmost label")
		default:
			if msg := checkHost(strings.Replace(s, "*", "abc", 1)); msg != "" {
				e.field(f, msg)
			}
		}
	}
}

var hostChars = regexp.MustCompile(`^[0-9A-Za-z\-._]+$`)

// checkHost is Kong's normalize_ip for a host with an optional port; "" when valid.
func checkHost(h string) string {
	if strings.Count(h, ":") > 1 || strings.HasPrefix(h, "[") {
		host := h
		if hh, _, err := net.SplitHostPort(h); err == nil {
			host = hh
		}
		if net.ParseIP(strings.Trim(host, "[]")) == nil {
			return "invalid ipv6 address: " + h
		}
		return ""
	}
	name := h
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		port, err := strconv.Atoi(h[i+1:])
		if err != nil {
			return "invalid hostname: " + h
		}
		if port > 65535 {
			return "invalid port number"
		}
		name = h[:i]
	}
	if !hostChars.MatchString(name) {
		return "invalid hostname: " + h
	}
	segs := strings.Split(name, ".")
	for i, seg := range segs {
		if strings.HasSuffix(seg, "-") || seg == "" && i != len(segs)-1 {
			return "invalid hostname: " + h
		}
	}
	return ""
}

// normalizePath resolves dot segments, keeping a trailing slash.
func normalizePath(p string) string {
	hasDot := false
	for _, seg := range strings.Split(p, "/") {
		hasDot = hasDot || seg == "." || seg == ".."
	}
	if !hasDot {
		return p
	}
	n := path.Clean(p)
	if strings.HasSuffix(p, "/") && n != "/" {
		n += "/"
	}
	return n
}

func checkPlugin(e *entity) {
	e.required("name")
	if n, ok := e.str("name"); ok && n != "" && !e.v.plugins[n] {
		e.field("name", fmt.Sprintf("plugin '%s' not enabled; add it to the 'plugins' configuration property", n))
	}
	if c, ok := e.data["config"]; ok {
		if _, isMap := c.(map[string]any); !isMap {
			e.field("config", "expected a record")
		}
	}
	e.boolean("enabled")
}

func checkUpstream(e *entity) {
	e.required("name")
	if n, ok := e.str("name"); ok && n != "" && !hostnameRE.MatchString(n) {
		e.field("name", fmt.Sprintf("Invalid name ('%s'); must be a valid hostname", n))
	}
	if e.v.sticky {
		e.oneOf("algorithm", algorithms)
	} else {
		e.oneOf("algorithm", algorithmsBefore311)
		for _, f := range []string{"sticky_sessions_cookie", "sticky_sessions_cookie_path"} {
			if _, ok := e.data[f]; ok {
				e.field(f, "unknown field")
			}
		}
	}
	e.oneOf("hash_on", hashOn)
	e.oneOf("hash_fallback", hashOn)
	e.integer("slots", 10, 65536)
	e.str("host_header")
	e.boolean("use_srv_name")
	hc, ok := e.data["healthchecks"].(map[string]any)
	if !ok {
		return
	}
	if active, ok := hc["active"].(map[string]any); ok {
		sub := &entity{v: e.v, typ: e.typ, data: active}
		sub.integer("concurrency", 1, 2147483648)
		sub.oneOf("type", []string{"tcp", "http", "https", "grpc", "grpcs"})
		for _, fe := range sub.errs {
			e.field("healthchecks.active."+fe.Field, fe.Message)
		}
	}
}

func checkTarget(e *entity) {
	e.required("target")
	e.integer("weight", 0, 65535)
	t, ok := e.str("target")
	if !ok {
		return
	}
	norm, valid := normalizeTarget(t)
	if !valid {
		e.field("target", fmt.Sprintf("Invalid target ('%s'); not a valid hostname or ip address", t))
		return
	}
	if e.parent != nil {
		up := validID(e.parent.data["id"])
		if up == "" {
			up, _ = e.parent.data["name"].(string)
		}
		e.genID = nameUUID(up + "|" + norm)
	} else if u, ok := e.data["upstream"].(map[string]any); ok {
		e.genID = nameUUID(fmt.Sprint(u["id"], u["name"]) + "|" + norm)
	}
}

// normalizeTarget validates host[:port] and adds Kong's default port 8000.
func normalizeTarget(t string) (string, bool) {
	host, port := t, "8000"
	if h, p, err := net.SplitHostPort(t); err == nil {
		host, port = h, p
	} else if strings.Count(t, ":") == 1 {
		return "", false
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", false
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if ip == nil && !hostnameRE.MatchString(host) {
		return "", false
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port), true
}

func checkCertificate(e *entity) {
	cert, key := e.pem("cert", "invalid certificate"), e.pem("key", "invalid key")
	if cert == nil || key == nil {
		return
	}
	if _, err := tls.X509KeyPair(cert, key); err != nil {
		e.entityErr("certificate does not match key")
	}
}

func checkCACertificate(e *entity) {
	if b := e.pem("cert", "invalid certificate"); b != nil {
		blk, _ := pem.Decode(b)
		if c, err := x509.ParseCertificate(blk.Bytes); err == nil && !c.IsCA {
			e.field("cert", `certificate does not appear to be a CA because it is missing the "CA" basic constraint`)
		}
	}
}

// pem checks that field holds a parsable certificate ("cert") or private key ("key").
func (e *entity) pem(field, what string) []byte {
	e.required(field)
	s, ok := e.str(field)
	if !ok {
		return nil
	}
	if s == "" {
		e.field(field, "length must be at least 1")
		return nil
	}
	blk, _ := pem.Decode([]byte(s))
	if blk == nil {
		e.field(field, what+": no PEM block found")
		return nil
	}
	var err error
	if strings.Contains(blk.Type, "CERTIFICATE") {
		_, err = x509.ParseCertificate(blk.Bytes)
	} else if _, err = x509.ParsePKCS8PrivateKey(blk.Bytes); err != nil {
		if _, err = x509.ParsePKCS1PrivateKey(blk.Bytes); err != nil {
			_, err = x509.ParseECPrivateKey(blk.Bytes)
		}
	}
	if err != nil {
		e.field(field, what+": "+err.Error())
		return nil
	}
	return []byte(s)
}

// checkSNI applies Kong's typedefs.wildcard_host to an SNI name.
func checkSNI(e *entity) {
	e.required("name")
	n, ok := e.str("name")
	if !ok || n == "" {
		return
	}
	host := n
	if i := strings.IndexByte(n, '*'); i >= 0 {
		switch {
		case i != 0 && i != len(n)-1:
			e.field("name", "wildcard must be leftmost or rightmost character")
			return
		case strings.Count(n, "*") > 1:
			e.field("name", "only one wildcard must be specified")
			return
		}
		host = strings.Replace(n, "*", "wildcard", 1)
	}
	switch msg := checkHost(host); {
	case msg != "" && msg != "invalid port number":
		e.field("name", "invalid value: "+host)
	case net.ParseIP(host) != nil:
		e.field("name", "must not be an IP")
	case msg != "" || strings.Contains(host, ":"):
		e.field("name", "must not have a port")
	}
}

func checkConsumer(e *entity) {
	u, _ := e.data["username"].(string)
	c, _ := e.data["custom_id"].(string)
	e.str("username")
	e.str("custom_id")
	if u == "" && c == "" {
		e.entityErr("at least one of these fields must be non-empty: 'custom_id', 'username'")
	}
}
