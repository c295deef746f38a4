package metrics

import (
	"encoding/json"
	"net/http"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	kongsync "github.com/kongsync/kongsync/sync"
)

// configDumpResponse is KIC's GET /debug/config/{successful,failed} body, plus the replica
// that answered.
type configDumpResponse struct {
	Hash    string          `json:"hash"`
	Config  json.RawMessage `json:"config"`
	Replica string          `json:"replica,omitempty"`
}

// fallbackResponse is KIC's GET /debug/config/fallback body: kongsync's equivalent of KIC's
// fallback configuration is leaving out the objects Kong rejected (docs/sync.md).
type fallbackResponse struct {
	Status        string           `json:"status"`
	BrokenObjects []affectedObject `json:"brokenObjects,omitempty"`
}

type affectedObject struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Version   string `json:"version,omitempty"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	ID        string `json:"id"`
}

// ConfigDumpHandler serves KIC's config diagnostics (--dump-config), to be mounted under
// /debug/config: /successful and /failed (the last configuration a Kong replica took or
// refused, 204 before there is one), /raw-error (Kong's answer to that refusal, text/plain)
// /fallback (the objects left out because Kong rejected them) and /diff-report (how the last
// configuration pushed differs from the one before). Unless sensitive
// (--dump-sensitive-config), configurations are redacted (document.Redacted) and so is Kong's
// answer (sync.RedactErrorBody). Everything is encoded per request from references the loop
// keeps, so dumps cost nothing until asked for.
func ConfigDumpHandler(d *kongsync.Dumps, excluded func() []store.Object, sensitive bool) http.Handler {
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
		writeJSON(w, fallbackOf(excluded()))
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

func fallbackOf(objs []store.Object) fallbackResponse {
	if len(objs) == 0 {
		return fallbackResponse{Status: "not-triggered"}
	}
	out := fallbackResponse{Status: "triggered"}
	for _, o := range objs {
		ref, err := store.RefOf(o)
		if err != nil {
			continue
		}
		gvk := ref.Kind.GVK()
		out.BrokenObjects = append(out.BrokenObjects, affectedObject{Group: gvk.Group, Kind: gvk.Kind, Version: gvk.Version,
			Namespace: ref.Namespace, Name: ref.Name, ID: string(o.GetUID())})
	}
	return out
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
