package pcre

import "strings"

var posixClasses = map[string]bool{"alpha": true, "lower": true, "upper": true, "alnum": true,
	"ascii": true, "blank": true, "cntrl": true, "digit": true, "graph": true, "print": true,
	"punct": true, "space": true, "word": true, "xdigit": true}

// classEnd is one end of a possible range in a class: a character (value) or a set (\d, a POSIX
// class), which cannot be an end.
type classEnd struct {
	value int
	set   bool
}

// class parses a character class from its "[". A "]" right after "[" or "[^" is a literal;
// ranges must be in order and between characters.
func (p *parser) class() (parsedItem, error) {
	if c := p.peek(1); c == ':' || c == '.' || c == '=' {
		if _, ok := posixEnd(p.s, p.i+1); ok {
			return parsedItem{}, p.fail(p.i, "POSIX named classes are supported only within a class")
		}
	}
	p.i++
	if p.peek(0) == '^' {
		p.i++
	}
	first, members := true, 0
	var prev *classEnd
	quote := false
	for {
		if !p.more() {
			return parsedItem{}, p.fail(len(p.s), "missing terminating ] for character class")
		}
		c := p.s[p.i]
		if quote {
			if c == '\\' && p.peek(1) == 'E' {
				p.i += 2
				quote = false
				continue
			}
			e := p.classChar()
			if err := p.rangeTo(&prev, e); err != nil {
				return parsedItem{}, err
			}
			first = false
			members++
			continue
		}
		if c == ']' && !first {
			p.i++
			size := 2 // one character: OP_CHAR or OP_NOT
			if members > 1 {
				size = 33 // OP_CLASS and its 256-bit map
			}
			return parsedItem{span: span{1, 1, size}, repeatable: true}, nil
		}
		members++
		first = false
		if c == '\\' && (p.peek(1) == 'Q' || p.peek(1) == 'E') {
			quote = p.peek(1) == 'Q'
			p.i += 2
			continue
		}
		if p.opts.extendedMore && (c == ' ' || c == '\t') {
			p.i++
			continue
		}
		e, err := p.classItem()
		if err != nil {
			return parsedItem{}, err
		}
		if err := p.rangeTo(&prev, e); err != nil {
			return parsedItem{}, err
		}
	}
}

// rangeTo records class item e; when the previous item was a character followed by "-" (held
// in *prev with the hyphen consumed), e ends a range.
func (p *parser) rangeTo(prev **classEnd, e classEnd) error {
	if *prev != nil {
		start := **prev
		*prev = nil
		if start.set || e.set {
			return p.fail(p.i, "invalid range in character class")
		}
		if e.value < start.value {
			return p.fail(p.i, "range out of order in character class")
		}
		return nil
	}
	if p.peek(0) == '-' && p.i+1 < len(p.s) && p.s[p.i+1] != ']' {
		if e.set {
			return p.fail(p.i+1, "invalid range in character class")
		}
		p.i++
		*prev = &e
	}
	return nil
}

// classItem parses one class member at p.i: a POSIX class, an escape or a character.
func (p *parser) classItem() (classEnd, error) {
	c := p.s[p.i]
	if c == '[' {
		if d := p.peek(1); d == ':' || d == '.' || d == '=' {
			if end, ok := posixEnd(p.s, p.i+1); ok {
				if d != ':' {
					return classEnd{}, p.fail(p.i, "POSIX collating elements are not supported")
				}
				name := strings.TrimPrefix(p.s[p.i+2:end], "^")
				if !posixClasses[name] {
					return classEnd{}, p.fail(p.i+2, "unknown POSIX class name")
				}
				p.i = end + 2
				return classEnd{set: true}, nil
			}
		}
	}
	if c != '\\' {
		return p.classChar(), nil
	}
	e, err := p.escape(true)
	if err != nil {
		return classEnd{}, err
	}
	if e.kind == escChar {
		return classEnd{value: e.value}, nil
	}
	return classEnd{set: true}, nil
}

// classChar consumes one literal character of a class and returns its value.
func (p *parser) classChar() classEnd {
	c := p.s[p.i]
	if p.utf && c >= 0x80 {
		start := p.i
		p.literal()
		r := []rune(p.s[start:p.i])
		return classEnd{value: int(r[0])}
	}
	p.i++
	return classEnd{value: int(c)}
}

// posixEnd is PCRE2's check_posix_syntax: from the ":", "." or "=" at k, the index of the
// matching terminator before "]", if the sequence is one.
func posixEnd(s string, k int) (int, bool) {
	term := s[k]
	for j := k + 1; len(s)-j >= 2; j++ {
		switch {
		case s[j] == '\\' && (s[j+1] == ']' || s[j+1] == '\\'):
			j++
		case s[j] == '[' && s[j+1] == term || s[j] == ']':
			return 0, false
		case s[j] == term && s[j+1] == ']':
			return j, true
		}
	}
	return 0, false
}

// gReference is \g: a back reference (\gn, \g-n, \g{n}, \g{-n}, \g{name}) or a subroutine call
// (\g<n>, \g<+n>, \g<name>, and the same in single quotes).
func (p *parser) gReference(at int) (esc, error) {
	if !p.more() {
		return esc{}, p.fail(p.i, errGSyntax)
	}
	switch c := p.s[p.i]; {
	case c == '<' || c == '\'':
		term := byte('>')
		if c == '\'' {
			term = '\''
		}
		p.i++
		return p.numberOrName(at, term, true)
	case c == '{':
		p.i++
		return p.numberOrName(at, '}', false)
	case isDigit(c) || c == '-' || c == '+':
		return p.numberOrName(at, 0, false)
	}
	return esc{}, p.fail(p.i, errGSyntax)
}

// numberOrName reads a group number (relative with a sign) or, when term is set, a name, up to
// term (none: the number just ends).
func (p *parser) numberOrName(at int, term byte, call bool) (esc, error) {
	if !p.more() {
		return esc{}, p.fail(p.i, errGSyntax)
	}
	c := p.s[p.i]
	if isDigit(c) || c == '-' || c == '+' {
		if c == '+' && !call || (c == '-' || c == '+') && !isDigit(p.peek(1)) {
			return esc{}, p.fail(p.i, errGSyntax)
		}
		n, err := p.relativeNumber(p.groups, at)
		if err != nil {
			return esc{}, err
		}
		if term != 0 {
			if !p.more() || p.s[p.i] != term {
				return esc{}, p.fail(p.i, errGSyntax)
			}
			p.i++
		}
		if n == 0 && !call {
			return esc{}, p.fail(p.i, "a relative value of zero is not allowed")
		}
		r := ref{at: at, number: n}
		if n > 0 {
			p.refs = append(p.refs, r)
		}
		return esc{kind: escGroupRef, ref: r}, nil
	}
	if term == 0 {
		return esc{}, p.fail(p.i, errGSyntax)
	}
	return p.namedRef(at, term)
}

// namedRef reads a group name up to term and records the reference.
func (p *parser) namedRef(at int, term byte) (esc, error) {
	name, err := p.readName(term)
	if err != nil {
		return esc{}, err
	}
	r := ref{at: at, name: name}
	p.refs = append(p.refs, r)
	return esc{kind: escGroupRef, ref: r}, nil
}

// kReference is \k<name>, \k'name' or \k{name}.
func (p *parser) kReference(at int) (esc, error) {
	term := map[byte]byte{'<': '>', '\'': '\'', '{': '}'}[p.peek(0)]
	if term == 0 || !p.more() {
		return esc{}, p.fail(p.i, errKSyntax)
	}
	p.i++
	return p.namedRef(at, term)
}
