package document

import (
	"encoding/binary"
	"strconv"
	"unsafe"

	"github.com/kong/go-kong/kong"
)

// appendFast appends the JSON of a Service, Upstream or Plugin list item without reflection:
// services and upstreams (with their routes and targets) are nearly all of a large config, and encoding/json spent
// most of document.JSON's time walking their pointer fields. The bytes are encoding/json's
// (HTML not escaped): fields in struct order, omitempty as encoding/json applies it, nested
// values this code does not special-case (plugins, healthchecks, CIDR ports, header maps,
// floats) encoded by encoding/json itself. TestFastJSONMatchesEncodingJSON fills every field of
// these types by reflection and compares, so a field added to go-kong or to this package's
// types fails the test until it is handled here. ok is false for other item types.
func appendFast(b []byte, item any) ([]byte, bool, error) {
	b, ok, _, err := appendFastPlain(b, item)
	return b, ok, err
}

// appendFastPlain is appendFast, also reporting whether every string was printable ASCII and
// nothing went through encoding/json: then the bytes hold nothing yamlUnsafe looks for.
//
// The buffer travels by value (b = f(b, …)), never through a pointer: an append that stores
// the grown slice into memory reached by pointer pays a write barrier while a GC cycle runs,
// which a large config's encoding mostly overlaps.
func appendFastPlain(b []byte, item any) (out []byte, ok, plain bool, err error) {
	var e fastState
	switch v := item.(type) {
	case *Service:
		if v == nil {
			return b, false, false, nil
		}
		b = appendService(b, &e, v)
	case *Upstream:
		if v == nil {
			return b, false, false, nil
		}
		b = appendUpstream(b, &e, v)
	case *Plugin:
		if v == nil {
			return b, false, false, nil
		}
		b = appendPlugin(b, &e, v)
	default:
		return b, false, false, nil
	}
	return b, true, !e.slow, e.err
}

// fastState is what an item's encoding notes besides its bytes: the first error, and whether
// any value went the slow way (escaped strings, encoding/json).
type fastState struct {
	err  error
	slow bool
	// prios, when marking, collects where each route's priority digits are, relative to
	// markAt (reprice.go); noPrio notes a route without one.
	marking bool
	noPrio  bool
	markAt  int
	prios   []int32
}

// field starts member key (quoted, with its colon: `"name":`) of the object opened at open.
func field(b []byte, open int, key string) []byte {
	if len(b) > open {
		b = append(b, ',')
	}
	return append(b, key...)
}

func str(b []byte, e *fastState, open int, key string, p *string) []byte {
	if p == nil {
		return b
	}
	return appendString(field(b, open, key), e, *p)
}

// appendString writes s as encoding/json does (HTML characters unescaped); strings with
// control or non-ASCII characters go through it.
func appendString(b []byte, e *fastState, s string) []byte {
	if plainString(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return appendSlow(b, e, s)
		}
	}
	// Printable ASCII with quotes or backslashes (every route expression): escaped here as
	// encoding/json escapes them, without its encoder.
	b = append(b, '"')
	last := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(append(b, s[last:i]...), '\\', c)
			last = i + 1
		}
	}
	b = append(b, s[last:]...)
	return append(b, '"')
}

