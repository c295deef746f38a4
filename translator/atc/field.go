package atc

import (
	"strconv"
	"strings"
)

// Field is the left side of a predicate: a field of Kong's router schema such as http.path,
// possibly wrapped in transformations (`lower(http.path)`), written as it appears in an
// expression.
type Field string

// The fields of Kong's router schema (kong/router/fields.lua). The HTTP schema has all of
// them; the stream schema (tcp, tls, udp and tls_passthrough routes) only net.* and tls.sni.
const (
	FieldNetProtocol         Field = "net.protocol"
	FieldTLSSNI              Field = "tls.sni"
	FieldHTTPMethod          Field = "http.method"
	FieldHTTPHost            Field = "http.host"
	FieldHTTPPath            Field = "http.path"
	FieldHTTPPathSegmentsLen Field = "http.path.segments.len"
	FieldNetSrcIP            Field = "net.src.ip"
	FieldNetDstIP            Field = "net.dst.ip"
	FieldNetSrcPort          Field = "net.src.port"
	FieldNetDstPort          Field = "net.dst.port"
)

const (
	headerPrefix                  = "http.headers."
	queryPrefix                   = "http.queries."
	pathSegmentPrefix             = "http.path.segments."
	transformLower                = "lower"
	transformAny                  = "any"
	errUnknownField               = "Unknown LHS field"
	errIllformedPathSegmentsField = "illformed http.path.segments.* field"
)

// HeaderField is the field of an HTTP request header, named as KIC names it: lowercased, with
// every '-' turned into '_' (Kong exposes headers under that normalised name).
func HeaderField(name string) Field {
	return Field(headerPrefix + strings.ToLower(strings.ReplaceAll(name, "-", "_")))
}

// QueryField is the field of a query parameter; the name is kept as it is, as KIC keeps it.
func QueryField(name string) Field { return Field(queryPrefix + name) }

// PathSegmentField is one segment of the request path, counted from 0.
func PathSegmentField(index int) Field {
	return Field(pathSegmentPrefix + strconv.Itoa(index))
}

// PathSegmentRangeField is the segments start through end of the request path, joined by '/'.
func PathSegmentRangeField(start, end int) Field {
	return Field(pathSegmentPrefix + strconv.Itoa(start) + "_" + strconv.Itoa(end))
}

// Lower is the field's value lowercased before it is compared (Kong's lower() transformation;
// strings only).
func Lower(f Field) Field { return Field(transformLower + "(" + string(f) + ")") }

// Any makes a multi-valued field (a header or query parameter given several times) match when
// any of its values matches (Kong's any() transformation).
func Any(f Field) Field { return Field(transformAny + "(" + string(f) + ")") }

// unwrap splits a field into the schema field it reads and whether lower() applies to it. ok is
// false when the text is not an identifier inside known transformations.
func (f Field) unwrap() (name string, lower, ok bool) {
	s := string(f)
	for depth := 0; depth <= MaxDepth; depth++ {
		open := strings.IndexByte(s, '(')
		if open < 0 {
			return s, lower, isIdent(s)
		}
		fn := s[:open]
		if !strings.HasSuffix(s, ")") || (fn != transformLower && fn != transformAny) {
			return "", false, false
		}
		lower = lower || fn == transformLower
		s = s[open+1 : len(s)-1]
	}
	return "", false, false
}

// isIdent reports whether s is an identifier of Kong's grammar: an ASCII letter, then ASCII
// letters, digits, '_' and '.'.
func isIdent(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentByte(c byte) bool { return isAlpha(c) || isDigit(c) || c == '_' || c == '.' }

// Schema is one of the two field schemas Kong validates route expressions against, chosen by
// the route's first protocol.
type Schema int

// Kong's two schemas: HTTP (http, https, grpc, grpcs routes) and stream (tcp, tls, udp,
// tls_passthrough).
const (
	SchemaHTTP Schema = iota
	SchemaStream
)

// SchemaFor is the schema Kong validates a route's expression against, from the route's first
// protocol; ok is false for a protocol Kong's routes do not have.
func SchemaFor(protocol string) (s Schema, ok bool) {
	switch protocol {
	case "http", "https", "grpc", "grpcs":
		return SchemaHTTP, true
	case "tcp", "tls", "udp", "tls_passthrough":
		return SchemaStream, true
	}
	return SchemaHTTP, false
}

// TypeOf is the type of a schema field (no transformations), found as atc-router finds it: the
// name itself, else the name with its last dot-separated part replaced by '*'
// (http.headers.x_foo is http.headers.*, but http.headers.a.b is unknown).
func (s Schema) TypeOf(name string) (Type, bool) {
	if t, ok := s.exact(name); ok {
		return t, true
	}
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 || s != SchemaHTTP {
		return 0, false
	}
	switch name[:dot+1] {
	case headerPrefix, queryPrefix, pathSegmentPrefix:
		return TypeString, true
	}
	return 0, false
}

func (s Schema) exact(name string) (Type, bool) {
	switch Field(name) {
	case FieldNetProtocol, FieldTLSSNI:
		return TypeString, true
	case FieldNetSrcPort, FieldNetDstPort:
		return TypeInt, true
	case FieldNetSrcIP, FieldNetDstIP:
		return TypeIPAddr, true
	}
	if s != SchemaHTTP {
		return 0, false
	}
	switch Field(name) {
	case FieldHTTPMethod, FieldHTTPHost, FieldHTTPPath:
		return TypeString, true
	case FieldHTTPPathSegmentsLen:
		return TypeInt, true
	}
	return 0, false
}
