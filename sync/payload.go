package sync

import (
	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/jsonstr"
	"github.com/kongsync/kongsync/store"
)

// Payload is one encoded configuration, ready to post to any number of replicas. It is immutable
// once built and shared between replica goroutines.
type Payload struct {
	// Hash is document.Hash of Config: what Kong reports as configuration_hash once it loaded it.
	Hash string
	// Config is the document's canonical JSON, sent as the "config" string.
	Config []byte
	// Body is the request body, {"config": "<Config>"}.
	Body []byte
	// Empty is true when the document has no entities. DB-less Kong reports the empty hash for
	// such a config even after loading it, so Empty changes what a status probe must expect.
	Empty bool

	doc  *document.Document
	snap *store.Snapshot // the snapshot (before exclusions) the document was translated from
}

// NewPayload encodes a document for posting.
func NewPayload(doc *document.Document) (*Payload, error) {
	return newPayload(doc, nil)
}

// newPayload encodes a document with enc, or with document.JSON and document.Hash if nil.
func newPayload(doc *document.Document, enc EncodeFunc) (*Payload, error) {
	if enc == nil {
		enc = func(d *document.Document) ([]byte, string, error) {
			cfg, err := document.JSON(d)
			if err != nil {
				return nil, "", err
			}
			return cfg, document.Hash(cfg), nil
		}
	}
	cfg, hash, err := enc(doc)
	if err != nil {
		return nil, err
	}
	body := configBody(cfg)
	return &Payload{
		Hash:   hash,
		Config: cfg,
		Body:   body,
		Empty:  isEmpty(doc),
		doc:    doc,
	}, nil
}

// StatusHash is the configuration_hash a replica reports in GET /status once it holds this config.
func (p *Payload) StatusHash() string {
	if p.Empty {
		return document.EmptyHash
	}
	return p.Hash
}

// isEmpty mirrors Kong's test for an empty config: no entity of any type.
func isEmpty(d *document.Document) bool {
	return d == nil || len(d.CACertificates)+len(d.Certificates)+len(d.Consumers)+len(d.Plugins)+
		len(d.Services)+len(d.Upstreams) == 0
}

// configBody wraps the config in {"config": "..."}. The config is JSON text, so quoting it only
// needs '"', '\\' and control characters escaped; encoding/json would also escape <, > and &
// and check UTF-8, which costs a third of the time on large configs for the same decoded string.
func configBody(cfg []byte) []byte {
	out := make([]byte, 0, len(cfg)+len(cfg)/8+16)
	out = append(out, `{"config":`...)
	out = jsonstr.Append(out, cfg)
	return append(out, '}')
}
