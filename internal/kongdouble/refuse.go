package kongdouble

import (
	"io"
	"net/http"
	"slices"
)

// RefuseObjects makes every POST /config whose configuration holds an entity of one of objs (by
// its k8s-name, k8s-namespace and k8s-kind tags) answer 400 naming those objects, as
// RejectObjects does; a configuration without them is taken. It models objects Kong finds
// invalid wherever they appear, where RejectObjects is a fault that answers whatever the
// configuration holds. Each call replaces the last; RefuseObjects() stops refusing.
func (s *Server) RefuseObjects(objs ...TaggedObject) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refused = slices.Clone(objs)
}

// refusedHeld lists the refused objects doc has an entity of, in the order they were given.
func (s *Server) refusedHeld(doc map[string]any) []TaggedObject {
	s.mu.Lock()
	refused := s.refused
	s.mu.Unlock()
	if len(refused) == 0 {
		return nil
	}
	held := make([]bool, len(refused))
	walkTags(doc, func(tags []any) {
		for i, o := range refused {
			if !held[i] && hasTag(tags, "k8s-name:"+o.Name) && hasTag(tags, "k8s-namespace:"+o.Namespace) &&
				hasTag(tags, "k8s-kind:"+o.Kind) {
				held[i] = true
			}
		}
	})
	var out []TaggedObject
	for i, o := range refused {
		if held[i] {
			out = append(out, o)
		}
	}
	return out
}

// walkTags calls f with the tags of every entity of v, nested ones included.
func walkTags(v any, f func([]any)) {
	switch x := v.(type) {
	case map[string]any:
		if tags, ok := x["tags"].([]any); ok {
			f(tags)
		}
		for k, e := range x {
			if k != "tags" {
				walkTags(e, f)
			}
		}
	case []any:
		for _, e := range x {
			walkTags(e, f)
		}
	}
}

func hasTag(tags []any, want string) bool {
	return slices.ContainsFunc(tags, func(t any) bool { return t == want })
}

// writeRefused answers a configuration holding refused objects.
func writeRefused(w http.ResponseWriter, objs []TaggedObject) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = io.WriteString(w, BrokenObjectsBody(objs...))
}
