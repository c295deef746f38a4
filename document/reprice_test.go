package document

import (
	"fmt"
	"testing"

	"github.com/kong/go-kong/kong"
)

// prioDoc is bigDoc under the expressions router: every service with two routes of their own
// priorities, one of them with a name that escaping lengthens.
func prioDoc(n int) *Document {
	d := bigDoc(n)
	for i, s := range d.Services {
		r2 := &Route{Route: kong.Route{Name: kong.String(fmt.Sprintf("r\"%d", i)), Expression: kong.String(`http.path ^= "/"`)}}
		s.Routes = append(s.Routes, r2)
		for k, r := range s.Routes {
			r.Priority = kong.Uint64(uint64(1000*i + k))
		}
	}
	return d
}

// reprice replaces services [from, to) by copies whose routes have priority prio (plus the
// route's index), as the translator's re-prioritising does; edit may change more of the copy.
func reprice(d *Document, from, to int, prio uint64, edit func(s *Service, r *Route)) {
	for i := from; i < to; i++ {
		s := *d.Services[i]
		s.Routes = make([]*Route, len(s.Routes))
		for k, r := range d.Services[i].Routes {
			c := *r
			c.Priority = kong.Uint64(prio + uint64(k))
			s.Routes[k] = &c
			if edit != nil {
				edit(&s, &c)
			}
		}
		d.Services[i] = &s
	}
}

// TestJSONCacheReprices moves the priorities of many services, by copies that differ from the
// services they replace only there (written from the previous bytes) or also elsewhere
// (encoded): the bytes and hash must be JSON's and Hash's whichever way each was written.
func TestJSONCacheReprices(t *testing.T) {
	c := NewJSONCache()
	d := prioDoc(3000)
	checkEncode(t, c, d, "cold")
	steps := []struct {
		what            string
		from, to        int
		prio            uint64
		edit            func(s *Service, r *Route)
		repricedAtMost  int
		repricedAtLeast int
	}{
		{"priorities moved", 10, 2500, 7, nil, 2490, 2490},
		{"more digits", 0, 3000, 1 << 50, nil, 3000, 3000},
		{"fewer digits, few services", 100, 110, 3, nil, 10, 10},
		{"a route's name too", 10, 2500, 9, func(_ *Service, r *Route) { r.Name = kong.String("other") }, 0, 0},
		{"the service's port too", 10, 2500, 11, func(s *Service, _ *Route) { s.Port = kong.Int(8) }, 0, 0},
		{"a route without priority", 10, 2500, 13, func(_ *Service, r *Route) { r.Priority = nil }, 0, 0},
		{"priorities back", 10, 2500, 15, nil, 0, 0}, // the services replaced have a route without one
		{"priorities moved again", 10, 2500, 17, nil, 2490, 2490},
	}
	for _, st := range steps {
		reprice(d, st.from, st.to, st.prio, st.edit)
		checkEncode(t, c, d, st.what)
		if c.repriced < st.repricedAtLeast || c.repriced > st.repricedAtMost {
			t.Errorf("%s: %d services written from the previous bytes, want %d to %d", st.what, c.repriced,
				st.repricedAtLeast, st.repricedAtMost)
		}
	}
	d.Services = append(d.Services[:5], d.Services[6:]...) // every later service moves up one
	reprice(d, 10, 2500, 19, nil)
	checkEncode(t, c, d, "a service removed")
}
