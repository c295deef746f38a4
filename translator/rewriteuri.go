package translator

import (
	"fmt"
	"strings"
	"unicode"
)

// rewriteURIConfig turns a konghq.com/rewrite value into request-transformer's replace.uri, as
// KIC does with its RewriteURIs gate: $N (one or more digits) becomes $(uri_captures[N]), the
// route path's Nth capture group; \$ is a literal $; any other character is kept. A $ without a
// digit after it, a \ before anything but $, or either at the end is an error naming the
// position (in bytes, as KIC counts). An empty value rewrites to "/".
func rewriteURIConfig(uri string) (string, error) {
	if uri == "" {
		return "/", nil
	}
	var out strings.Builder
	const (
		plain = iota
		escape
		mark
		digit
	)
	state := plain
	for i, c := range uri {
		switch state {
		case escape:
			if c != '$' {
				return "", fmt.Errorf("unexpected %c at pos %d", c, i)
			}
			out.WriteRune(c)
			state = plain
		case mark:
			if !unicode.IsDigit(c) {
				return "", fmt.Errorf("unexpected %c at pos %d", c, i)
			}
			out.WriteString("$(uri_captures[")
			out.WriteRune(c)
			state = digit
		default:
			if state == digit {
				if unicode.IsDigit(c) {
					out.WriteRune(c)
					continue
				}
				out.WriteString("])")
			}
			switch c {
			case '$':
				state = mark
			case '\\':
				state = escape
			default:
				out.WriteRune(c)
				state = plain
			}
		}
	}
	switch state {
	case digit:
		out.WriteString("])")
	case escape, mark:
		return "", fmt.Errorf("unexpected end of string")
	}
	return out.String(), nil
}
