// Package jsonstr appends strings as JSON string literals, escaping only what JSON requires
// ('"', '\\' and control characters). The manifest reader and the POST body builder both need
// this on hot paths where encoding/json's HTML escaping and UTF-8 checks cost a third of the time.
package jsonstr

const hex = "0123456789abcdef"

// plain reports whether c stands for itself inside a JSON string.
func plain(c byte) bool { return c >= 0x20 && c != '"' && c != '\\' }

// Append appends s to dst as a quoted JSON string. s must be valid UTF-8 for the result to be
// valid JSON; bytes >= 0x80 are copied as they are.
func Append[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	return append(AppendContent(dst, s), '"')
}

// AppendContent appends s escaped as the content of a JSON string, without the quotes.
func AppendContent[S ~string | ~[]byte](dst []byte, s S) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if plain(c) {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscape(dst, c)
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// appendEscape appends the escape sequence of a byte that is not plain.
func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\t':
		return append(dst, '\\', 't')
	case '\r':
		return append(dst, '\\', 'r')
	}
	return append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// Extra is how many bytes AppendContent adds to s by escaping: the escaped length is
// len(s) + Extra(s). Senders use it to announce a Content-Length before streaming.
func Extra[S ~string | ~[]byte](s S) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case plain(c):
		case c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r':
			n++
		default:
			n += 5
		}
	}
	return n
}
