package translator

import (
	"sort"
	"strings"

	"github.com/kongsync/kongsync/document"
)

// sortDocument orders the lists assemble does not make in order the way KIC's deckgen does:
// certificates and CA certificates by PEM, descending (services, routes and upstreams by name,
// targets by target, all descending, are made in order). Where KIC
// leaves ties to map order (two certificates with one PEM but different keys), kongsync breaks
// them by key and id, so the output never depends on input order.
//
// Lists already in order are not written: entities reused from a Cache share their lists with
// earlier results.
func sortDocument(d *document.Document) {
	// Services (with their routes) and upstreams (with their targets) are made in this order
	// by buildServices, serviceFor and the upstream pieces.
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
