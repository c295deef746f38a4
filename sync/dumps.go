package sync

import (
	gosync "sync"
	"time"

	"github.com/kongsync/kongsync/document"
)

// Dumps keeps the last configuration a replica took and the last one a replica refused, with
// Kong's answer: what KIC's --dump-config serves under /debug/config. It keeps references to
// the loop's immutable payloads, never copies, so it costs nothing per push; encoding (and
// redaction) happens when someone asks. Safe for concurrent use; the zero value is ready.
type Dumps struct {
	mu            gosync.Mutex
	success, fail *Dump
	// previous is the success before success with another hash: the diff report's old side.
	previous  *Dump
	successes int64
	failures  int64
}

// Dump is one configuration a replica was sent.
type Dump struct {
	// Replica is the admin URL (redacted) that answered.
	Replica string
	// Hash is the configuration's md5, Kong's configuration_hash once loaded.
	Hash string
	// Document is the configuration as translated; Config its canonical JSON, as posted. Both
	// are shared with the loop: never modify them.
	Document *document.Document
	Config   *document.Config
	// Result and Status are the push's outcome (Status 0 for a network error).
	Result Result
	Status int
	// ErrorBody is Kong's answer to a refused push, as received (failures only). It can echo
	// entities with their private keys: serve it redacted unless sensitive dumps are allowed.
	ErrorBody []byte
	// Error describes a failure without Kong's body.
	Error string
	// At is when the answer arrived.
	At time.Time
}

// Record keeps a push's outcome: a taken config (201, 304) as the last success, anything else
// as the last failure.
func (d *Dumps) Record(replica string, p *Payload, out Outcome, at time.Time) {
	dump := &Dump{Replica: replica, Hash: p.Hash(), Document: p.doc, Config: p.Config, Result: out.Result,
		Status: out.Status, At: at}
	d.mu.Lock()
	defer d.mu.Unlock()
	if out.Result.ok() {
		if d.success != nil && d.success.Hash != dump.Hash {
			d.previous = d.success
		}
		d.success = dump
		d.successes++
		return
	}
	dump.ErrorBody, dump.Error = out.Body, errString(out.Err)
	d.fail = dump
	d.failures++
}

// LastSuccessful returns the last configuration a replica took.
func (d *Dumps) LastSuccessful() (Dump, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.success == nil {
		return Dump{}, false
	}
	return *d.success, true
}

// LastTwoSuccessful returns the last two different configurations replicas took, older first
// (another replica taking the same configuration does not count); ok is false before there
// are two.
func (d *Dumps) LastTwoSuccessful() (previous, last Dump, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.previous == nil {
		return Dump{}, Dump{}, false
	}
	return *d.previous, *d.success, true
}

// LastFailed returns the last configuration a replica did not take, with Kong's answer.
func (d *Dumps) LastFailed() (Dump, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail == nil {
		return Dump{}, false
	}
	return *d.fail, true
}

// Counts returns how many successes and failures were recorded (for tests).
func (d *Dumps) Counts() (successes, failures int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.successes, d.failures
}
