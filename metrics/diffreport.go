package metrics

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kongsync/kongsync/document"
	kongsync "github.com/kongsync/kongsync/sync"
)

// diffResponse is KIC's GET /debug/config/diff-report body. KIC fills it in DB mode only, from
// decK's sync events; kongsync computes it with document.Compare between the last two
// configurations pushed.
type diffResponse struct {
	Message   string       `json:"message,omitempty"`
	Hash      string       `json:"hash"`
	Timestamp string       `json:"timestamp"`
	Diffs     []entityDiff `json:"diffs"`
	Available []diffIndex  `json:"available"`
}

type entityDiff struct {
	Entity kongEntity `json:"kongEntity"`
	// Action is decK's: create, update or delete.
	Action string `json:"action"`
	// Diff lists an update's fields, one "field: old -> new" line each.
	Diff string `json:"diff,omitempty"`
}

type kongEntity struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

type diffIndex struct {
	Hash      string `json:"hash"`
	Timestamp string `json:"timestamp"`
}

// serveDiffReport answers /diff-report: how the last configuration pushed differs from the
// one before, entity by entity; ?hash= must name the last one (the only diff kept). Unlike
// KIC, which refuses without --dump-sensitive-config, secrets are redacted as kongsync diff
// redacts them (document.Compare): compared by their digests under key, a changed secret shows
// as "<redacted, differs>", and a key-auth key naming its credential as its digest.
func serveDiffReport(w http.ResponseWriter, r *http.Request, d *kongsync.Dumps, sensitive bool, key []byte) {
	prev, last, ok := d.LastTwoSuccessful()
	if !ok {
		writeJSON(w, diffResponse{Message: "no diffs available", Diffs: []entityDiff{}, Available: []diffIndex{}})
		return
	}
	at := last.At.UTC().Format(time.RFC3339)
	resp := diffResponse{Hash: last.Hash, Timestamp: at, Available: []diffIndex{{Hash: last.Hash, Timestamp: at}}}
	if q := r.URL.Query()["hash"]; len(q) > 0 && q[0] != last.Hash {
		resp.Message, resp.Hash, resp.Timestamp = fmt.Sprintf("diff with hash %q not found", q[0]), q[0], ""
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	diffs, err := pushDiff(prev, last, document.CompareOptions{Strict: true, ShowSecrets: sensitive, SecretKey: key})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	resp.Diffs = diffs
	writeJSON(w, resp)
}

// pushDiff compares two pushed configurations, old as expected and new as actual (opts.Strict:
// a field only the new one sets is a change too).
func pushDiff(prev, last kongsync.Dump, opts document.CompareOptions) ([]entityDiff, error) {
	old, err := dumpTree(prev)
	if err != nil {
		return nil, err
	}
	cur, err := dumpTree(last)
	if err != nil {
		return nil, err
	}
	rep := document.Report(document.Compare(old, cur, opts))
	out := make([]entityDiff, 0, len(rep.Added)+len(rep.Removed)+len(rep.Changed))
	for _, e := range rep.Added {
		out = append(out, entityDiff{Entity: kongEntity{Name: e.Name, Kind: e.Kind}, Action: "create"})
	}
	for _, e := range rep.Changed {
		lines := make([]string, 0, len(e.Fields))
		for _, f := range e.Fields {
			if f.Redacted && f.Expected != "" && f.Actual != "" {
				lines = append(lines, f.Field+": "+document.RedactedDiffers)
				continue
			}
			lines = append(lines, fmt.Sprintf("%s: %s -> %s", f.Field, orUnset(f.Expected), orUnset(f.Actual)))
		}
		out = append(out, entityDiff{Entity: kongEntity{Name: e.Name, Kind: e.Kind}, Action: "update", Diff: strings.Join(lines, "\n")})
	}
	for _, e := range rep.Removed {
		out = append(out, entityDiff{Entity: kongEntity{Name: e.Name, Kind: e.Kind}, Action: "delete"})
	}
	return out, nil
}

// dumpTree decodes a pushed configuration as generic JSON; Compare redacts its secrets.
func dumpTree(dump kongsync.Dump) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(dump.Config.Bytes(), &m); err != nil {
		return nil, err
	}
	return m, nil
}

func orUnset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}
