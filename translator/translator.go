// Package translator turns an immutable store snapshot into one Kong declarative config. It is
// pure: no clients, clocks or loggers; the same snapshot always yields the same document, byte
// for byte, and every object it cannot translate becomes a Problem instead of an error.
package translator

import (
	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// Options are the settings that change translation, mirroring KIC's flags of the same meaning.
type Options struct {
	// IngressClass is the class this controller serves (KIC's --ingress-class, default "kong").
	IngressClass string
}

// DefaultOptions are KIC v3.5.13's defaults.
func DefaultOptions() Options {
	return Options{IngressClass: "kong"}
}

// Result is a translation's output: the document and the problems met on the way.
type Result struct {
	Document *document.Document
	Problems []Problem
}

// Translate builds the Kong configuration for every object in snap that this controller serves.
func Translate(snap *store.Snapshot, opts Options) Result {
	// Implemented by the translator work (issue 2); see the per-kind files.
	return Result{Document: document.New()}
}
