package pcre

import "unicode/utf8"

// parsedItem is one item of a branch: what it matches, whether a quantifier may follow it, and
// whether it is a group (quantified groups are compiled as copies).
type parsedItem struct {
	span
	repeatable, group, assert bool
}

var (
	oneChar   = parsedItem{span: span{1, 1, 2}, repeatable: true}
	assertion = parsedItem{span: span{0, 0, 1}}
)

// item parses one item at p.i (not "|", ")" or a quantifier).
func (p *parser) item() (parsedItem, error) {
	switch p.s[p.i] {
	case '\\':
		return p.escapeItem()
	case '[':
		return p.class()
	case '(':
		return p.group()
	case '^', '$':
		p.i++
		return assertion, nil
	}
	return parsedItem{span: p.literal().withSize(2), repeatable: true}, nil
}

// literal consumes one character (a whole UTF-8 sequence in UTF mode).
func (p *parser) literal() span {
	if p.utf {
		_, n := utf8.DecodeRuneInString(p.s[p.i:])
		p.i += n
	} else {
		p.i++
	}
	return span{1, 1, 2}
}

func (s span) withSize(n int) span {
	s.size = n
	return s
}

// escapeItem parses a backslash sequence outside a class.
func (p *parser) escapeItem() (parsedItem, error) {
	e, err := p.escape(false)
	if err != nil {
		return parsedItem{}, err
	}
	switch e.kind {
	case escAssert:
		return assertion, nil
	case escKeep:
		if p.lookaround > 0 {
			p.compileError(`\K is not allowed in lookarounds (but see PCRE2_EXTRA_ALLOW_LOOKAROUND_BSK)`)
		}
		return assertion, nil
	case escNewline:
		return parsedItem{span: span{1, 2, 1}, repeatable: true}, nil
	case escCluster:
		return parsedItem{span: span{1, unbounded, 1}, repeatable: true}, nil
	case escGroupRef:
		return parsedItem{span: p.refSpan(e.ref).withSize(3), repeatable: true}, nil
	}
	if e.kind == escByte && p.lookbehind > 0 && p.utf {
		return parsedItem{}, p.fail(p.i, `\C is not allowed in a lookbehind assertion in UTF-8 mode`)
	}
	return oneChar, nil
}

// refSpan is what a back reference or subroutine call can match: the referenced group's length
// when it is already closed; otherwise (a forward reference, a recursion) nothing is assumed, so
// that a lookbehind holding one is not refused on a guess.
func (p *parser) refSpan(r ref) span {
	if r.name != "" {
		if n, ok := p.names[r.name]; ok {
			r.number = n
		}
	}
	if r.number > 0 && r.number < len(p.groupLen) {
		switch g := p.groupLen[r.number]; g.size {
		case groupClosed:
			return g
		case groupOpen: // a reference inside its own group: a recursion, of no known length
			return span{0, unbounded, 0}
		}
	}
	return span{}
}
