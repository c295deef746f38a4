package main

import (
	"context"
	"fmt"
	"io"
)

// runCommand is replaced by the live controller (run.go); until then it says so.
func runCommand(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "kongsync run: not built yet")
	return exitError
}
