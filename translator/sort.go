package translator

import (
	"sort"
	"strings"

	"github.com/kongsync/kongsync/document"
)

// sortDocument orders every list the way KIC's deckgen does: services, routes and upstreams
// by name, targets by target, certificates and CA certificates by PEM, all descending. Where KIC
// leaves ties to map order (two certificates with one PEM but different keys), kongsync breaks
// them by key and id, so the output never depends on input order.
func sortDocument(d *document.Document) {
	sort.Slice(d.Services, func(i, j int) bool { return *d.Services[i].Name > *d.Services[j].Name })
	for _, s := range d.Services {
		sort.Slice(s.Routes, func(i, j int) bool { return *s.Routes[i].Name > *s.Routes[j].Name })
	}
	sort.Slice(d.Upstreams, func(i, j int) bool { return *d.Upstreams[i].Name > *d.Upstreams[j].Name })
	for _, u := range d.Upstreams {
		sort.Slice(u.Targets, func(i, j int) bool { return *u.Targets[i].Target > *u.Targets[j].Target })
	}
	sort.Slice(d.Certificates, func(i, j int) bool {
		a, b := d.Certificates[i], d.Certificates[j]
		if c := strings.Compare(*a.Cert, *b.Cert); c != 0 {
			return c > 0
		}
		if c := strings.Compare(*a.Key, *b.Key); c != 0 {
			return c > 0
		}
		return deref(a.ID) > deref(b.ID)
	})
	sort.Slice(d.CACertificates, func(i, j int) bool {
		a, b := d.CACertificates[i], d.CACertificates[j]
		if *a.Cert != *b.Cert {
			return *a.Cert > *b.Cert
		}
		return *a.ID > *b.ID
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
