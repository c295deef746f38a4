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

// compareNsName compares the strings "ans/aname" and "bns/bname" without building them.
func compareNsName(ans, aname, bns, bname string) int {
	if ans == bns {
		return strings.Compare(aname, bname)
	}
	n := min(len(ans), len(bns))
	if c := strings.Compare(ans[:n], bns[:n]); c != 0 {
		return c
	}
	// One namespace is a proper prefix of the other: the shorter one's next byte is '/'.
	if len(ans) < len(bns) {
		return strings.Compare("/"+aname, bns[n:]+"/"+bname)
	}
	return strings.Compare(ans[n:]+"/"+aname, "/"+bname)
}

// mergeDesc merges two lists sorted by key, descending, into a new list.
func mergeDesc[T any](a, b []T, key func(T) string) []T {
	out := make([]T, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if key(a[i]) >= key(b[j]) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return append(append(out, a[i:]...), b[j:]...)
}