// plainString reports whether s is printable ASCII without '"' and '\\': what encoding/json
// writes between quotes as it is. Eight bytes are tested at a time.
func plainString(s string) bool {
	bs := unsafe.Slice(unsafe.StringData(s), len(s))
	i := 0
	for ; i+8 <= len(bs); i += 8 {
		const ones, highs = 0x0101010101010101, 0x8080808080808080
		x := binary.LittleEndian.Uint64(bs[i:])
		q, bsl := x^(ones*'"'), x^(ones*'\\')
		// a byte < 0x20; a byte ≥ 0x7f; a zero byte in q or bsl (a '"' or '\\' in x)
		if ((x-ones*0x20)&^x|(x+ones)|x|(q-ones)&^q|(bsl-ones)&^bsl)&highs != 0 {
			return false
		}
	}
	for ; i < len(bs); i++ {
		if c := bs[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendSlow appends v as encoding/json encodes it (HTML unescaped).
func appendSlow(b []byte, e *fastState, v any) []byte {
	e.slow = true
	enc, err := marshalNoEscape(v)
	if err != nil && e.err == nil {
		e.err = err
	}
	return append(b, enc...)
}

func intField(b []byte, open int, key string, p *int) []byte {
	if p == nil {
		return b
	}
	return strconv.AppendInt(field(b, open, key), int64(*p), 10)
}

func int64Field(b []byte, open int, key string, p *int64) []byte {
	if p == nil {
		return b
	}
	return strconv.AppendInt(field(b, open, key), *p, 10)
}

func uint64Field(b []byte, open int, key string, p *uint64) []byte {
	if p == nil {
		return b
	}
	return strconv.AppendUint(field(b, open, key), *p, 10)
}

func boolField(b []byte, open int, key string, p *bool) []byte {
	if p == nil {
		return b
	}
	return strconv.AppendBool(field(b, open, key), *p)
}

func strs(b []byte, e *fastState, open int, key string, list []*string) []byte {
	if len(list) == 0 {
		return b
	}
	b = append(field(b, open, key), '[')
	for i, p := range list {
		if i > 0 {
			b = append(b, ',')
		}
		if p == nil {
			b = append(b, "null"...)
		} else {
			b = appendString(b, e, *p)
		}
	}
	return append(b, ']')
}

// other writes a field encoding/json encodes, unless it is empty (omitempty).
func other(b []byte, e *fastState, open int, key string, v any, empty bool) []byte {
	if empty {
		return b
	}
	return appendSlow(field(b, open, key), e, v)
}

// list writes a non-empty list of nested entities as the member key, omitted when empty
// (as encoding/json's omitempty does).
func list[T any](b []byte, e *fastState, open int, key string, items []T, write func([]byte, *fastState, T) []byte) []byte {
	if len(items) == 0 {
		return b
	}
	b = append(field(b, open, key), '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = write(b, e, it)
	}
	return append(b, ']')
}

// appendService mirrors Service.MarshalJSON: kong.Service's fields, routes, plugins, and the
// client certificate as its id after them (shadowing kong.Service's object form).
func appendService(b []byte, e *fastState, s *Service) []byte {
	b = append(b, '{')
	o := len(b)
	k := &s.Service
	b = intField(b, o, `"connect_timeout":`, k.ConnectTimeout)
	b = intField(b, o, `"created_at":`, k.CreatedAt)
	b = boolField(b, o, `"enabled":`, k.Enabled)
	b = str(b, e, o, `"host":`, k.Host)
	b = str(b, e, o, `"id":`, k.ID)
	b = str(b, e, o, `"name":`, k.Name)
	b = str(b, e, o, `"path":`, k.Path)
	b = intField(b, o, `"port":`, k.Port)
	b = str(b, e, o, `"protocol":`, k.Protocol)
	b = intField(b, o, `"read_timeout":`, k.ReadTimeout)
	b = intField(b, o, `"retries":`, k.Retries)
	b = intField(b, o, `"updated_at":`, k.UpdatedAt)
	b = str(b, e, o, `"url":`, k.URL)
	b = intField(b, o, `"write_timeout":`, k.WriteTimeout)
	b = strs(b, e, o, `"tags":`, k.Tags)
	b = other(b, e, o, `"tls_sans":`, k.TLSSANs, k.TLSSANs == nil)
	b = boolField(b, o, `"tls_verify":`, k.TLSVerify)
	b = intField(b, o, `"tls_verify_depth":`, k.TLSVerifyDepth)
	b = strs(b, e, o, `"ca_certificates":`, k.CACertificates)
	b = list(b, e, o, `"routes":`, s.Routes, appendRoute)
	b = other(b, e, o, `"plugins":`, s.Plugins, len(s.Plugins) == 0)
	if k.ClientCertificate != nil {
		b = str(b, e, o, `"client_certificate":`, k.ClientCertificate.ID)
	}
	return append(b, '}')
}

func appendRoute(b []byte, e *fastState, r *Route) []byte {
	if r == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	o := len(b)
	k := &r.Route
	b = intField(b, o, `"created_at":`, k.CreatedAt)
	b = str(b, e, o, `"expression":`, k.Expression)
	b = strs(b, e, o, `"hosts":`, k.Hosts)
	b = other(b, e, o, `"headers":`, k.Headers, len(k.Headers) == 0)
	b = str(b, e, o, `"id":`, k.ID)
	b = str(b, e, o, `"name":`, k.Name)
	b = strs(b, e, o, `"methods":`, k.Methods)
	b = strs(b, e, o, `"paths":`, k.Paths)
	b = str(b, e, o, `"path_handling":`, k.PathHandling)
	b = boolField(b, o, `"preserve_host":`, k.PreserveHost)
	at := len(b)
	b = uint64Field(b, o, `"priority":`, k.Priority)
	if e.marking {
		e.notePriority(b, at, k.Priority != nil)
	}
	b = strs(b, e, o, `"protocols":`, k.Protocols)
	b = intField(b, o, `"regex_priority":`, k.RegexPriority)
	b = other(b, e, o, `"service":`, k.Service, k.Service == nil)
	b = boolField(b, o, `"strip_path":`, k.StripPath)
	b = intField(b, o, `"updated_at":`, k.UpdatedAt)
	b = strs(b, e, o, `"snis":`, k.SNIs)
	b = other(b, e, o, `"sources":`, k.Sources, len(k.Sources) == 0)
	b = other(b, e, o, `"destinations":`, k.Destinations, len(k.Destinations) == 0)
	b = strs(b, e, o, `"tags":`, k.Tags)
	b = intField(b, o, `"https_redirect_status_code":`, k.HTTPSRedirectStatusCode)
	b = boolField(b, o, `"request_buffering":`, k.RequestBuffering)
	b = boolField(b, o, `"response_buffering":`, k.ResponseBuffering)
	b = other(b, e, o, `"plugins":`, r.Plugins, len(r.Plugins) == 0)
	return append(b, '}')
}

// appendPlugin mirrors Plugin.MarshalJSON: kong.Plugin's fields but its references, then the
// references as names (config, ordering, partials and model by encoding/json).
func appendPlugin(b []byte, e *fastState, p *Plugin) []byte {
	b = append(b, '{')
	o := len(b)
	k := &p.Plugin
	b = intField(b, o, `"created_at":`, k.CreatedAt)
	b = str(b, e, o, `"id":`, k.ID)
	b = str(b, e, o, `"name":`, k.Name)
	b = str(b, e, o, `"instance_name":`, k.InstanceName)
	b = other(b, e, o, `"config":`, k.Config, len(k.Config) == 0)
	b = boolField(b, o, `"enabled":`, k.Enabled)
	b = str(b, e, o, `"run_on":`, k.RunOn)
	b = str(b, e, o, `"condition":`, k.Condition)
	b = other(b, e, o, `"ordering":`, k.Ordering, k.Ordering == nil)
	b = strs(b, e, o, `"protocols":`, k.Protocols)
	b = strs(b, e, o, `"tags":`, k.Tags)
	b = other(b, e, o, `"partials":`, k.Partials, len(k.Partials) == 0)
	b = other(b, e, o, `"model":`, k.Model, k.Model == nil)
	if k.Consumer != nil {
		b = str(b, e, o, `"consumer":`, firstSet(k.Consumer.Username, k.Consumer.CustomID, k.Consumer.ID))
	}
	if k.ConsumerGroup != nil {
		b = str(b, e, o, `"consumer_group":`, firstSet(k.ConsumerGroup.Name, k.ConsumerGroup.ID))
	}
	if k.Route != nil {
		b = str(b, e, o, `"route":`, firstSet(k.Route.Name, k.Route.ID))
	}
	if k.Service != nil {
		b = str(b, e, o, `"service":`, firstSet(k.Service.Name, k.Service.ID))
	}
	return append(b, '}')
}

func appendUpstream(b []byte, e *fastState, u *Upstream) []byte {
	b = append(b, '{')
	o := len(b)
	k := &u.Upstream
	b = str(b, e, o, `"id":`, k.ID)
	b = str(b, e, o, `"name":`, k.Name)
	b = str(b, e, o, `"host_header":`, k.HostHeader)
	b = other(b, e, o, `"client_certificate":`, k.ClientCertificate, k.ClientCertificate == nil)
	b = str(b, e, o, `"algorithm":`, k.Algorithm)
	b = intField(b, o, `"slots":`, k.Slots)
	b = other(b, e, o, `"healthchecks":`, k.Healthchecks, k.Healthchecks == nil)
	b = int64Field(b, o, `"created_at":`, k.CreatedAt)
	b = str(b, e, o, `"hash_on":`, k.HashOn)
	b = str(b, e, o, `"hash_fallback":`, k.HashFallback)
	b = str(b, e, o, `"hash_on_header":`, k.HashOnHeader)
	b = str(b, e, o, `"hash_fallback_header":`, k.HashFallbackHeader)
	b = str(b, e, o, `"hash_on_cookie":`, k.HashOnCookie)
	b = str(b, e, o, `"hash_on_cookie_path":`, k.HashOnCookiePath)
	b = str(b, e, o, `"hash_on_query_arg":`, k.HashOnQueryArg)
	b = str(b, e, o, `"hash_fallback_query_arg":`, k.HashFallbackQueryArg)
	b = str(b, e, o, `"hash_on_uri_capture":`, k.HashOnURICapture)
	b = str(b, e, o, `"hash_fallback_uri_capture":`, k.HashFallbackURICapture)
	b = boolField(b, o, `"use_srv_name":`, k.UseSrvName)
	b = str(b, e, o, `"sticky_sessions_cookie":`, k.StickySessionsCookie)
	b = str(b, e, o, `"sticky_sessions_cookie_path":`, k.StickySessionsCookiePath)
	b = strs(b, e, o, `"tags":`, k.Tags)
	b = list(b, e, o, `"targets":`, u.Targets, appendTarget)
	return append(b, '}')
}

func appendTarget(b []byte, e *fastState, t *kong.Target) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	o := len(b)
	b = other(b, e, o, `"created_at":`, t.CreatedAt, t.CreatedAt == nil)
	b = str(b, e, o, `"id":`, t.ID)
	b = str(b, e, o, `"target":`, t.Target)
	b = other(b, e, o, `"upstream":`, t.Upstream, t.Upstream == nil)
	b = intField(b, o, `"weight":`, t.Weight)
	b = strs(b, e, o, `"tags":`, t.Tags)
	b = boolField(b, o, `"failover":`, t.Failover)
	return append(b, '}')
}
