// Command kongsync keeps DB-less Kong in step with a Kubernetes cluster (`kongsync run`) and
// renders the same Kong configuration offline from manifest files (`kongsync dump`).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

const usage = `kongsync: a Kubernetes ingress controller for DB-less Kong.

Usage:
  kongsync dump -f PATH [-f PATH...] [-o FILE] [--format yaml|json]   render kong.yaml offline
  kongsync run [flags]                                                 run the controller
  kongsync version

Run "kongsync COMMAND -h" for a command's flags.
`

// version is set at build time with -ldflags "-X main.version=..." (make build: git describe).
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// dispatch runs one subcommand and returns the process exit status.
func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "dump":
		return dumpCommand(args[1:], stdin, stdout, stderr)
	case "run":
		return runCommand(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		info, ok := debug.ReadBuildInfo()
		fmt.Fprintln(stdout, versionLine(version, info, ok))
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "kongsync: unknown command %q\n\n%s", args[0], usage)
	return 2
}
