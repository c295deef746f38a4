package runner

import (
	"context"
	"fmt"
	"net/http"

	"github.com/go-logr/logr"

	"github.com/kongsync/kongsync/metrics"
	kongsync "github.com/kongsync/kongsync/sync"
)

// newDumps keeps what --dump-config serves (nil when off: the loop then keeps nothing).
func newDumps(cfg Config) *kongsync.Dumps {
	if !cfg.DumpConfig {
		return nil
	}
	return &kongsync.Dumps{}
}

// serveDebug is KIC's diagnostics server, run when --dump-config or --profiling asks for it:
// /debug/config/ (the last configuration pushed, the last refused, Kong's answer, the objects
// left out) and /debug/pprof/. It binds now, so a port clash fails startup.
func serveDebug(g *group, cfg Config, loop *kongsync.Loop, log logr.Logger) error {
	if !cfg.DumpConfig && !cfg.Profiling {
		return nil
	}
	ln, err := metrics.Listen(cfg.DiagnosticsBindAddress)
	if err != nil {
		return fmt.Errorf("diagnostics listener: %w", err)
	}
	if ln == nil {
		return nil
	}
	mux := http.NewServeMux()
	if d := loop.Dumps(); d != nil {
		h := metrics.ConfigDumpHandler(d, loop.Fallback, cfg.DumpSensitiveConfig)
		mux.Handle("/debug/config/", http.StripPrefix("/debug/config", h))
	}
	var h http.Handler = mux
	if cfg.Profiling {
		h = metrics.WithProfiling(mux)
	}
	g.go_(func(ctx context.Context) error { return metrics.Serve(ctx, log.WithName("diagnostics"), ln, h) })
	return nil
}
