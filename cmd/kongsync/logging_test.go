package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Each --log-level writes the lines at or above it, with KIC's level names as strings.
func TestLogLevels(t *testing.T) {
	emit := func(l loggers) {
		l.log.V(2).Info("trace line")
		l.log.V(1).Info("debug line")
		l.log.Info("info line")
		l.warn("warn line")
		l.log.Error(errors.New("boom"), "error line")
	}
	all := []string{"trace", "debug", "info", "warn", "error"}
	for _, tc := range []struct {
		level string
		want  []string // levels of the lines written
	}{
		{"trace", all},
		{"debug", all[1:]},
		{"info", all[2:]},
		{"", all[2:]}, // unset: info
		{"warn", all[3:]},
		{"error", all[4:]},
		{"fatal", all[4:]},
		{"panic", all[4:]},
		{"DEBUG", all[1:]},
	} {
		var buf bytes.Buffer
		l, err := newLogger(&buf, or(tc.level, "info"), "json")
		if err != nil {
			t.Fatalf("%q: %v", tc.level, err)
		}
		emit(l)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			if line == "" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%q: not JSON: %s", tc.level, line)
			}
			lvl, _ := m["level"].(string)
			if m["msg"] != lvl+" line" {
				t.Errorf("%q: level %q on %q", tc.level, lvl, m["msg"])
			}
			got = append(got, lvl)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("--log-level %q wrote %v, want %v", tc.level, got, tc.want)
		}
	}
	if _, err := newLogger(&bytes.Buffer{}, "loud", "json"); err == nil || !strings.Contains(err.Error(), "trace") {
		t.Errorf("unknown level: err = %v", err)
	}
}

func or(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

// json, text and console (KIC's alias of text) formats; error lines carry the level and the
// error under "error"; names and values are kept.
func TestLogFormats(t *testing.T) {
	for _, tc := range []struct {
		format string
		want   []string
	}{
		{"json", []string{`"level":"info"`, `"msg":"hello"`, `"logger":"sync"`, `"object":"Ingress a/b"`,
			`"level":"error"`, `"error":"boom"`, `"time":"`}},
		{"text", []string{"level=info", "msg=hello", "logger=sync", `object="Ingress a/b"`, "level=error", "error=boom"}},
		{"console", []string{"level=info", "msg=hello", "level=error", "error=boom"}},
	} {
		var buf bytes.Buffer
		l, err := newLogger(&buf, "info", tc.format)
		if err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		l.log.WithName("sync").Info("hello", "object", "Ingress a/b")
		l.log.Error(errors.New("boom"), "failed")
		for _, w := range tc.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s output lacks %s:\n%s", tc.format, w, buf.String())
			}
		}
	}
	if _, err := newLogger(&bytes.Buffer{}, "info", "logfmt"); err == nil {
		t.Error("unknown format accepted")
	}
}

// Log lines hold object names, Kong's answers and errors: whatever control or bidi characters
// they carry are escaped (safetext.Writer) in both formats, in the message, string values, errors
// and lists; a JSON line still decodes to the very strings logged.
func TestLogLinesEscaped(t *testing.T) {
	hostile := "web\x1b[2J\r\b\x00\u202eevil\u2066\u0085\nlevel=error forged"
	for _, format := range []string{"json", "text"} {
		var buf bytes.Buffer
		l, err := newLogger(&buf, "info", format)
		if err != nil {
			t.Fatal(err)
		}
		l.log.Info("object "+hostile, "object", "Ingress a/"+hostile, "tags", []string{hostile})
		l.log.Error(errors.New(hostile), "Kong rejected "+hostile)
		out := buf.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 2 {
			t.Errorf("%s: %d lines, want 2 (a newline forged a line):\n%s", format, len(lines), out)
		}
		for _, c := range []string{"\x1b", "\r", "\b", "\x00", "\u202e", "\u2066", "\u0085"} {
			if strings.Contains(out, c) {
				t.Errorf("%s: %q raw in\n%s", format, c, out)
			}
		}
		if format != "json" {
			continue
		}
		for _, line := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, line)
			}
			if !strings.HasSuffix(m["msg"].(string), hostile) {
				t.Errorf("msg decodes to %q", m["msg"])
			}
		}
	}
}
