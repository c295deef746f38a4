// Package safetext escapes the characters that let a string from an object (a name, an
// annotation value, a file path, a plugin config key) rewrite a terminal or forge a log line:
// control characters (ESC sequences, carriage returns, backspaces, NUL, newlines inside a
// value), Unicode format characters such as the bidi overrides U+202A–U+202E and isolates
// U+2066–U+2069, line and paragraph separators, and invalid UTF-8. Objects read offline never
// met an API server's name validation, and annotation values and plugin configs never do.
//
// Printable text, backslashes included, is left exactly as it is, so text that already holds
// escapes (strconv.Quote'd values in problem reasons) is never escaped twice: both functions
// are idempotent.
package safetext

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every rune strconv.IsPrint refuses written as a Go escape (\x1b, \r,
// \n, \u202e, \xff for a byte that is not UTF-8): one line of readable text, for problem
// reasons, notes and diff lines.
func Escape(s string) string {
	return escapeWith(s, "", func(b *strings.Builder, r rune, invalid byte) {
		if invalid != 0 {
			b.WriteString(`\x` + hex2(invalid))
			return
		}
		q := strconv.QuoteRuneToASCII(r) // '\x1b', '\u202e'
		b.WriteString(q[1 : len(q)-1])
	})
}

// escapeWith copies s, writing each rune that is neither printable nor in keep through esc;
// invalid is the byte of an invalid UTF-8 sequence (r is then utf8.RuneError), else 0.
func escapeWith(s, keep string, esc func(b *strings.Builder, r rune, invalid byte)) string {
	if clean(s, keep) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			esc(&b, r, s[i])
		case strconv.IsPrint(r) || strings.ContainsRune(keep, r):
			b.WriteString(s[i : i+size])
		default:
			esc(&b, r, 0)
		}
		i += size
	}
	return b.String()
}

// clean reports whether every rune of s is printable, or one of keep.
func clean(s, keep string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f || strings.IndexByte(keep, c) >= 0 {
			continue
		}
		if s[i] < utf8.RuneSelf {
			return false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += size - 1
	}
	return true
}

// EscapeLines is Escape for text made of lines (log records, usage, a JSON document): newlines
// and tabs stay, and everything else Escape would escape is written as a JSON \u escape
// (surrogate pairs above U+FFFF), which is valid both inside a JSON string and as plain text.
// Outside a JSON string, encoded JSON holds only ASCII, so applied to a JSON document it
// changes how some strings are written, never what they hold.
func EscapeLines(s string) string {
	return escapeWith(s, "\n\t", func(b *strings.Builder, r rune, _ byte) {
		if r > 0xffff {
			r1, r2 := surrogates(r)
			b.WriteString(`\u` + hex4(r1) + `\u` + hex4(r2))
			return
		}
		b.WriteString(`\u` + hex4(r)) // an invalid byte is utf8.RuneError: \ufffd
	})
}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

const digits = "0123456789abcdef"

func hex2(c byte) string { return string([]byte{digits[c>>4], digits[c&0xf]}) }

func hex4(r rune) string {
	return string([]byte{digits[r>>12&0xf], digits[r>>8&0xf], digits[r>>4&0xf], digits[r&0xf]})
}

// Writer passes each Write through EscapeLines: kongsync's stderr and log output, where every
// line any code path prints then reaches a terminal or a log collector escaped. A Write that
// splits a multi-byte character shows it as \ufffd escapes, never raw.
type Writer struct{ W io.Writer }

// Write implements io.Writer; n counts p's bytes, as a caller expects, not the escaped ones.
func (w Writer) Write(p []byte) (int, error) {
	s := string(p)
	if out := EscapeLines(s); out != s {
		if _, err := io.WriteString(w.W, out); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return w.W.Write(p)
}
