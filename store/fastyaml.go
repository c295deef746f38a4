package store

import (
	"bytes"

	"github.com/kongsync/kongsync/internal/jsonstr"
)

// fastYAMLToJSON converts the block-style YAML that kubectl, Helm, sigs.k8s.io/yaml and
// genworkload write to JSON in one pass, without the intermediate trees sigs.k8s.io/yaml builds
// (which made decoding 10k Ingresses take seconds). It accepts a strict subset: block mappings
// and sequences indented with spaces, plain, single- and double-quoted one-line scalars, {} and
// []. Anything else (flow collections, block scalars, anchors and aliases, tags, comments after
// values, floats, timestamps, duplicate keys, deep nesting) makes it return ok=false, and the
// caller converts the document with sigs.k8s.io/yaml as before. Within the subset the result
// decodes to the same values as sigs.k8s.io/yaml's (YAML 1.1 scalars: yes/no/on/off are
// booleans, 0x1F and 012 are integers), which store/fastyaml_test.go checks differentially.
func fastYAMLToJSON(raw []byte) ([]byte, typeHint, bool) {
	c := &fastConv{out: make([]byte, 0, len(raw)+len(raw)/8)}
	if !c.split(raw) || len(c.lines) == 0 {
		return nil, typeHint{}, false
	}
	if !c.block() || c.pos != len(c.lines) {
		return nil, typeHint{}, false
	}
	return c.out, c.hint, true
}

// typeHint is the top-level apiVersion and kind, read on the way so that decoding need not
// parse the JSON twice.
type typeHint struct{ apiVersion, kind string }

// maxFastDepth bounds the nesting the fast path follows; deeper documents take the slow path,
// which has its own limits.
const maxFastDepth = 64

type fastLine struct {
	indent int
	text   []byte // after the indentation, trailing spaces removed; never empty
}

type fastConv struct {
	lines []fastLine
	pos   int
	depth int
	out   []byte
	hint  typeHint
}

// split cuts the document into non-blank, non-comment lines, refusing what the subset excludes.
func (c *fastConv) split(raw []byte) bool {
	c.lines = make([]fastLine, 0, bytes.Count(raw, []byte{'\n'})+1)
	for len(raw) > 0 {
		var ln []byte
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			ln, raw = raw[:i], raw[i+1:]
		} else {
			ln, raw = raw, nil
		}
		if !plainASCII(ln) {
			return false
		}
		ind := 0
		for ind < len(ln) && ln[ind] == ' ' {
			ind++
		}
		text := bytes.TrimRight(ln[ind:], " ")
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		if bytes.Contains(text, []byte(" #")) {
			return false // a comment after content; the slow path knows where quoted text ends
		}
		if ind == 0 && string(text) == "---" && len(c.lines) == 0 {
			continue // the YAML reader leaves a file's leading separator on its first document
		}
		if text[0] == '%' || bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("...")) {
			return false
		}
		c.lines = append(c.lines, fastLine{ind, text})
	}
	return true
}

// plainASCII reports whether a line holds only printable ASCII: tabs, control characters and
// non-ASCII text (whose printability rules YAML spells out in detail) take the slow path.
func plainASCII(ln []byte) bool {
	for _, b := range ln {
		if b < 0x20 || b >= 0x7f {
			return false
		}
	}
	return true
}

func isSeqItem(t []byte) bool { return t[0] == '-' && (len(t) == 1 || t[1] == ' ') }

// block converts the mapping or sequence that starts at the current line.
func (c *fastConv) block() bool {
	if c.depth++; c.depth > maxFastDepth {
		return false
	}
	defer func() { c.depth-- }()
	l := c.lines[c.pos]
	if isSeqItem(l.text) {
		return c.sequence(l.indent)
	}
	return c.mapping(l.indent)
}

