// Package jsonstr appends strings as JSON string literals, escaping only what JSON requires
// ('"', '\\' and control characters). The manifest reader and the POST body builder both need
// this on hot paths where encoding/json's HTML escaping and UTF-8 checks cost a third of the time.
package jsonstr

const hex = "0123456789abcdef"

// Append appends s to dst as a quoted JSON string. s must be valid UTF-8 for the result to be
// valid JSON; bytes >= 0x80 are copied as they are.
func Append[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
