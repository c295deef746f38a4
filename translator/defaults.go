package translator

import (
	"maps"
	"slices"
	"strings"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
)

// Kong service defaults KIC sets on every service it generates.
const (
	defaultTimeout  = 60000
	defaultRetries  = 5
	defaultProtocol = "http"
)

// defaultValues are the pointers every generated entity shares for KIC's default field values,
// so that 10,000 routes do not allocate 70,000 copies of false, true, 0 and "v0". Entities are
// never mutated after translation, so sharing is safe; a field override replaces the pointer.
type defaultValues struct {
	yes, no                         *bool
	zero, code426, timeout, retries *int
	v0, http, slash, roundRobin     *string
	ports                           map[int32]*int // service ports, shared by number
	// Gateway API route protocols, by the parent listeners' protocols (gwhttp.go).
	protoHTTP, protoHTTPS, protoBoth []*string
}

// port returns the shared pointer to port number n. A Cache's translations share the map, one
// at a time (Cache serializes them).
func (d *defaultValues) port(n int32) *int {
	p, ok := d.ports[n]
	if !ok {
		p = kong.Int(int(n))
		d.ports[n] = p
	}
	return p
}

// fork is a copy for a worker of a parallel build: the same shared values, and a ports map of
// its own, which port writes (a port's pointer may then differ between workers; its value not).
func (d *defaultValues) fork() *defaultValues {
	c := *d
	c.ports = maps.Clone(d.ports)
	return &c
}

func newDefaultValues() defaultValues {
	return defaultValues{
		yes: kong.Bool(true), no: kong.Bool(false),
		zero: kong.Int(0), code426: kong.Int(426), timeout: kong.Int(defaultTimeout), retries: kong.Int(defaultRetries),
		v0: kong.String("v0"), http: kong.String(defaultProtocol), slash: kong.String("/"), roundRobin: kong.String("round-robin"),
		ports:     map[int32]*int{},
		protoHTTP: kong.StringSlice("http"), protoHTTPS: kong.StringSlice("https"), protoBoth: kong.StringSlice("http", "https"),
	}
}

// sortRoutes orders routes by name, descending, as sortDocument does; sorted input is left
// untouched, so routes shared with earlier results are never written.
func sortRoutes(rs []*document.Route) {
	cmp := func(a, b *document.Route) int { return strings.Compare(*b.Name, *a.Name) }
	if !slices.IsSortedFunc(rs, cmp) {
		slices.SortStableFunc(rs, cmp)
	}
}

const (
	// kongRegexPrefix makes Kong 3.x read a route path as a regular expression.
	kongRegexPrefix = "~"
	// defaultRegexMarker is the prefix by which an Ingress path asks for a regex (KIC's "/~");
	// konghq.com/regex-prefix replaces it per Ingress.
	defaultRegexMarker = "/~"
)
