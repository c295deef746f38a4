package sync

import (
	"crypto/sha256"
	"encoding/json"
	"strings"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// Custom entities (KongCustomEntity) carry no tags, so an error Kong reports on one cannot name
// its object by them; its foreign keys name the Kong service (route, consumer) it is attached
// to, whose object is not at fault. The entity Kong echoes is matched with the document's
// entities of its type instead, by the digest of its content.

// entityDigest is the sha256 of an entity's content as generic JSON re-encoded (keys sorted,
// numbers as float64), so that Kong's echo of an entity and the entity sent compare equal
// whatever their key order and number spelling; "" when it cannot be read.
func entityDigest(raw []byte) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return string(sum[:])
}

// customOwner finds the KongCustomEntity of a rejected custom entity: custom is true when the
// entity is of a custom entity type of doc (Kong names it singular: the type less its final
// "s"), and ref is set when exactly one KongCustomEntity made an entity of that content.
func customOwner(ee EntityError, doc *document.Document) (ref store.Ref, ok, custom bool) {
	if doc == nil || len(ee.Tags) > 0 {
		return ref, false, false
	}
	for _, l := range doc.CustomEntities {
		if ee.Type != strings.TrimSuffix(l.Type, "s") && ee.Type != l.Type {
			continue
		}
		custom = true
		for _, e := range l.Entities {
			raw, _ := e.MarshalJSON()
			if ee.digest == "" || entityDigest(raw) != ee.digest {
				continue
			}
			owner := store.Ref{Kind: store.KindKongCustomEntity, Namespace: e.Namespace, Name: e.Name}
			if ok && owner != ref {
				return store.Ref{}, false, true // made alike by two objects: which one is at fault is unknown
			}
			ref, ok = owner, true
		}
	}
	return ref, ok, custom
}
