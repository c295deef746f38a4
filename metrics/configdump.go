package metrics

import (
	"encoding/json"
	"net/http"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
	"github.com/kongsync/kongsync/sync/fallback"
)

// configDumpResponse is KIC's GET /debug/config/{successful,failed} body, plus the replica
// that answered.
type configDumpResponse struct {
	Hash    string          `json:"hash"`
	Config  json.RawMessage `json:"config"`
	Replica string          `json:"replica,omitempty"`
}

// fallbackResponse is KIC's GET /debug/config/fallback body (internal/diagnostics): the
// objects Kong rejected, those the latest configuration leaves out (with FallbackConfiguration,
// their dependants too) and those it put back in their last valid version (docs/sync.md,
// "Fallback").
type fallbackResponse struct {
	Status            string           `json:"status"`
	BrokenObjects     []affectedObject `json:"brokenObjects,omitempty"`
	ExcludedObjects   []affectedObject `json:"excludedObjects,omitempty"`
	BackfilledObjects []affectedObject `json:"backfilledObjects,omitempty"`
}

// affectedObject is KIC's FallbackAffectedObjectMeta: causingObjects are KIC's object hash
// strings, "group/Kind:namespace/name" ("core" for the core group).
type affectedObject struct {
	Group          string   `json:"group"`
	Kind           string   `json:"kind"`
	Version        string   `json:"version,omitempty"`
	Namespace      string   `json:"namespace"`
	Name           string   `json:"name"`
	ID             string   `json:"id"`
	CausingObjects []string `json:"causingObjects,omitempty"`
}

// ConfigDumpHandler serves KIC's config diagnostics (--dump-config), to be mounted under
// /debug/config: /successful and /failed (the last configuration a Kong replica took or
// refused, 204 before there is one), /raw-error (Kong's answer to that refusal, text/plain)
// /fallback (the objects Kong rejected, left out and put back: sync.Loop.Fallback) and /diff-report (how the last
// configuration pushed differs from the one before). Unless sensitive
// (--dump-sensitive-config), configurations are redacted (document.Redacted) and so is Kong's
// answer (sync.RedactErrorBody). Everything is encoded per request from references the loop
// keeps, so dumps cost nothing until asked for.
func ConfigDumpHandler(d *kongsync.Dumps, plan func() fallback.Plan, sensitive bool) http.Handler {
	// One key for the process: two dumps, or two diff reports, show the same digest for the same
	// key-auth key; nothing outside the process can test guesses against it.
	key := document.NewSecretKey()
	mux := http.NewServeMux()
	mux.HandleFunc("/successful", func(w http.ResponseWriter, _ *http.Request) {
		dump, ok := d.LastSuccessful()
		writeDump(w, dump, ok, sensitive, key)
	})
	mux.HandleFunc("/failed", func(w http.ResponseWriter, _ *http.Request) {
		dump, ok := d.LastFailed()
		writeDump(w, dump, ok, sensitive, key)
	})
	mux.HandleFunc("/raw-error", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		dump, ok := d.LastFailed()
		if !ok || len(dump.ErrorBody) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		body := dump.ErrorBody
		if !sensitive {
			body = kongsync.RedactErrorBody(body)
		}
		_, _ = w.Write(body)
	})
	mux.HandleFunc("/diff-report", func(w http.ResponseWriter, r *http.Request) {
		serveDiffReport(w, r, d, sensitive, key)
	})
	mux.HandleFunc("/fallback", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, fallbackOf(plan()))
	})
	return mux
}

func writeDump(w http.ResponseWriter, dump kongsync.Dump, ok, sensitive bool, key []byte) {
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var cfg []byte
	var err error
	if sensitive {
		cfg = dump.Config.Bytes() // exactly as posted
	} else {
		cfg, err = document.JSON(document.Redacted(dump.Document, key))
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, configDumpResponse{Hash: dump.Hash, Config: cfg, Replica: dump.Replica})
}

// fallbackOf maps a plan to KIC's body: "not-triggered" when nothing was rejected. Broken
// objects carry no version, as in KIC (it has only their hashes).
func fallbackOf(p fallback.Plan) fallbackResponse {
	if len(p.Broken) == 0 {
		return fallbackResponse{Status: "not-triggered"}
	}
	out := fallbackResponse{Status: "triggered"}
	uids := map[store.Ref]string{}
	for _, a := range p.Excluded {
		uids[a.Ref] = string(a.Object.GetUID())
	}
	for _, r := range p.Broken {
		o := objectMeta(r, uids[r], nil)
		o.Version = ""
		out.BrokenObjects = append(out.BrokenObjects, o)
	}
	for _, a := range p.Excluded {
		out.ExcludedObjects = append(out.ExcludedObjects, objectMeta(a.Ref, string(a.Object.GetUID()), a.Causes))
	}
	for _, a := range p.Backfilled {
		out.BackfilledObjects = append(out.BackfilledObjects, objectMeta(a.Ref, string(a.Object.GetUID()), a.Causes))
	}
	return out
}

func objectMeta(r store.Ref, uid string, causes []store.Ref) affectedObject {
	gvk := r.Kind.GVK()
	o := affectedObject{Group: gvk.Group, Kind: gvk.Kind, Version: gvk.Version, Namespace: r.Namespace, Name: r.Name, ID: uid}
	for _, c := range causes {
		o.CausingObjects = append(o.CausingObjects, objectHash(c))
	}
	return o
}

// objectHash is KIC's ObjectHash.String: "group/Kind:namespace/name", "core" for the core group,
// no namespace part for a cluster-scoped object.
func objectHash(r store.Ref) string {
	group := r.Kind.GVK().Group
	if group == "" {
		group = "core"
	}
	if r.Namespace == "" {
		return group + "/" + string(r.Kind) + ":" + r.Name
	}
	return group + "/" + string(r.Kind) + ":" + r.Namespace + "/" + r.Name
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write(append(b, '\n'))
}
