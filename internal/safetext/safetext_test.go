package safetext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hostile holds what must never reach a terminal raw: an ESC sequence that clears the screen, a
// carriage return that rewrites the line, backspaces, NUL, a newline that forges a second log
// line, DEL and a C1 control, the bidi overrides and isolates, a zero-width space, the line
// separator, a BOM and a byte that is not UTF-8.
var hostile = []string{"\x1b[2J", "\r", "\b", "\x00", "\n", "\x7f", "\u0085", "\u009b",
	"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
	"\u200b", "\u2028", "\ufeff", "\xff", "\t", "\U000e0041"}

func rawIn(s string) []string {
	var found []string
	for _, h := range hostile {
		if h == "\x1b[2J" {
			h = "\x1b"
		}
		if strings.Contains(s, h) {
			found = append(found, h)
		}
	}
	return found
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text: a/b, ns.name-1 \"quoted\" \\x1b stays", "plain text: a/b, ns.name-1 \"quoted\" \\x1b stays"},
		{"café ☃ 日本", "café ☃ 日本"},
		{"\x1b[2Jcleared", `\x1b[2Jcleared`},
		{"ok\rFAKE", `ok\rFAKE`},
		{"a\nproblem: forged", `a\nproblem: forged`},
		{"tab\there", `tab\there`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"abc\u202edcba", `abc\u202edcba`},
		{"\u2066iso\u2069", `\u2066iso\u2069`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"\ufffd is printable", "\ufffd is printable"},
	}
	for _, tt := range tests {
		got := Escape(tt.in)
		if got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := Escape(got); again != got {
			t.Errorf("Escape is not idempotent on %q: %q", got, again)
		}
		if raw := rawIn(got); len(raw) > 0 {
			t.Errorf("Escape(%q) = %q still holds %q", tt.in, got, raw)
		}
	}
}

func TestEscapeLines(t *testing.T) {
	in := "line one\tok\nline \x1b[31mtwo\r\u202e\xff\U000e0041\n"
	got := EscapeLines(in)
	want := "line one\tok\nline \\u001b[31mtwo\\u000d\\u202e\\ufffd\\udb40\\udc41\n"
	if got != want {
		t.Errorf("EscapeLines = %q, want %q", got, want)
	}
	if EscapeLines(got) != got {
		t.Error("EscapeLines is not idempotent")
	}
	// Inside JSON strings the escapes are JSON's own: the document decodes to the same value.
	for _, v := range []any{
		map[string]any{"msg": "a\u202eb\u0085c", "k\u2067": []any{"\x7f", "x\U000e0041"}},
		"plain", []any{"\u009b2J"},
	} {
		b, _ := json.MarshalIndent(v, "", "\t")
		esc := EscapeLines(string(b))
		if raw := rawIn(strings.NewReplacer("\n", "", "\t", "").Replace(esc)); len(raw) > 0 {
			t.Errorf("%s still holds %q", esc, raw)
		}
		var back any
		if err := json.Unmarshal([]byte(esc), &back); err != nil {
			t.Fatalf("%s: %v", esc, err)
		}
		again, _ := json.MarshalIndent(back, "", "\t")
		if !bytes.Equal(again, b) {
			t.Errorf("JSON changed meaning: %s vs %s", again, b)
		}
	}
}

// Every rune of the BMP and every 61st above it: Escape's output is printable ASCII or a printable rune, and EscapeLines' output
// holds no rune Escape would escape but newline and tab.
func TestEscapeEveryRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff || r > 0xffff && r%61 != 0 && r != 0xe0041 {
			continue
		}
		s := "a" + string(r) + "b"
		for _, out := range []string{Escape(s), strings.NewReplacer("\n", "", "\t", "").Replace(EscapeLines(s))} {
			for _, c := range out {
				if !unicode.IsPrint(c) && c != ' ' || c >= 0x202a && c <= 0x202e || c >= 0x2066 && c <= 0x2069 {
					t.Fatalf("U+%04X: output %q holds U+%04X", r, out, c)
				}
			}
			if !utf8.ValidString(out) {
				t.Fatalf("U+%04X: output %q is not UTF-8", r, out)
			}
		}
	}
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := Writer{W: &buf}
	msg := "problem: Ingress ns/\x1b[2Jx: \u202eevil\r\n"
	n, err := w.Write([]byte(msg))
	if err != nil || n != len(msg) {
		t.Fatalf("Write = %d, %v; want %d", n, err, len(msg))
	}
	if got, want := buf.String(), "problem: Ingress ns/\\u001b[2Jx: \\u202eevil\\u000d\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
