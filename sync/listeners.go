package sync

import (
	"encoding/json"
	"slices"
	"strconv"
)

// KongListener is one of the ports a Kong replica listens on, as its GET / reports them
// (configuration.proxy_listeners and stream_listeners, from kong.conf's proxy_listen and
// stream_listen). The Gateway API status writer checks Gateway listeners against them, as KIC
// does (docs/gateway-api.md, "Status").
type KongListener struct {
	Port   int
	Stream bool // a stream_listen entry (TCP, UDP, TLS); else a proxy_listen one (HTTP, HTTPS)
	SSL    bool
	UDP    bool // stream only
}

// kongListeners reads the listeners of GET /'s configuration. Kong encodes an empty list as an
// empty object ({}, what stream_listen = off gives), which reads as none; an entry whose port
// does not read is skipped (Kong keeps the port as a string for a listen address given as a
// host name).
func kongListeners(proxy, stream json.RawMessage) []KongListener {
	var out []KongListener
	read := func(raw json.RawMessage, isStream bool) {
		var entries []struct {
			Port json.RawMessage `json:"port"`
			SSL  bool            `json:"ssl"`
			UDP  bool            `json:"udp"`
		}
		if json.Unmarshal(raw, &entries) != nil {
			return // {} or absent
		}
		for _, e := range entries {
			var port int
			if json.Unmarshal(e.Port, &port) != nil {
				var s string
				if json.Unmarshal(e.Port, &s) != nil {
					continue
				}
				p, err := strconv.Atoi(s)
				if err != nil {
					continue
				}
				port = p
			}
			if port <= 0 || port > 65535 {
				continue
			}
			out = append(out, KongListener{Port: port, Stream: isStream, SSL: e.SSL, UDP: isStream && e.UDP})
		}
	}
	read(proxy, false)
	read(stream, true)
	sortListeners(out)
	return slices.Compact(out)
}

func sortListeners(ls []KongListener) {
	slices.SortFunc(ls, func(a, b KongListener) int {
		switch {
		case a.Port != b.Port:
			return a.Port - b.Port
		case a.Stream != b.Stream:
			return boolInt(a.Stream) - boolInt(b.Stream)
		case a.SSL != b.SSL:
			return boolInt(a.SSL) - boolInt(b.SSL)
		}
		return boolInt(a.UDP) - boolInt(b.UDP)
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// commonListeners are the listeners every one of sets reports, sorted: a Gateway listener is
// usable only if every Kong replica serves its port.
func commonListeners(sets [][]KongListener) []KongListener {
	if len(sets) == 0 {
		return nil
	}
	out := slices.Clone(sets[0])
	for _, s := range sets[1:] {
		out = slices.DeleteFunc(out, func(l KongListener) bool { return !slices.Contains(s, l) })
	}
	return out
}

// KongListeners are the ports every Kong replica of the chosen router flavor listens on (its
// GET /), and whether they are known: every replica has answered GET / once. Replicas that
// disagree give the ports they all serve.
func (l *Loop) KongListeners() ([]KongListener, bool) {
	c := l.chosen.Load()
	if c == nil {
		return nil, false
	}
	return c.Listeners, true
}

// listenerNames are listeners as a log shows them: "8000/http", "8443/https", "9000/tcp",
// "9443/tls", "9999/udp".
func listenerNames(ls []KongListener) []string {
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		proto := "http"
		switch {
		case l.Stream && l.UDP:
			proto = "udp"
		case l.Stream && l.SSL:
			proto = "tls"
		case l.Stream:
			proto = "tcp"
		case l.SSL:
			proto = "https"
		}
		out = append(out, strconv.Itoa(l.Port)+"/"+proto)
	}
	return out
}
