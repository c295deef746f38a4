package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
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

// runCommand is the live controller, until ctx is cancelled or a signal arrives.
func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, _, err := parseRunFlags(args, os.Environ())
	if errors.Is(err, pflag.ErrHelp) {
		printRunFlags(stdout)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "kongsync: %v\nRun \"kongsync --help\" for the flags.\n", err)
		return exitError
	}
	logs, err := newLogger(stderr, f.logLevel, f.logFormat)
	if err != nil {
		fmt.Fprintf(stderr, "kongsync: %v\n", err)
		return exitError
	}
	log := logs.log
	if err := clientGoDefaults(os.LookupEnv, os.Setenv); err != nil {
		fmt.Fprintf(stderr, "kongsync: %v\n", err)
		return exitError
	}
	// client-go logs through klog; send them to the same sink and format.
	klog.SetLogger(log.WithName("client-go"))
	for _, w := range f.warnings {
		logs.warn(w.msg, w.kv...)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go shutdownOnSignals(sigs, done, f.termDelay, cancel, os.Exit, log)

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

// shutdownOnSignals is KIC's signal handling (--term-delay): the first SIGTERM or SIGINT starts
// the shutdown (cancel); a second one, or termDelay running out while the shutdown lasts, ends
// the process with status 1. It returns when done closes (the shutdown finished).
func shutdownOnSignals(sigs <-chan os.Signal, done <-chan struct{}, termDelay time.Duration, cancel context.CancelFunc,
	exit func(int), log logr.Logger) {
	select {
	case <-done:
		return
	case sig := <-sigs:
		log.Info("signal received; shutting down", "signal", sig.String(), "termDelay", termDelay.String())
		cancel()
	}
	var expired <-chan time.Time
	if termDelay > 0 {
		t := time.NewTimer(termDelay)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-done:
	case <-expired:
		log.Info("shutdown outlasted --term-delay; exiting now", "termDelay", termDelay.String())
		exit(1)
	case sig := <-sigs:
		log.Info("second signal during shutdown; exiting now", "signal", sig.String())
		exit(1)
	}
}

// printRunFlags prints the controller's flags, sorted by name as KIC's help lists them.
func printRunFlags(w io.Writer) {
	fs := newRunFlagSet(&runFlags{}, &rawFlags{})
	fmt.Fprint(w, fs.FlagUsages())
	fmt.Fprintf(w, "\nEvery flag can also be set with %s<FLAG_IN_CAPS_WITH_UNDERSCORES>, e.g. CONTROLLER_KONG_ADMIN_URL;\n"+
		"the command line wins. Flags marked [no effect in kongsync] or [not honoured] are KIC's, accepted for\n"+
		"compatibility; setting them logs a warning (docs/operations.md).\n", envPrefix)
}
