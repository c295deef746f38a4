package translator

import (
	"testing"

	"github.com/kong/go-kong/kong"
)

// TestIngressPriority checks KIC's priority layout of Ingress routes on hand-computed values:
// the regex-prefixed path of KIC's corpus (host, regex of 10 bytes) and the other shapes.
func TestIngressPriority(t *testing.T) {
	const kind = uint64(3) << 44
	is := pathAsWritten
	cases := []struct {
		name          string
		paths         []matchPath
		hosts         []string
		headers       int
		methods, snis bool
		want          uint64
	}{
		{"kic regex-prefixed-path", []matchPath{{kind: is, value: `/~/foo/\d{3}`}}, []string{"example.com"}, 0, false, false,
			kind + 2<<41 + 1<<32 + 1<<16 + 10},
		{"prefix without host", []matchPath{{kind: pathPrefix, value: "/foo"}}, nil, 0, false, false,
			kind + 1<<41 + 1<<16 + 5},
		{"prefix root and exact", []matchPath{{kind: pathPrefix, value: "/"}, {kind: pathExact, value: "/ab"}}, nil, 0, false, false,
			kind + 1<<41 + 1<<16 + 3},
		{"plain implementation-specific, wildcard host", []matchPath{{kind: is, value: "/static"}}, []string{"*.a.com", "b.com"}, 0, false, false,
			kind + 2<<41 + 7},
		{"everything", []matchPath{{kind: is, value: "/x"}}, []string{"a.com"}, 300, true, true,
			kind + 5<<41 + 255<<33 + 1<<32 + 2},
		{"path length capped", []matchPath{{kind: is, value: "/" + string(make([]byte, 70000))}}, nil, 0, false, false,
			kind + 1<<41 + 65535},
	}
	for _, c := range cases {
		rs := &routeSettings{regexMarker: defaultRegexMarker, opts: &routeOptions{hostHeaders: c.headers}}
		if c.methods {
			rs.opts.methods = kong.StringSlice("GET")
		}
		if c.snis {
			rs.opts.snis = kong.StringSlice("a.com")
		}
		var m routeMatch
		m.reset(dialectIngress, rs)
		m.hosts = kong.StringSlice(c.hosts...)
		m.paths = c.paths
		if got := m.priority(); got != c.want {
			t.Errorf("%s: priority %d, want %d", c.name, got, c.want)
		}
	}
}
