// Package sync keeps every DB-less Kong replica loaded with the configuration translated from the
// store. It knows nothing of Kubernetes clients: the controller feeds a store, calls Loop.Notify
// from its event handlers and Loop.SetReplicas when the set of Kong admin URLs changes; the loop
// coalesces bursts of events, translates once per burst (the first event after a quiet spell
// is translated at once, while the window runs, and translated again only if the store moves
// before the window ends), and posts the result to each replica that does not already hold it,
// each replica with its own state, timeout and backoff. Under churn a replica's POSTs are paced
// by what each load costs that Kong (Config.LoadBudget, Config.MinPushInterval; pacing.go).
//
// The package is named after its directory; import it with an alias (e.g. kongsync) when the
// standard library's sync is also needed.
package sync
