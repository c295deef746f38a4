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
	sortDesc(d.Services, func(s *document.Service) string { return *s.Name })
	for _, s := range d.Services {
		sortRoutes(s.Routes)
	}
	sortDesc(d.Upstreams, func(u *document.Upstream) string { return *u.Name })
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

// sortDesc sorts l by name, descending; a list already in order (as assemble usually makes
// them) costs one pass.
func sortDesc[T any](l []T, name func(T) string) {
	cmp := func(a, b T) int { return strings.Compare(name(b), name(a)) }
	if !slices.IsSortedFunc(l, cmp) {
		slices.SortFunc(l, cmp)
	}
}
