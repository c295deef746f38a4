package sync

import (
	"io"
	"time"

	"github.com/blang/semver/v4"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/internal/jsonstr"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/sync/fallback"
	"github.com/kongsync/kongsync/translator"
)

// Payload is one encoded configuration, ready to post to any number of replicas. It is immutable
// once built and shared between replica goroutines.
type Payload struct {
	// Config is the document's canonical JSON, sent as the "config" string. Its pieces are
	// shared with the encoder's cache: never modify them.
	Config *document.Config
	// Empty is true when the document has no entities. DB-less Kong reports the empty hash for
	// such a config even after loading it, so Empty changes what a status probe must expect.
	Empty bool

	doc  *document.Document
	snap *store.Snapshot // the snapshot (before exclusions) the document was translated from
	// translated is the snapshot actually translated: snap with the plan applied.
	translated *store.Snapshot
	// plan is what the build left out and put back; fallback says it is a fallback
	// configuration in KIC's sense (FallbackConfiguration on, objects rejected).
	plan     fallback.Plan
	fallback bool
	// seq numbers the loop's payloads, in build order.
	seq uint64
	// kongVersion and routerFlavor are the Kong version and router flavor it was translated for.
	kongVersion  semver.Version
	routerFlavor translator.RouterFlavor
	// schemaGen is the generation of the custom entity schemas it was translated with, and
	// schemasPending whether one was still being read: such a payload is posted to no replica.
	schemaGen      uint64
	schemasPending bool
	// changed is when the loop heard of the first store change this config includes (the first
	// Notify since the previous build); zero for the first build and for rebuilds no change
	// caused. Set before the payload is handed to the workers.
	changed time.Time
}

// NewPayload encodes a document for posting.
func NewPayload(doc *document.Document) (*Payload, error) {
	cfg, err := document.EncodeConfig(doc)
	if err != nil {
		return nil, err
	}
	return &Payload{Config: cfg, Empty: document.IsEmpty(doc), doc: doc}, nil
}

// Hash is document.Hash of the config: what Kong reports as configuration_hash once it loaded
// it. It may wait for the md5 (see document.Config.Hash).
func (p *Payload) Hash() string { return p.Config.Hash() }

// StatusHash is the configuration_hash a replica reports in GET /status once it holds this config.
func (p *Payload) StatusHash() string {
	if p.Empty {
		return document.EmptyHash
	}
	return p.Hash()
}

const (
	bodyPrefix = `{"config":"`
	bodySuffix = `"}`
)

// Body returns a reader of the request body, {"config": "<config>"}, and its length. The config
// is escaped as the reader is read, so no escaped copy of a many-megabyte config is ever held;
// each replica's request reads its own. The config is JSON text, so quoting it only needs '"',
// '\\' and control characters escaped (encoding/json would also escape <, > and &, for the
// same decoded string).
func (p *Payload) Body() (io.Reader, int64) {
	n := int64(len(bodyPrefix) + p.Config.EscapedLen() + len(bodySuffix))
	return jsonstr.NewReader(bodyPrefix, p.Config.Pieces(), bodySuffix), n
}
