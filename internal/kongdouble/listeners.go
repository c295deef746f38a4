package kongdouble

import (
	"strconv"
	"strings"
)

// Listen is one entry of kong.conf's proxy_listen (HTTP, HTTPS) or stream_listen (TCP, UDP,
// TLS), as GET / reports it in configuration.proxy_listeners and stream_listeners.
type Listen struct {
	Port   int
	Stream bool // a stream_listen entry
	SSL    bool
	HTTP2  bool // proxy only
	UDP    bool // stream only
}

// DefaultListens are Kong's defaults: proxy_listen = 0.0.0.0:8000 reuseport backlog=16384,
// 0.0.0.0:8443 http2 ssl reuseport backlog=16384; stream_listen = off.
var DefaultListens = []Listen{{Port: 8000}, {Port: 8443, SSL: true, HTTP2: true}}

// SetListens changes the listeners GET / reports, as when Kong is restarted with another
// proxy_listen or stream_listen (nil: Kong's defaults; an empty non-nil list: both off).
func (s *Server) SetListens(ls []Listen) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Listens = ls
}

// listeners renders the listeners as Kong's GET / does: one object per entry with its address,
// port and flags; an empty list is an empty JSON object, as Lua's cjson encodes an empty table.
func (s *Server) listeners() (proxy, stream any) {
	s.mu.Lock()
	ls := s.opts.Listens
	s.mu.Unlock()
	if ls == nil {
		ls = DefaultListens
	}
	var p, st []map[string]any
	for _, l := range ls {
		var flags []string
		e := map[string]any{"ip": "0.0.0.0", "port": l.Port, "ssl": l.SSL, "proxy_protocol": false, "bind": false,
			"reuseport": true, "backlog=%d+": true}
		if l.Stream {
			e["udp"] = l.UDP
			if l.UDP {
				flags = append(flags, "udp")
			}
		} else {
			e["http2"], e["deferred"] = l.HTTP2, false
			if l.HTTP2 {
				flags = append(flags, "http2")
			}
		}
		if l.SSL {
			flags = append(flags, "ssl")
		}
		flags = append(flags, "reuseport", "backlog=16384")
		e["listener"] = "0.0.0.0:" + strconv.Itoa(l.Port) + " " + strings.Join(flags, " ")
		if l.Stream {
			st = append(st, e)
		} else {
			p = append(p, e)
		}
	}
	return emptyAsObject(p), emptyAsObject(st)
}

func emptyAsObject(l []map[string]any) any {
	if len(l) == 0 {
		return map[string]any{}
	}
	return l
}
