package translator

import (
	"slices"
	"sort"
	"strings"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/document"
)

// sortDocument orders every list the way KIC's deckgen does: services, routes and upstreams
// by name, targets by target, certificates and CA certificates by PEM, all descending. Where KIC
// leaves ties to map order (two certificates with one PEM but different keys), kongsync breaks
// them by key and id, so the output never depends on input order.
//
// Lists already in order are not written: entities reused from a Cache share their lists with
// earlier results.
func sortDocument(d *document.Document) {
	slices.SortFunc(d.Services, func(a, b *document.Service) int { return strings.Compare(*b.Name, *a.Name) })
	for _, s := range d.Services {
		sortRoutes(s.Routes)
	}
	slices.SortFunc(d.Upstreams, func(a, b *document.Upstream) int { return strings.Compare(*b.Name, *a.Name) })
	for _, u := range d.Upstreams {
		cmp := func(a, b *kong.Target) int { return strings.Compare(*b.Target, *a.Target) }
		if !slices.IsSortedFunc(u.Targets, cmp) {
			slices.SortFunc(u.Targets, cmp)
		}
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
