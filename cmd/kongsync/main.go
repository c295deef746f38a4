// Command kongsync keeps DB-less Kong in step with a Kubernetes cluster (`kongsync [flags]`, or
// `kongsync run [flags]`) and renders the same Kong configuration offline from manifest files
// (`kongsync dump`).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/kongsync/kongsync/internal/safetext"
)

const usage = `kongsync: a Kubernetes ingress controller for DB-less Kong.

Usage:
  kongsync [flags]                                                     run the controller (as KIC's binary)
  kongsync run [flags]                                                 the same
  kongsync dump -f PATH [-f PATH...] [-o FILE] [--format yaml|json]   render kong.yaml offline
  kongsync diff [--kong-admin-url URL] [-f PATH...]                    compare Kong's configuration with
                                                                       the translation of the manifests
                                                                       (or of the cluster without -f)
  kongsync version

Run "kongsync --help" for the controller's flags (KIC's, also read from CONTROLLER_* variables),
"kongsync dump -h" and "kongsync diff -h" for theirs.
`

// version is set at build time with -ldflags "-X main.version=..." (make build: git describe).
var version = "dev"

func main() {
	os.Exit(dispatch(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// dispatch runs one subcommand and returns the process exit status. Without a subcommand, the
// arguments are the controller's flags: KIC's binary has no subcommand, and Kong's Helm chart
// starts it with flags (or CONTROLLER_* variables) only.
//
// Everything any command writes on stderr (problems, notes, errors naming files, the
// controller's log lines) passes through safetext.Writer here, once: no control or bidi
// character from an object, a file name or Kong's answers reaches a terminal or a log collector
// raw. Line structure is the formatting functions' job (Problem.String escapes newlines).
func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stderr = safetext.Writer{W: stderr}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelpOrVersion(args[0]) {
		return runCommand(ctx, args, stdout, stderr)
	}
	switch args[0] {
	case "dump":
		return dumpCommand(args[1:], stdin, stdout, stderr)
	case "diff":
		return diffCommand(ctx, args[1:], stdin, stdout, stderr)
	case "run":
		return runCommand(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		info, ok := debug.ReadBuildInfo()
		fmt.Fprintln(stdout, versionLine(version, info, ok))
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage+"\nFlags:\n")
		printRunFlags(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "kongsync: unknown command %q\n\n%s", args[0], usage)
	return 2
}

func isHelpOrVersion(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "--version"
}
