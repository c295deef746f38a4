package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// The hostile-input catalogue (issue 20, docs/bad-input.md "Hostile input"): each case is what a
// tenant who can write objects in one namespace, or a careless user, could feed kongsync. Each
// runs `kongsync dump` in a child process (this test binary, re-executed), so that its peak
// memory (the kernel's max RSS) and wall time are measured for that run alone, and a case that
// ran away is killed by a watchdog instead of taking the machine with it.

const (
	// hostileChildEnv makes the test binary run `kongsync` with its arguments instead of tests.
	hostileChildEnv = "KONGSYNC_HOSTILE_CHILD"
	// The bounds the issue sets for dump on any of these inputs.
	hostileMaxRSS  = 300 << 20
	hostileMaxTime = 10 * time.Second
	// hostileKillRSS stops a child long before it could hurt the machine; it fails the case.
	hostileKillRSS = 1 << 30
)

func TestMain(m *testing.M) {
	if os.Getenv(hostileChildEnv) == "1" {
		os.Exit(dispatch(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// hostileCase is one catalogue entry: files written into a fresh directory (read with -f dir),
// optionally an endless stdin (then -f - is added), and what must hold afterwards.
type hostileCase struct {
	name, class string
	write       func(t *testing.T, dir string)
	stdin       io.Reader
	args        []string
	outFile     string // the config is written here (-o), not to stdout
	exit        int
	problems    []string // regexps, each must match a stderr line (the object and field named)
	keep        []string // strings stdout must hold: the good objects beside, and victims
	absent      []string // strings stdout must not hold
	check       func(t *testing.T, dir, stdout string)
}

// childRun is what one dump child did.
type childRun struct {
	exit           int
	stdout, stderr string
	rss            int64 // bytes, the kernel's max RSS of the child
	wall           time.Duration
	killed         string // why the watchdog stopped it, if it did
}

func runHostileChild(t *testing.T, dir string, stdin io.Reader, args []string) childRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*hostileMaxTime)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), hostileChildEnv+"=1", "GOMAXPROCS=2")
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &limitedBuffer{b: &errb, max: 4 << 20}, stdin
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var killed string
	stop := watchRSS(cmd.Process, func(why string) { killed = why })
	err := cmd.Wait()
	stop()
	r := childRun{stdout: out.String(), stderr: errb.String(), wall: time.Since(start), killed: killed}
	if ctx.Err() != nil {
		r.killed = "timed out after " + (3 * hostileMaxTime).String()
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = ru.Maxrss << 10 // kilobytes on Linux
	}
	r.exit = cmd.ProcessState.ExitCode()
	if err != nil && r.exit < 0 && r.killed == "" {
		r.killed = err.Error()
	}
	return r
}

// watchRSS polls the child's resident memory and kills it past hostileKillRSS.
func watchRSS(p *os.Process, report func(string)) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if rss := residentBytes(p.Pid); rss > hostileKillRSS {
					report(fmt.Sprintf("killed at %d MB resident", rss>>20))
					_ = p.Kill()
					return
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

func residentBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// limitedBuffer keeps the first max bytes: a runaway stderr cannot fill the test's memory.
type limitedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func TestHostileCatalogue(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process per case")
	}
	good, err := os.ReadFile(goodFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeAt(t, filepath.Join(dir, "good.yaml"), string(good))
			c.write(t, dir)
			args := append([]string{"dump", "-f", "."}, c.args...)
			if c.stdin != nil {
				args = append(args, "-f", "-")
			}
			r := runHostileChild(t, dir, c.stdin, args)
			if c.outFile != "" {
				r.stdout = readFile(t, join(dir, c.outFile))
			}
			t.Logf("%s: exit %d, %v, max RSS %d MB, stderr %d bytes", c.class, r.exit, r.wall.Round(time.Millisecond), r.rss>>20, len(r.stderr))
			checkHostileRun(t, c, r)
			if c.check != nil && !t.Failed() {
				c.check(t, dir, r.stdout)
			}
		})
	}
}

func checkHostileRun(t *testing.T, c hostileCase, r childRun) {
	t.Helper()
	if r.killed != "" {
		t.Fatalf("dump did not finish: %s; stderr:\n%s", r.killed, headOf(r.stderr))
	}
	if r.rss > hostileMaxRSS {
		t.Errorf("peak memory %d MB, over the %d MB bound", r.rss>>20, hostileMaxRSS>>20)
	}
	if r.wall > hostileMaxTime {
		t.Errorf("took %v, over the %v bound", r.wall, hostileMaxTime)
	}
	if r.exit != c.exit && !(c.exit == anyExit && (r.exit == exitOK || r.exit == exitProblems)) {
		t.Errorf("exit status %d, want %d; stderr:\n%s", r.exit, c.exit, headOf(r.stderr))
	}
	for _, re := range c.problems {
		if !regexp.MustCompile("(?m)" + re).MatchString(r.stderr) {
			t.Errorf("no stderr line matches %q; stderr:\n%s", re, headOf(r.stderr))
		}
	}
	for _, s := range append([]string{goodRoute, "target: 10.0.0.1:8080"}, c.keep...) {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q (the good objects beside the hostile ones must still translate)", s)
		}
	}
	for _, s := range c.absent {
		if strings.Contains(r.stdout, s) {
			t.Errorf("stdout holds %q", shorten(s))
		}
	}
	checkTerminalSafe(t, r.stderr)
}

// checkTerminalSafe: nothing from an object reaches stderr as a control character or a
// bidirectional override, and no line grows with what other tenants hold.
func checkTerminalSafe(t *testing.T, stderr string) {
	t.Helper()
	for i, line := range strings.Split(stderr, "\n") {
		if len(line) > 4096 {
			t.Errorf("stderr line %d is %d bytes: %s", i+1, len(line), shorten(line))
		}
		for _, r := range line {
			if r == utf8.RuneError || r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 ||
				r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
				t.Errorf("stderr line %d holds the raw character %U: %s", i+1, r, shorten(strconv.Quote(line)))
				break
			}
		}
	}
}

func headOf(s string) string {
	if lines := strings.SplitN(s, "\n", 41); len(lines) > 40 {
		return strings.Join(lines[:40], "\n") + "\n..."
	}
	return s
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:200] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}

func writeAt(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
