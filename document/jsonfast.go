package document

import (
	"strconv"

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
	var w objWriter
	switch v := item.(type) {
	case *Service:
		if v == nil {
			return b, false, nil
		}
		w.b = b
		w.service(v)
	case *Upstream:
		if v == nil {
			return b, false, nil
		}
		w.b = b
		w.upstream(v)
	case *Plugin:
		if v == nil {
			return b, false, nil
		}
		w.b = b
		w.plugin(v)
	default:
		return b, false, nil
	}
	return w.b, true, w.err
}

// objWriter appends one JSON object's fields; the first error sticks.
type objWriter struct {
	b     []byte
	first bool
	err   error
}

func (w *objWriter) open()  { w.b, w.first = append(w.b, '{'), true }
func (w *objWriter) close() { w.b, w.first = append(w.b, '}'), false }

func (w *objWriter) name(n string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, '"')
	w.b = append(w.b, n...)
	w.b = append(w.b, '"', ':')
}

func (w *objWriter) str(n string, p *string) {
	if p != nil {
		w.name(n)
		w.b = w.appendString(w.b, *p)
	}
}

// appendString writes s as encoding/json does (HTML characters unescaped); strings with
// control or non-ASCII characters go through it.
func (w *objWriter) appendString(b []byte, s string) []byte {
	quotes := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			enc, err := marshalNoEscape(s)
			if err != nil && w.err == nil {
				w.err = err
			}
			return append(b, enc...)
		} else if c == '"' || c == '\\' {
			quotes = true
		}
	}
	b = append(b, '"')
	if !quotes {
		b = append(b, s...)
		return append(b, '"')
	}
	// Printable ASCII with quotes or backslashes (every route expression): escaped here as
	// encoding/json escapes them, without its encoder.
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

func (w *objWriter) int(n string, p *int) {
	if p != nil {
		w.name(n)
		w.b = strconv.AppendInt(w.b, int64(*p), 10)
	}
}

func (w *objWriter) int64(n string, p *int64) {
	if p != nil {
		w.name(n)
		w.b = strconv.AppendInt(w.b, *p, 10)
	}
}

func (w *objWriter) uint64(n string, p *uint64) {
	if p != nil {
		w.name(n)
		w.b = strconv.AppendUint(w.b, *p, 10)
	}
}

func (w *objWriter) bool(n string, p *bool) {
	if p != nil {
		w.name(n)
		w.b = strconv.AppendBool(w.b, *p)
	}
}

func (w *objWriter) strs(n string, list []*string) {
	if len(list) == 0 {
		return
	}
	w.name(n)
	w.b = append(w.b, '[')
	for i, p := range list {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		if p == nil {
			w.b = append(w.b, "null"...)
		} else {
			w.b = w.appendString(w.b, *p)
		}
	}
	w.b = append(w.b, ']')
}

// other writes a field encoding/json encodes, unless it is empty (omitempty).
func (w *objWriter) other(n string, v any, empty bool) {
	if empty {
		return
	}
	w.name(n)
	enc, err := marshalNoEscape(v)
	if err != nil && w.err == nil {
		w.err = err
	}
	w.b = append(w.b, enc...)
}

// service mirrors Service.MarshalJSON: kong.Service's fields, routes, plugins, and the client
// certificate as its id after them (shadowing kong.Service's object form).
// writeList writes a non-empty list of nested entities as the member n, omitted when empty
// (as encoding/json's omitempty does).
func writeList[T any](w *objWriter, n string, items []T, write func(T)) {
	if len(items) == 0 {
		return
	}
	w.name(n)
	w.b = append(w.b, '[')
	for i, it := range items {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		write(it)
	}
	w.b = append(w.b, ']')
}

func (w *objWriter) service(s *Service) {
	w.open()
	k := &s.Service
	w.int("connect_timeout", k.ConnectTimeout)
	w.int("created_at", k.CreatedAt)
	w.bool("enabled", k.Enabled)
	w.str("host", k.Host)
	w.str("id", k.ID)
	w.str("name", k.Name)
	w.str("path", k.Path)
	w.int("port", k.Port)
	w.str("protocol", k.Protocol)
	w.int("read_timeout", k.ReadTimeout)
	w.int("retries", k.Retries)
	w.int("updated_at", k.UpdatedAt)
	w.str("url", k.URL)
	w.int("write_timeout", k.WriteTimeout)
	w.strs("tags", k.Tags)
	w.other("tls_sans", k.TLSSANs, k.TLSSANs == nil)
	w.bool("tls_verify", k.TLSVerify)
	w.int("tls_verify_depth", k.TLSVerifyDepth)
	w.strs("ca_certificates", k.CACertificates)
	writeList(w, "routes", s.Routes, w.route)
	w.other("plugins", s.Plugins, len(s.Plugins) == 0)
	if k.ClientCertificate != nil {
		w.str("client_certificate", k.ClientCertificate.ID)
	}
	w.close()
}

