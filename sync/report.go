package sync

import (
	"time"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// Reporter receives what users must be told about: the controller turns these calls into Warning
// Events on the objects concerned. Calls come from the loop's goroutine and from replica
// goroutines, so implementations must be safe for concurrent use and must not block for long.
type Reporter interface {
	// TranslationProblems is called after every translation with all of its problems (possibly
	// none, so that a receiver can tell that earlier problems are gone).
	TranslationProblems(problems []translator.Problem)
	// KongRejected is called when a replica refused a config (HTTP 400) and the entities it named
	// were traced back to Kubernetes objects. Each rejection is reported once: the objects are
	// then left out of the config until they change.
	KongRejected(rejections []Rejection)
	// ReplicaFailed is called when a replica could not take the config for a reason not tied to
	// one object: 413 (config too large, Kong keeps the previous one), a 400 that names no
	// Kubernetes object, or the first failure of a streak of server or network errors. replica
	// is empty when no replica is involved (the translator panicked: every Kong keeps its config).
	ReplicaFailed(replica string, result Result, err error)
}

// Rejection is one entity Kong refused, with the object it was translated from.
type Rejection struct {
	// Object is the Kubernetes object whose k8s-* tags the entity (or its parent) carried.
	Object store.Ref
	// Replica is the admin URL of the Kong that refused it.
	Replica string
	// Entity is Kong's account of the entity and what is wrong with it.
	Entity EntityError
}

// Message renders the entity's errors on one line, e.g. "route foo: paths.1: should start with: /".
func (r Rejection) Message() string { return r.Entity.String() }

// Metrics receives measurements for Prometheus (or anything else); the controller implements it.
// Like Reporter, it is called from several goroutines.
type Metrics interface {
	// ObserveTranslation is called after each translation.
	ObserveTranslation(TranslationStats)
	// ObservePush is called after each POST /config attempt to a replica.
	ObservePush(PushStats)
}

// PushStats describes one POST /config attempt.
type PushStats struct {
	// Replica is the admin URL (redacted), as in logs.
	Replica string
	Result  Result
	// Duration is the request's round trip.
	Duration time.Duration
	// Bytes is the size of the request body.
	Bytes int64
	// RejectedEntities counts the entities Kong named in a 400 (its flattened errors).
	RejectedEntities int
	// LoadCost is what a POST Kong took (201 or 304) cost it, as pacing counts it
	// (Outcome.Cost); 0 for a POST it did not take.
	LoadCost time.Duration
	// Fallback is true when the configuration posted is a fallback one (TranslationStats.Fallback).
	Fallback bool
}

// ReplicaMetrics may also be implemented by a Metrics value to drop the series of a replica
// that went away (a discovered Kong Pod deleted, a URL removed): without it, per-replica gauges
// would report that replica's last values forever. The loop calls ForgetReplica once the
// replica's goroutine has stopped, so no observation of it follows.
type ReplicaMetrics interface {
	ForgetReplica(replica string)
}

// ProbeMetrics may also be implemented by a Metrics value to see every GET /status probe, e.g.
// for "replica up" and "replica in sync" gauges: pushes alone say little during an outage, when
// only probes run. It is optional so that Metrics stays small.
type ProbeMetrics interface {
	// ObserveProbe reports whether the replica answered and whether it holds the latest config.
	ObserveProbe(replica string, reachable, synced bool)
}

// LatencyMetrics may also be implemented by a Metrics value to see, per replica, the time from
// the first store change a config includes to the start of its first POST to that replica: the
// coalescing window, the build and the wait for the worker. It is optional so that Metrics
// stays small.
type LatencyMetrics interface {
	ObserveChangeToPost(replica string, d time.Duration)
}

// PacingMetrics may also be implemented by a Metrics value to count the pushes pacing held back
// (docs/sync.md, "Pacing"): once per hold of a replica's push, whatever number of configs was
// coalesced meanwhile. The time Kong spent loading is PushStats.LoadCost.
type PacingMetrics interface {
	ObserveDeferred(replica string, reason PaceReason)
}

// TranslationStats describes one translation.
type TranslationStats struct {
	// Duration is how long snapshotting and translating took.
	Duration time.Duration
	// Objects is the number of objects in the snapshot that was translated.
	Objects int
	// Problems is the number of translator problems.
	Problems int
	// BrokenObjects is the number of distinct objects those problems name.
	BrokenObjects int
	// Excluded is the number of objects left out because Kong rejected them earlier (with
	// FallbackConfiguration, their dependants too); Backfilled the number put back in their
	// last valid version (UseLastValidConfigForFallback).
	Excluded, Backfilled int
	// Fallback is true for a fallback configuration in KIC's sense: FallbackConfiguration on and
	// objects rejected. FallbackPlan is the time spent deciding what to leave out and put back
	// (KIC's fallback cache generation), included in Duration.
	Fallback     bool
	FallbackPlan time.Duration
	// ConfigBytes is the size of the encoded configuration string.
	ConfigBytes int
}

// Result classifies the answer to one POST /config.
type Result string

// Results of a push. They are also the values of the "result" metric label.
const (
	ResultAccepted     Result = "accepted"      // 201: Kong loaded the config
	ResultUnchanged    Result = "unchanged"     // 304: Kong already held exactly this config
	ResultRejected     Result = "rejected"      // 400: the config is invalid
	ResultTooLarge     Result = "too_large"     // 413: does not fit Kong's LMDB; previous kept
	ResultBusy         Result = "busy"          // 429: Kong still loading a previous config
	ResultServerError  Result = "server_error"  // 5xx
	ResultNetworkError Result = "network_error" // connection refused, reset, timeout
	ResultFailed       Result = "failed"        // any other status (401, 403, 404, 415, ...)
)

// permanent reports whether retrying the same config cannot help.
func (r Result) permanent() bool { return r == ResultRejected || r == ResultTooLarge }

// ok reports whether Kong holds the config after this result.
func (r Result) ok() bool { return r == ResultAccepted || r == ResultUnchanged }

// Event is what the Observe hook sees: every build, push and status probe. It exists for tests
// and diagnostics; production code need not set the hook.
type Event struct {
	Type EventType
	// Replica is the admin URL (push and probe events).
	Replica string
	// Hash is the config hash built (build) or posted (push), or Kong's reported hash (probe).
	Hash string
	// Outcome is the push's outcome (push events).
	Outcome *Outcome
	// Build describes the translation (build events).
	Build *TranslationStats
	// Err is the probe's error, if any (probe events).
	Err error
	// Version is the store version the build (or skip) looked at.
	Version uint64
	// KongVersion is the version the replica reported (version events; "" on error) or the
	// one the build (or router choice) translated for (build and router events).
	KongVersion string
	// RouterFlavor is the router flavor the replica reported (version events) or the one
	// translated for (build and router events).
	RouterFlavor string
	// Mismatched are the replicas left out for their router flavor (router events).
	Mismatched []string
	// At is when the loop builds again because a CA certificate of the configuration expires
	// (expiry events).
	At time.Time
}

// EventType names the kind of Event.
type EventType string

// Event types.
const (
	EventBuild EventType = "build" // a translation produced a config (new or not), now handed to every replica
	EventSkip  EventType = "skip"  // a wake-up found the store unchanged: nothing translated
	EventAhead EventType = "ahead" // a translation made during the window, handed over at its end if still current
	EventPush  EventType = "push"  // one POST /config attempt finished
	EventProbe EventType = "probe" // one GET /status finished
	// EventVersion: one GET / (the replica's Kong version) finished.
	EventVersion EventType = "version"
	// EventRouter: the loop chose the router flavor and Kong version to translate for, once
	// every replica had answered GET / (again after each change of what one reports).
	EventRouter EventType = "router"
	// EventExpiry: the loop scheduled a build for when a CA certificate of the configuration
	// expires (translator.Result.NextExpiry), with no event to wait for.
	EventExpiry EventType = "expiry"
)

type nopReporter struct{}

func (nopReporter) TranslationProblems([]translator.Problem) {}
func (nopReporter) KongRejected([]Rejection)                 {}
func (nopReporter) ReplicaFailed(string, Result, error)      {}

type nopMetrics struct{}

func (nopMetrics) ObserveTranslation(TranslationStats) {}
func (nopMetrics) ObservePush(PushStats)               {}
