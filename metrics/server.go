package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsHandler serves the registry in the Prometheus exposition format.
func MetricsHandler(r *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(r, promhttp.HandlerOpts{Registry: r}))
	return mux
}

// WithProfiling serves net/http/pprof's endpoints under /debug/pprof/ beside h (--profiling):
// heap and CPU profiles of the running controller, which is how its memory is attributed (see
// docs/benchmarks.md). Off by default: profiles reveal internals and cost CPU while taken.
func WithProfiling(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/", h)
	return mux
}

// HealthHandler serves /healthz (the process answers) and /readyz (ready() is true: kongsync
// readiness means every Kong replica accepted a configuration at least once).
func HealthHandler(ready func() bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !ready() {
			http.Error(w, "no Kong replica has accepted a configuration yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}

// Listen binds addr now, so a port conflict fails startup instead of a goroutine later. An
// empty addr or "0" disables the server (nil listener).
func Listen(addr string) (net.Listener, error) {
	if addr == "" || addr == "0" {
		return nil, nil
	}
	return net.Listen("tcp", addr)
}

// Serve serves h on ln until ctx ends, then shuts down gracefully. A nil ln returns at once.
func Serve(ctx context.Context, log logr.Logger, ln net.Listener, h http.Handler) error {
	if ln == nil {
		return nil
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	log.Info("serving", "address", ln.Addr().String())
	err := srv.Serve(ln)
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
