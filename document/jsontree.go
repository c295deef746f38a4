package document

import (
	"encoding/json"
	"fmt"
)

// jval is a parsed JSON value that keeps object keys in document order and remembers its raw
// bytes, so the YAML encoder can sort keys its own way and hand any part to yaml.v3 as is.
type jval struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 't' true, 'f' false, 'z' null
	str   string
	keys  []string
	vals  []*jval
	items []*jval
	raw   []byte
}

// parseJSONTree parses JSON that encoding/json wrote (so already valid); it still reports
// malformed input instead of misreading it. The input is converted to one string up front so
// that every string value is a substring of it (no allocation per value), and nodes come from
// slabs.
func parseJSONTree(js []byte) (*jval, error) {
	return (&jsonParser{}).parse(js)
}

// parse parses js into a tree that replaces the one this parser returned last: its nodes reuse
// that tree's slabs, so a parser that parses many small texts in turn (one per list item)
// allocates its slabs once.
func (p *jsonParser) parse(js []byte) (*jval, error) {
	if p.slab != nil {
		p.spare = append(append(p.spare, p.full...), p.slab)
		p.full, p.slab = p.full[:0], nil
	}
	p.in, p.raw, p.pos = string(js), js, 0
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.skipSpace(); p.pos != len(p.in) {
		return nil, fmt.Errorf("trailing data at offset %d", p.pos)
	}
	return v, nil
}

type jsonParser struct {
	in    string
	raw   []byte // the same bytes as in, for jval.raw
	pos   int
	slab  []jval
	full  [][]jval // the current parse's filled slabs
	spare [][]jval // earlier parses' slabs, free to reuse
	// keys and vals are stacks of the members of the objects and arrays being parsed; each
	// container copies its own members out once it is complete.
	keys []string
	vals []*jval
}

// node returns a new node from the current slab.
func (p *jsonParser) node(kind byte) *jval {
	if len(p.slab) == cap(p.slab) {
		if p.slab != nil {
			p.full = append(p.full, p.slab)
		}
		if n := len(p.spare); n > 0 {
			p.slab, p.spare = p.spare[n-1][:0], p.spare[:n-1]
		} else {
			p.slab = make([]jval, 0, 1024)
		}
	}
	p.slab = p.slab[:len(p.slab)+1]
	v := &p.slab[len(p.slab)-1]
	*v = jval{kind: kind} // a reused slab holds an earlier tree's node
	return v
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.in) && (p.in[p.pos] == ' ' || p.in[p.pos] == '\n' || p.in[p.pos] == '\t' || p.in[p.pos] == '\r') {
		p.pos++
	}
}

func (p *jsonParser) value() (*jval, error) {
	p.skipSpace()
	if p.pos >= len(p.in) {
		return nil, fmt.Errorf("unexpected end of JSON")
	}
	start := p.pos
	var v *jval
	var err error
	switch c := p.in[p.pos]; {
	case c == '{':
		v, err = p.object()
	case c == '[':
		v, err = p.array()
	case c == '"':
		var s string
		s, err = p.string()
		v = p.node('s')
		v.str = s
	case c == 't' || c == 'f' || c == 'n':
		v, err = p.literal()
	default:
		v, err = p.number()
	}
	if err != nil {
		return nil, err
	}
	v.raw = p.raw[start:p.pos]
	return v, nil
}

func (p *jsonParser) object() (*jval, error) {
	v := p.node('o')
	p.pos++
	kbase, vbase := len(p.keys), len(p.vals)
	defer func() { p.keys, p.vals = p.keys[:kbase], p.vals[:vbase] }()
	for {
		p.skipSpace()
		if p.pos < len(p.in) && p.in[p.pos] == '}' && len(p.keys) == kbase {
			p.pos++
			return v, nil
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		if p.skipSpace(); p.pos >= len(p.in) || p.in[p.pos] != ':' {
			return nil, fmt.Errorf("expected ':' at offset %d", p.pos)
		}
		p.pos++
		val, err := p.value()
		if err != nil {
			return nil, err
		}
		p.keys, p.vals = append(p.keys, k), append(p.vals, val)
		done, err := p.next('}')
		if err != nil {
			return nil, err
		}
		if done {
			v.keys = append([]string(nil), p.keys[kbase:]...)
			v.vals = append([]*jval(nil), p.vals[vbase:]...)
			return v, nil
		}
	}
}

func (p *jsonParser) array() (*jval, error) {
	v := p.node('a')
	p.pos++
	base := len(p.vals)
	defer func() { p.vals = p.vals[:base] }()
	for {
		p.skipSpace()
		if p.pos < len(p.in) && p.in[p.pos] == ']' && len(p.vals) == base {
			p.pos++
			return v, nil
		}
		it, err := p.value()
		if err != nil {
			return nil, err
		}
		p.vals = append(p.vals, it)
		done, err := p.next(']')
		if err != nil {
			return nil, err
		}
		if done {
			v.items = append([]*jval(nil), p.vals[base:]...)
			return v, nil
		}
	}
}

// next consumes a ',' (more to come) or the closing byte (done).
func (p *jsonParser) next(closing byte) (bool, error) {
	p.skipSpace()
	if p.pos >= len(p.in) {
		return false, fmt.Errorf("unexpected end of JSON")
	}
	switch p.in[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case closing:
		p.pos++
		return true, nil
	}
	return false, fmt.Errorf("unexpected %q at offset %d", p.in[p.pos], p.pos)
}

// string reads a JSON string; strings with escapes are decoded by encoding/json.
func (p *jsonParser) string() (string, error) {
	if p.pos >= len(p.in) || p.in[p.pos] != '"' {
		return "", fmt.Errorf("expected a string at offset %d", p.pos)
	}
	start, escaped := p.pos, false
	for p.pos++; p.pos < len(p.in); p.pos++ {
		switch p.in[p.pos] {
		case '\\':
			escaped = true
			p.pos++
		case '"':
			p.pos++
			if !escaped {
				return p.in[start+1 : p.pos-1], nil
			}
			var s string
			err := json.Unmarshal(p.raw[start:p.pos], &s)
			return s, err
		}
	}
	return "", fmt.Errorf("unterminated string")
}

func (p *jsonParser) literal() (*jval, error) {
	for _, w := range []struct {
		word string
		kind byte
	}{{"true", 't'}, {"false", 'f'}, {"null", 'z'}} {
		if len(p.in)-p.pos >= len(w.word) && p.in[p.pos:p.pos+len(w.word)] == w.word {
			p.pos += len(w.word)
			return p.node(w.kind), nil
		}
	}
	return nil, fmt.Errorf("invalid literal at offset %d", p.pos)
}

func (p *jsonParser) number() (*jval, error) {
	start := p.pos
	for p.pos < len(p.in) {
		c := p.in[p.pos]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			p.pos++
			continue
		}
		break
	}
	if p.pos == start {
		return nil, fmt.Errorf("unexpected %q at offset %d", p.in[p.pos], p.pos)
	}
	v := p.node('n')
	v.str = p.in[start:p.pos]
	return v, nil
}