func (w *objWriter) route(r *Route) {
	if r == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.open()
	k := &r.Route
	w.int("created_at", k.CreatedAt)
	w.str("expression", k.Expression)
	w.strs("hosts", k.Hosts)
	w.other("headers", k.Headers, len(k.Headers) == 0)
	w.str("id", k.ID)
	w.str("name", k.Name)
	w.strs("methods", k.Methods)
	w.strs("paths", k.Paths)
	w.str("path_handling", k.PathHandling)
	w.bool("preserve_host", k.PreserveHost)
	w.uint64("priority", k.Priority)
	w.strs("protocols", k.Protocols)
	w.int("regex_priority", k.RegexPriority)
	w.other("service", k.Service, k.Service == nil)
	w.bool("strip_path", k.StripPath)
	w.int("updated_at", k.UpdatedAt)
	w.strs("snis", k.SNIs)
	w.other("sources", k.Sources, len(k.Sources) == 0)
	w.other("destinations", k.Destinations, len(k.Destinations) == 0)
	w.strs("tags", k.Tags)
	w.int("https_redirect_status_code", k.HTTPSRedirectStatusCode)
	w.bool("request_buffering", k.RequestBuffering)
	w.bool("response_buffering", k.ResponseBuffering)
	w.other("plugins", r.Plugins, len(r.Plugins) == 0)
	w.close()
}

// plugin mirrors Plugin.MarshalJSON: kong.Plugin's fields but its references, then the
// references as names (config, ordering, partials and model by encoding/json).
func (w *objWriter) plugin(p *Plugin) {
	w.open()
	k := &p.Plugin
	w.int("created_at", k.CreatedAt)
	w.str("id", k.ID)
	w.str("name", k.Name)
	w.str("instance_name", k.InstanceName)
	w.other("config", k.Config, len(k.Config) == 0)
	w.bool("enabled", k.Enabled)
	w.str("run_on", k.RunOn)
	w.str("condition", k.Condition)
	w.other("ordering", k.Ordering, k.Ordering == nil)
	w.strs("protocols", k.Protocols)
	w.strs("tags", k.Tags)
	w.other("partials", k.Partials, len(k.Partials) == 0)
	w.other("model", k.Model, k.Model == nil)
	if k.Consumer != nil {
		w.str("consumer", firstSet(k.Consumer.Username, k.Consumer.CustomID, k.Consumer.ID))
	}
	if k.ConsumerGroup != nil {
		w.str("consumer_group", firstSet(k.ConsumerGroup.Name, k.ConsumerGroup.ID))
	}
	if k.Route != nil {
		w.str("route", firstSet(k.Route.Name, k.Route.ID))
	}
	if k.Service != nil {
		w.str("service", firstSet(k.Service.Name, k.Service.ID))
	}
	w.close()
}

func (w *objWriter) upstream(u *Upstream) {
	w.open()
	k := &u.Upstream
	w.str("id", k.ID)
	w.str("name", k.Name)
	w.str("host_header", k.HostHeader)
	w.other("client_certificate", k.ClientCertificate, k.ClientCertificate == nil)
	w.str("algorithm", k.Algorithm)
	w.int("slots", k.Slots)
	w.other("healthchecks", k.Healthchecks, k.Healthchecks == nil)
	w.int64("created_at", k.CreatedAt)
	w.str("hash_on", k.HashOn)
	w.str("hash_fallback", k.HashFallback)
	w.str("hash_on_header", k.HashOnHeader)
	w.str("hash_fallback_header", k.HashFallbackHeader)
	w.str("hash_on_cookie", k.HashOnCookie)
	w.str("hash_on_cookie_path", k.HashOnCookiePath)
	w.str("hash_on_query_arg", k.HashOnQueryArg)
	w.str("hash_fallback_query_arg", k.HashFallbackQueryArg)
	w.str("hash_on_uri_capture", k.HashOnURICapture)
	w.str("hash_fallback_uri_capture", k.HashFallbackURICapture)
	w.bool("use_srv_name", k.UseSrvName)
	w.str("sticky_sessions_cookie", k.StickySessionsCookie)
	w.str("sticky_sessions_cookie_path", k.StickySessionsCookiePath)
	w.strs("tags", k.Tags)
	writeList(w, "targets", u.Targets, w.target)
	w.close()
}

func (w *objWriter) target(t *kong.Target) {
	if t == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.open()
	w.other("created_at", t.CreatedAt, t.CreatedAt == nil)
	w.str("id", t.ID)
	w.str("target", t.Target)
	w.other("upstream", t.Upstream, t.Upstream == nil)
	w.int("weight", t.Weight)
	w.strs("tags", t.Tags)
	w.bool("failover", t.Failover)
	w.close()
}
