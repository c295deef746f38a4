package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
)

// Without a subcommand the arguments are the controller's flags and the controller runs (here
// it stops at the kubeconfig, which does not exist), as `run` does; help, version, bad input.
func TestDispatch(t *testing.T) {
	t.Setenv("KUBECONFIG", "/nonexistent/kubeconfig")
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{nil, exitError, "", `level=error msg="kongsync stopped" error="kubernetes config`},
		{[]string{"--log-format=json", "--kong-admin-init-retries=1"}, exitError, "", `"level":"error","msg":"kongsync stopped"`},
		{[]string{"run", "--log-format=json"}, exitError, "", `"level":"error","msg":"kongsync stopped"`},
		{[]string{"--nope"}, exitError, "", "unknown flag: --nope"},
		{[]string{"--log-level=loud"}, exitError, "", "not a valid --log-level"},
		{[]string{"--help"}, exitOK, "--kong-admin-url strings", ""},
		{[]string{"run", "-h"}, exitOK, "--kong-admin-url strings", ""},
		{[]string{"--version"}, exitOK, "kongsync dev", ""},
		{[]string{"nope"}, exitError, "", `unknown command "nope"`},
	} {
		var stdout, stderr bytes.Buffer
		code := dispatch(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%v: exit %d, want %d\nstdout: %.300s\nstderr: %.600s", tc.args, code, tc.code, stdout.String(), stderr.String())
		}
	}
}

// KIC's signal handling: the first signal cancels the run; a second one, or --term-delay running
// out during the shutdown, exits with status 1; a shutdown that finishes first exits normally.
func TestShutdownOnSignals(t *testing.T) {
	for _, tc := range []struct {
		name      string
		termDelay time.Duration
		signals   int  // sent, the second after the cancel was seen
		finish    bool // the shutdown finishes (done closes) after the signals
		cancelled bool
		exit      int // -1: none
	}{
		{"no signal", 0, 0, true, false, -1},
		{"signal, shutdown finishes", 0, 1, true, true, -1},
		{"signal, shutdown finishes within the delay", time.Hour, 1, true, true, -1},
		{"second signal", 0, 2, false, true, 1},
		{"term delay runs out", time.Millisecond, 1, false, true, 1},
	} {
		sigs, done := make(chan os.Signal, 2), make(chan struct{})
		cancelled, exited, returned := make(chan struct{}), make(chan int, 1), make(chan struct{})
		go func() {
			defer close(returned)
			shutdownOnSignals(sigs, done, tc.termDelay, func() { close(cancelled) }, func(c int) { exited <- c }, logr.Discard())
		}()
		if tc.signals > 0 {
			sigs <- syscall.SIGTERM
			<-cancelled
		}
		if tc.signals > 1 {
			sigs <- syscall.SIGINT
		}
		if tc.finish {
			close(done)
		}
		<-returned
		code := -1
		select {
		case code = <-exited:
		default:
		}
		wasCancelled := false
		select {
		case <-cancelled:
			wasCancelled = true
		default:
		}
		if code != tc.exit || wasCancelled != tc.cancelled {
			t.Errorf("%s: exit %d cancelled %v, want %d %v", tc.name, code, wasCancelled, tc.exit, tc.cancelled)
		}
	}
}
