//go:build integration

package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// refusedByKong is the fixpoint kongsync reaches with a Kong that refuses some entities: post
// the cold build to a scratch Kong double (the same contract as the soak's doubles), leave out
// the objects its 400 names through their k8s-* tags, build again, until Kong takes it. It is
// the second way the soak explains what the doubles hold (the first: the objects whose
// ApplyFailed Event names their current resourceVersion), needed because client-go folds a
// repeated identical Event into the first one, keeping the first object version it named.
func (s *soak) refusedByKong(snap *store.Snapshot) (*expectation, error) {
	var refs []store.Ref
	for range 8 {
		exp, err := s.expect(snap, refs)
		if err != nil {
			return nil, err
		}
		more, err := s.scratchRefuses(exp.built.Config.Bytes(), exp.built.Document)
		if err != nil || len(more) == 0 {
			return exp, err
		}
		refs = append(refs, more...)
		sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
	}
	return nil, fmt.Errorf("the scratch Kong still refuses after leaving out %v", refs)
}

// scratchRefuses posts config to the scratch double and returns the objects its 400 names: by
// their k8s-* tags, or, for a custom entity (which has none), the KongCustomEntity of doc that
// made an entity of that content.
func (s *soak) scratchRefuses(config []byte, doc *document.Document) ([]store.Ref, error) {
	defer s.scratch.ResetRequests()
	body, _ := json.Marshal(map[string]string{"config": string(config)})
	resp, err := http.Post(s.scratch.URL()+"/config?flatten_errors=1", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode < 300 {
		return nil, nil
	}
	var ce struct {
		Flattened []struct {
			Type   string   `json:"entity_type"`
			Tags   []string `json:"entity_tags"`
			Entity any      `json:"entity"`
		} `json:"flattened_errors"`
	}
	if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(b, &ce) != nil || len(ce.Flattened) == 0 {
		return nil, fmt.Errorf("the scratch Kong answered %d: %.300s", resp.StatusCode, b)
	}
	var out []store.Ref
	for _, e := range ce.Flattened {
		var ref store.Ref
		for _, tag := range e.Tags {
			k, v, _ := strings.Cut(tag, ":")
			switch k {
			case "k8s-kind":
				ref.Kind = store.Kind(v)
			case "k8s-namespace":
				ref.Namespace = v
			case "k8s-name":
				ref.Name = v
			}
		}
		if len(e.Tags) == 0 {
			ref = customEntityOwner(doc, e.Type, e.Entity)
		}
		if ref.Kind == "" || ref.Name == "" {
			return nil, fmt.Errorf("the scratch Kong refuses a %s without k8s-* tags: %.300s", e.Type, b)
		}
		out = append(out, ref)
	}
	return out, nil
}

// customEntityOwner is the KongCustomEntity that made the one entity of doc of Kong's (singular)
// type typ whose content is entity; none when no entity or several objects' match.
func customEntityOwner(doc *document.Document, typ string, entity any) store.Ref {
	var owner store.Ref
	for _, l := range doc.CustomEntities {
		if strings.TrimSuffix(l.Type, "s") != typ {
			continue
		}
		for _, e := range l.Entities {
			raw, _ := e.MarshalJSON()
			var v any
			if json.Unmarshal(raw, &v) != nil || !reflect.DeepEqual(v, entity) {
				continue
			}
			ref := store.Ref{Kind: store.KindKongCustomEntity, Namespace: e.Namespace, Name: e.Name}
			if owner.Name != "" && owner != ref {
				return store.Ref{}
			}
			owner = ref
		}
	}
	return owner
}
