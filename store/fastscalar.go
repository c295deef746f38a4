package store

import (
	"bytes"
	"strconv"

	"github.com/kongsync/kongsync/internal/jsonstr"
)

// inline converts a one-line value: {} or [], a quoted scalar or a plain scalar.
func (c *fastConv) inline(v []byte) bool {
	switch string(v) {
	case "{}", "[]":
		c.out = append(c.out, v...)
		return true
	}
	switch v[0] {
	case '"', '\'':
		s, ok := quoted(v)
		if ok {
			c.out = jsonstr.Append(c.out, s)
		}
		return ok
	}
	out, ok := appendPlain(c.out, v)
	c.out = out
	return ok
}

// keyString returns a mapping key as a string. Keys that YAML 1.1 would read as another type
// (true, 1, null) are left to the slow path, which stringifies them its own way; so is the
// merge key "<<".
func keyString(k []byte) (string, bool) {
	if len(k) == 0 {
		return "", false
	}
	if k[0] == '"' || k[0] == '\'' {
		return quoted(k)
	}
	if string(k) == "<<" || !plainAllowed(k) || resolvesNonString(k) {
		return "", false
	}
	return string(k), true
}

// quoted decodes a whole single- or double-quoted scalar; escapes beyond the common ones, and
// anything after the closing quote, are left to the slow path.
func quoted(v []byte) (string, bool) {
	if closingQuote(v) != len(v)-1 {
		return "", false
	}
	body := v[1 : len(v)-1]
	if v[0] == '\'' {
		return string(bytes.ReplaceAll(body, []byte("''"), []byte("'"))), true
	}
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body), true
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			out = append(out, body[i])
			continue
		}
		i++
		switch body[i] {
		case '\\', '"':
			out = append(out, body[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		default:
			return "", false
		}
	}
	return string(out), true
}

// plainAllowed reports whether v can be a one-line plain scalar in block context: it must not
// start with an indicator, nor hold ": " or end in ":" (those make it a mapping).
func plainAllowed(v []byte) bool {
	switch v[0] {
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	case '-':
		if len(v) == 1 || v[1] == ' ' {
			return false
		}
	}
	return !bytes.Contains(v, []byte(": ")) && v[len(v)-1] != ':'
}

// appendPlain appends the JSON of a plain scalar, resolved as YAML 1.1 (go-yaml v2) resolves
// it: null and boolean words, decimal/octal/hex integers, otherwise a string. Floats,
// timestamps, .inf/.nan and binary integers are left to the slow path.
func appendPlain(out, v []byte) ([]byte, bool) {
	if !plainAllowed(v) {
		return out, false
	}
	switch string(v) {
	case "~", "null", "Null", "NULL":
		return append(out, "null"...), true
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return append(out, "true"...), true
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return append(out, "false"...), true
	}
	switch c := v[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(string(v), 64); err == nil || bytes.EqualFold(v, []byte(".inf")) || bytes.EqualFold(v, []byte(".nan")) {
			return out, false
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		return appendNumberLike(out, v)
	}
	return jsonstr.Append(out, v), true
}

// appendNumberLike handles plain scalars starting with a sign or digit, as go-yaml v2 does.
func appendNumberLike(out, v []byte) ([]byte, bool) {
	if looksLikeTimestamp(v) {
		return out, false
	}
	plain := string(v)
	if bytes.IndexByte(v, '_') >= 0 {
		plain = string(bytes.ReplaceAll(v, []byte("_"), nil))
	}
	if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return strconv.AppendInt(out, i, 10), true
	}
	if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return strconv.AppendUint(out, u, 10), true
	}
	if resolvesNonString(v) {
		return out, false
	}
	return jsonstr.Append(out, v), true
}

// resolvesNonString is true for plain scalars that might not be strings in YAML 1.1 (or whose
// resolution this fast path does not reproduce): these go the slow way.
func resolvesNonString(v []byte) bool {
	switch string(v) {
	case "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
		"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return true
	}
	c := v[0]
	if c != '.' && c != '+' && c != '-' && (c < '0' || c > '9') {
		return false
	}
	if looksLikeTimestamp(v) || bytes.HasPrefix(v, []byte("0b")) || bytes.HasPrefix(v, []byte("-0b")) || bytes.HasPrefix(v, []byte("+0b")) {
		return true
	}
	plain := string(bytes.ReplaceAll(v, []byte("_"), nil))
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseFloat(plain, 64); err == nil {
		return true
	}
	for i := 0; i+3 < len(v); i++ {
		if v[i] == '.' && (bytes.EqualFold(v[i+1:i+4], []byte("inf")) || bytes.EqualFold(v[i+1:i+4], []byte("nan"))) {
			return true
		}
	}
	return false
}

// looksLikeTimestamp is go-yaml's quick check for a date: four digits and a dash.
func looksLikeTimestamp(v []byte) bool {
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	return i == 4 && i < len(v) && v[i] == '-'
}
