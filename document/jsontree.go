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
// malformed input instead of misreading it.
func parseJSONTree(js []byte) (*jval, error) {
	p := &jsonParser{in: js}
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
	in  []byte
	pos int
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
		v = &jval{kind: 's', str: s}
	case c == 't' || c == 'f' || c == 'n':
		v, err = p.literal()
	default:
		v, err = p.number()
	}
	if err != nil {
		return nil, err
	}
	v.raw = p.in[start:p.pos]
	return v, nil
}

func (p *jsonParser) object() (*jval, error) {
	v := &jval{kind: 'o'}
	p.pos++
	for {
		p.skipSpace()
		if p.pos < len(p.in) && p.in[p.pos] == '}' && len(v.keys) == 0 {
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
		v.keys, v.vals = append(v.keys, k), append(v.vals, val)
		if done, err := p.next('}'); done || err != nil {
			return v, err
		}
	}
}

func (p *jsonParser) array() (*jval, error) {
	v := &jval{kind: 'a'}
	p.pos++
	for {
		p.skipSpace()
		if p.pos < len(p.in) && p.in[p.pos] == ']' && len(v.items) == 0 {
			p.pos++
			return v, nil
		}
		it, err := p.value()
		if err != nil {
			return nil, err
		}
		v.items = append(v.items, it)
		if done, err := p.next(']'); done || err != nil {
			return v, err
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
				return string(p.in[start+1 : p.pos-1]), nil
			}
			var s string
			err := json.Unmarshal(p.in[start:p.pos], &s)
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
		if len(p.in)-p.pos >= len(w.word) && string(p.in[p.pos:p.pos+len(w.word)]) == w.word {
			p.pos += len(w.word)
			return &jval{kind: w.kind}, nil
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
	return &jval{kind: 'n', str: string(p.in[start:p.pos])}, nil
}