func (c *fastConv) mapping(ind int) bool {
	c.out = append(c.out, '{')
	var seen []string
	for c.pos < len(c.lines) {
		l := c.lines[c.pos]
		if l.indent < ind {
			break
		}
		if l.indent > ind || isSeqItem(l.text) {
			return false
		}
		key, val, ok := splitKey(l.text)
		if !ok {
			return false
		}
		k, ok := keyString(key)
		if !ok || contains(seen, k) {
			return false
		}
		if len(seen) > 0 {
			c.out = append(c.out, ',')
		}
		seen = append(seen, k)
		c.out = jsonstr.Append(c.out, k)
		c.out = append(c.out, ':')
		c.pos++
		start := len(c.out)
		if !c.value(ind, val) {
			return false
		}
		if c.depth == 1 && (k == "apiVersion" || k == "kind") {
			c.noteType(k, c.out[start:])
		}
	}
	c.out = append(c.out, '}')
	return true
}

// value converts what follows "key:" on a line of a mapping at indent ind: an inline scalar, or
// a nested block on the next lines (a sequence may sit at the key's own indent), or null.
func (c *fastConv) value(ind int, val []byte) bool {
	if len(val) > 0 {
		if !c.inline(val) {
			return false
		}
		return c.pos == len(c.lines) || c.lines[c.pos].indent <= ind
	}
	if c.pos < len(c.lines) {
		next := c.lines[c.pos]
		if next.indent > ind || next.indent == ind && isSeqItem(next.text) {
			return c.block()
		}
	}
	c.out = append(c.out, "null"...)
	return true
}

// noteType records a top-level apiVersion or kind whose JSON value is a plain string.
func (c *fastConv) noteType(key string, js []byte) {
	if len(js) < 2 || js[0] != '"' || bytes.IndexByte(js, '\\') >= 0 {
		return
	}
	if v := string(js[1 : len(js)-1]); key == "kind" {
		c.hint.kind = v
	} else {
		c.hint.apiVersion = v
	}
}

func (c *fastConv) sequence(ind int) bool {
	c.out = append(c.out, '[')
	for first := true; c.pos < len(c.lines); first = false {
		l := c.lines[c.pos]
		if l.indent != ind || !isSeqItem(l.text) {
			if l.indent > ind {
				return false
			}
			break
		}
		if !first {
			c.out = append(c.out, ',')
		}
		rest := bytes.TrimLeft(l.text[1:], " ")
		if !c.item(ind, ind+len(l.text)-len(rest), rest) {
			return false
		}
	}
	c.out = append(c.out, ']')
	return true
}

// item converts one sequence item whose content, rest, starts at column col.
func (c *fastConv) item(ind, col int, rest []byte) bool {
	switch {
	case len(rest) == 0:
		c.pos++
		if c.pos < len(c.lines) && c.lines[c.pos].indent > ind {
			return c.block()
		}
		c.out = append(c.out, "null"...)
		return true
	case isSeqItem(rest) || isMappingLine(rest):
		// The item's content is a block that starts mid-line: continue as if it began a line.
		c.lines[c.pos] = fastLine{col, rest}
		return c.block()
	default:
		c.pos++
		if !c.inline(rest) {
			return false
		}
		return c.pos == len(c.lines) || c.lines[c.pos].indent <= ind
	}
}

func isMappingLine(t []byte) bool {
	_, _, ok := splitKey(t)
	return ok
}

// splitKey splits "key: value" or "key:" into key and value. Quoted keys must close before the
// colon; a plain key ends at the first ": " (a plain scalar cannot contain one).
func splitKey(t []byte) (key, val []byte, ok bool) {
	end := -1
	if t[0] == '"' || t[0] == '\'' {
		end = closingQuote(t)
		if end < 0 || end+1 >= len(t) || t[end+1] != ':' {
			return nil, nil, false
		}
		end++
	} else if i := bytes.Index(t, []byte(": ")); i >= 0 {
		end = i
	} else if t[len(t)-1] == ':' {
		end = len(t) - 1
	} else {
		return nil, nil, false
	}
	if end+1 < len(t) && t[end+1] != ' ' {
		return nil, nil, false
	}
	return bytes.TrimRight(t[:end], " "), bytes.TrimLeft(t[end+1:], " "), true
}

// closingQuote returns the index of the quote closing the quoted scalar at the start of t.
func closingQuote(t []byte) int {
	q := t[0]
	for i := 1; i < len(t); i++ {
		switch {
		case q == '"' && t[i] == '\\':
			i++
		case t[i] == q && q == '\'' && i+1 < len(t) && t[i+1] == '\'':
			i++
		case t[i] == q:
			return i
		}
	}
	return -1
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
