package main

import (
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"

	"github.com/go-logr/logr"

	"github.com/kongsync/kongsync/internal/safetext"
)

// logLevels maps --log-level to the lowest slog level written. logr's V(n) is slog level -n, so
// info is V(0), debug V(1) and trace V(2), as in KIC. KIC v3.5.13 accepts trace, debug, info and
// error; warn, fatal and panic are KIC 2.x's (logrus) and keep working: warn writes warnings
// and errors, fatal and panic only errors (kongsync logs nothing above error).
var logLevels = map[string]slog.Level{
	"trace": -2, "debug": -1, "info": slog.LevelInfo, "warn": slog.LevelWarn,
	"error": slog.LevelError, "fatal": slog.LevelError, "panic": slog.LevelError,
}

// levelName is the string written as "level": KIC's lowercase names.
func levelName(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warn"
	case l >= slog.LevelInfo:
		return "info"
	case l == -1:
		return "debug"
	}
	return "trace"
}

// loggers are the two views of one handler: logr for the code (injected everywhere), slog for
// the startup warnings, which need a level logr does not have.
type loggers struct {
	log  logr.Logger
	warn func(msg string, kv ...any)
}

// newLogger writes lines to w as JSON objects (--log-format json) or key=value text (text, or
// console as KIC also calls it), with string levels: {"level":"info",...}, and "error" on error
// lines, as KIC's zap encoder writes them. Every line passes safetext.Writer (once: dispatch
// has usually wrapped stderr already): slog's JSON leaves bidi overrides and C1 controls in
// names and messages raw, and log lines are read on terminals.
func newLogger(w io.Writer, level, format string) (loggers, error) {
	if _, ok := w.(safetext.Writer); !ok {
		w = safetext.Writer{W: w}
	}
	min, ok := logLevels[strings.ToLower(level)]
	if !ok {
		return loggers{}, fmt.Errorf("%q is not a valid --log-level (%s)", level, strings.Join(sortedKeys(logLevels), ", "))
	}
	opts := &slog.HandlerOptions{Level: min, ReplaceAttr: replaceAttr}
	var h slog.Handler
	switch strings.ToLower(format) {
	case "text", "console":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return loggers{}, fmt.Errorf("%q is not a valid --log-format (text, console, json)", format)
	}
	sl := slog.New(h)
	return loggers{log: logr.FromSlogHandler(h), warn: sl.Warn}, nil
}

// replaceAttr writes levels as KIC's names, times with milliseconds, and the error under
// "error" (logr's slog bridge calls it "err").
func replaceAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.LevelKey:
		if l, ok := a.Value.Any().(slog.Level); ok {
			return slog.String(slog.LevelKey, levelName(l))
		}
	case slog.TimeKey:
		return slog.String(slog.TimeKey, a.Value.Time().Format("2006-01-02T15:04:05.000Z07:00"))
	case "err":
		a.Key = "error"
	}
	return a
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
