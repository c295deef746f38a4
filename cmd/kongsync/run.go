package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"

	"github.com/kongsync/kongsync/runner"
)

// watchListEnv is client-go's switch for WatchListClient (initial lists streamed as watch
// events; on by default since client-go 0.35), read from the environment on first use.
const watchListEnv = "KUBE_FEATURE_WatchListClient"

// clientGoDefaults turns WatchListClient off unless the environment sets it: at N = 10k the
// streamed initial events made start → first push 2-4 s slower than plain lists, which the API
// server serves whole from its watch cache (docs/benchmarks.md, "Live loop"). It must run before
// the first informer is built, since client-go reads the variable once.
func clientGoDefaults(lookup func(string) (string, bool), set func(string, string) error) error {
	if _, ok := lookup(watchListEnv); ok {
		return nil
	}
	return set(watchListEnv, "false")
}

// runCommand is `kongsync run`: the live controller, until ctx is cancelled (SIGTERM).
func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, fs, err := parseRunFlags(args, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "kongsync run: %v\n", err)
		if fs != nil {
			fs.SetOutput(stderr)
			fs.Usage()
		}
		return exitError
	}
	log, err := newLogger(stderr, f.logLevel, f.logFormat)
	if err != nil {
		fmt.Fprintf(stderr, "kongsync run: %v\n", err)
		return exitError
	}
	if err := clientGoDefaults(os.LookupEnv, os.Setenv); err != nil {
		fmt.Fprintf(stderr, "kongsync run: %v\n", err)
		return exitError
	}
	// client-go logs through klog; send them to the same sink and format.
	klog.SetLogger(log.WithName("client-go"))
	log.Info("starting kongsync", "version", version, "ingressClass", f.cfg.IngressClass,
		"watchNamespaces", f.cfg.WatchNamespaces, "adminURLs", f.cfg.KongAdminURLs, "adminService", f.cfg.KongAdminSvc,
		"adminToken", f.cfg.KongAdminToken != "")
	if err := runner.Run(ctx, f.cfg, log); err != nil {
		log.Error(err, "kongsync stopped")
		return exitError
	}
	log.Info("kongsync stopped")
	return exitOK
}

// newLogger builds a logr.Logger writing text or JSON lines to w. Verbosity: error and warn
// drop info messages, info is V(0), debug V(1), trace V(2).
func newLogger(w io.Writer, level, format string) (logr.Logger, error) {
	verbosity := 0
	infoOff := false
	switch strings.ToLower(level) {
	case "trace":
		verbosity = 2
	case "debug":
		verbosity = 1
	case "info", "":
	case "warn", "error":
		infoOff = true
	default:
		return logr.Discard(), fmt.Errorf("unknown --log-level %q (trace, debug, info, warn, error)", level)
	}
	opts := funcr.Options{LogTimestamp: true, TimestampFormat: "2006-01-02T15:04:05.000Z07:00", Verbosity: verbosity}
	write := func(prefix, args string) {
		if prefix != "" {
			fmt.Fprintf(w, "%s: %s\n", prefix, args)
			return
		}
		fmt.Fprintln(w, args)
	}
	var log logr.Logger
	switch strings.ToLower(format) {
	case "text", "":
		log = funcr.New(write, opts)
	case "json":
		log = funcr.NewJSON(func(obj string) { fmt.Fprintln(w, obj) }, opts)
	default:
		return logr.Discard(), fmt.Errorf("unknown --log-format %q (text, json)", format)
	}
	if infoOff {
		log = logr.New(errorsOnly{log.GetSink()})
	}
	return log, nil
}

// errorsOnly is a LogSink that drops Info messages (--log-level warn or error).
type errorsOnly struct{ logr.LogSink }

func (errorsOnly) Enabled(int) bool { return false }

func (e errorsOnly) WithValues(kv ...any) logr.LogSink {
	return errorsOnly{e.LogSink.WithValues(kv...)}
}

func (e errorsOnly) WithName(n string) logr.LogSink { return errorsOnly{e.LogSink.WithName(n)} }
