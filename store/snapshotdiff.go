package store

// ChangedNamespaces returns the namespaces in which an object of one of kinds was added,
// removed or replaced between prev and cur, two snapshots of the same store; "" stands for
// the cluster-scoped objects. The sync loop asks it which objects Kong rejected may now be
// accepted: a rejection can be cured by a change to another object than the one Kong named
// (a UDPIngress that stops routing to a Service whose path annotation a UDP service cannot
// carry), and such objects read what their namespace holds.
//
// A kind whose list cur shares with prev (the store shares an unchanged kind's list between
// snapshots) costs a pointer comparison; any other kind one walk of both sorted lists, in
// which an unchanged object is the same pointer in both. A nil prev changes every namespace cur
// holds.
func ChangedNamespaces(prev, cur *Snapshot, kinds []Kind) map[string]bool {
	out := map[string]bool{}
	for _, k := range kinds {
		var a []Object
		if prev != nil {
			a = prev.Objects(k)
		}
		b := cur.Objects(k)
		if len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) {
			continue
		}
		diffSorted(a, b, out)
	}
	return out
}

// diffSorted adds to out the namespace of every object in which the sorted lists a and b differ.
func diffSorted(a, b []Object, out map[string]bool) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b):
			out[a[i].GetNamespace()] = true
			i++
		case i == len(a):
			out[b[j].GetNamespace()] = true
			j++
		case a[i] == b[j]: // unchanged: no key comparison
			i++
			j++
		default:
			switch c := compareKey(a[i], nsName{b[j].GetNamespace(), b[j].GetName()}); {
			case c < 0:
				out[a[i].GetNamespace()] = true
				i++
			case c > 0:
				out[b[j].GetNamespace()] = true
				j++
			default: // replaced
				out[b[j].GetNamespace()] = true
				i++
				j++
			}
		}
	}
}
