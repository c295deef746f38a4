package pcre

import "strings"

// groupLen's size field marks a capturing group as open or closed (its length then known).
const (
	groupOpen   = 1
	groupClosed = 2
)

const (
	errUnclosed = "missing closing parenthesis"
	errAfterQ   = "unrecognized character after (? or (?-"
	errVerb     = "(*VERB) not recognized or malformed"
)

// group parses a parenthesised item from its "(".
func (p *parser) group() (parsedItem, error) {
	open := p.i
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNest {
		return parsedItem{}, p.fail(open, "parentheses are too deeply nested")
	}
	p.i++
	if !p.more() {
		return parsedItem{}, p.fail(p.i, errUnclosed)
	}
	switch p.s[p.i] {
	case '?':
		p.i++
		return p.questionGroup(open)
	case '*':
		if c := p.peek(1); c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			p.i++
			return p.starGroup()
		}
	}
	if p.opts.noAutoCapture {
		return p.body(groupPlain, 0)
	}
	return p.capture("")
}

// capture opens capturing group number p.groups+1 (named when name is set).
func (p *parser) capture(name string) (parsedItem, error) {
	p.groups++
	if p.groups > maxGroups {
		return parsedItem{}, p.fail(p.i, "too many capturing groups (maximum 65535)")
	}
	n := p.groups
	if name != "" {
		if err := p.defineName(name, n); err != nil {
			return parsedItem{}, err
		}
	}
	for len(p.groupLen) <= n {
		p.groupLen = append(p.groupLen, span{})
	}
	p.groupLen[n].size = groupOpen
	it, err := p.body(groupPlain, 2)
	if err == nil {
		p.groupLen[n] = span{it.min, it.max, groupClosed}
	}
	return it, err
}

func (p *parser) defineName(name string, n int) error {
	if p.names == nil {
		p.names = map[string]int{}
	}
	if old, ok := p.names[name]; ok && old != n && !p.opts.dupNames {
		return p.fail(p.i, "two named subpatterns have the same name (PCRE2_DUPNAMES not set)")
	} else if !ok {
		p.nameCount++
		if p.nameCount > maxNames {
			return p.fail(p.i, "too many named subpatterns (maximum 10000)")
		}
		p.names[name] = n
	}
	return nil
}

// body parses a group's alternation after its opening syntax, and its ")". extra is the
// compiled size beyond a non-capturing group's brackets.
func (p *parser) body(kind groupKind, extra int) (parsedItem, error) {
	switch kind {
	case groupLookahead, groupLookbehind:
		p.lookaround++
		defer func() { p.lookaround-- }()
	}
	if kind == groupLookbehind {
		p.lookbehind++
		defer func() { p.lookbehind-- }()
	}
	if kind == groupDefine && p.lookbehind > 0 {
		p.skipLookbehind++
		defer func() { p.skipLookbehind-- }()
	}
	sp, branches, err := p.alternation(kind)
	if err != nil {
		return parsedItem{}, err
	}
	if !p.more() {
		return parsedItem{}, p.fail(len(p.s), errUnclosed)
	}
	p.i++ // )
	switch {
	case kind == groupCond && branches > 2:
		p.compileError("conditional subpattern contains more than two branches")
	case kind == groupDefine && branches > 1:
		p.compileError("DEFINE subpattern contains more than one branch")
	case kind == groupLookahead || kind == groupLookbehind:
		sp.min, sp.max = 0, 0
	case kind == groupDefine:
		sp.min, sp.max = 0, 0
	}
	sp.size = satAdd(sp.size, 6+extra)
	lookaround := kind == groupLookahead || kind == groupLookbehind
	return parsedItem{span: sp, repeatable: true, group: true, assert: lookaround}, nil
}

// questionGroup parses what follows "(?".
func (p *parser) questionGroup(open int) (parsedItem, error) {
	if !p.more() {
		return parsedItem{}, p.fail(p.i, errUnclosed)
	}
	c := p.s[p.i]
	switch {
	case c == ':' || c == '>':
		p.i++
		return p.body(groupPlain, 0)
	case c == '#': // skipTransparent took every closed comment
		return parsedItem{}, p.fail(len(p.s), "missing ) after (?# comment")
	case c == '|':
		p.i++
		return p.body(groupReset, 0)
	case c == '=' || c == '!' || c == '*':
		p.i++
		return p.body(groupLookahead, 0)
	case c == '<':
		return p.angleGroup()
	case c == '\'':
		p.i++
		name, err := p.readName('\'')
		if err != nil {
			return parsedItem{}, err
		}
		return p.capture(name)
	case c == 'P':
		return p.pythonGroup()
	case c == '&':
		p.i++
		return p.callByName(')')
	case c == 'R':
		if p.peek(1) != ')' {
			return parsedItem{}, p.fail(p.i+1, "(?R (recursive pattern call) must be followed by a closing parenthesis")
		}
		p.i += 2
		return parsedItem{span: span{size: 4}, repeatable: true}, nil
	case isDigit(c) || (c == '+' || c == '-') && isDigit(p.peek(1)):
		return p.callByNumber(open)
	case c == '+':
		return parsedItem{}, p.fail(p.i+1, "digit expected after (?+ or (?-")
	case c == 'C':
		return p.callout()
	case c == '(':
		p.i++
		return p.conditional()
	}
	return p.optionSetting()
}

// angleGroup is (?<name>...), (?<=...), (?<!...) or (?<*...).
func (p *parser) angleGroup() (parsedItem, error) {
	p.i++
	switch p.peek(0) {
	case '=', '!', '*':
		p.i++
		return p.body(groupLookbehind, 0)
	}
	name, err := p.readName('>')
	if err != nil {
		return parsedItem{}, err
	}
	return p.capture(name)
}

// pythonGroup is (?P<name>...), (?P=name) or (?P>name).
func (p *parser) pythonGroup() (parsedItem, error) {
	p.i++
	switch p.peek(0) {
	case '<':
		p.i++
		name, err := p.readName('>')
		if err != nil {
			return parsedItem{}, err
		}
		return p.capture(name)
	case '=', '>':
		at := p.i - 3
		p.i++
		name, err := p.readName(')')
		if err != nil {
			return parsedItem{}, err
		}
		r := ref{at: at, name: name}
		p.refs = append(p.refs, r)
		return parsedItem{span: p.refSpan(r).withSize(3), repeatable: true}, nil
	}
	return parsedItem{}, p.fail(p.i, "unrecognized character after (?P")
}

func (p *parser) callByName(term byte) (parsedItem, error) {
	at := p.i
	name, err := p.readName(term)
	if err != nil {
		return parsedItem{}, err
	}
	r := ref{at: at, name: name}
	p.refs = append(p.refs, r)
	return parsedItem{span: p.refSpan(r).withSize(4), repeatable: true}, nil
}

// callByNumber is (?n), (?+n) or (?-n): a subroutine call, relative ones counted from the
// groups opened so far.
func (p *parser) callByNumber(open int) (parsedItem, error) {
	n, err := p.relativeNumber(p.groups, open)
	if err != nil {
		return parsedItem{}, err
	}
	if !p.more() || p.s[p.i] != ')' {
		return parsedItem{}, p.fail(p.i, errUnclosed)
	}
	p.i++
	r := ref{at: open, number: n}
	if n > 0 {
		p.refs = append(p.refs, r)
	}
	return parsedItem{span: p.refSpan(r).withSize(4), repeatable: true}, nil
}

// relativeNumber reads [+-]digits at p.i: +n is base+n, -n is base+1-n; 0 with a sign is
// refused, as is -n before the first group.
func (p *parser) relativeNumber(base, at int) (int, error) {
	sign := byte(0)
	if c := p.s[p.i]; c == '+' || c == '-' {
		sign = c
		p.i++
	}
	n := 0
	for p.more() && isDigit(p.s[p.i]) {
		n = n*10 + int(p.s[p.i]-'0')
		p.i++
		if n > maxGroups {
			return 0, p.fail(p.i, "subpattern number is too big")
		}
	}
	switch {
	case sign != 0 && n == 0:
		return 0, p.fail(p.i, "a relative value of zero is not allowed")
	case sign == '+':
		n += base
	case sign == '-':
		if n > base {
			return 0, p.fail(at, errNoRef)
		}
		n = base + 1 - n
	}
	return n, nil
}

// readName reads a group name up to term: word characters, not starting with a digit, at most
// 32 of them.
func (p *parser) readName(term byte) (string, error) {
	start := p.i
	if !p.more() {
		return "", p.fail(p.i, errUnclosed)
	}
	if isDigit(p.s[p.i]) {
		return "", p.fail(p.i, "subpattern name must start with a non-digit")
	}
	for p.more() && (isWord(p.s[p.i]) || p.utf && p.s[p.i] >= 0x80) {
		p.i++
	}
	name := p.s[start:p.i]
	switch {
	case p.i-start > maxNameLen:
		return "", p.fail(p.i, "subpattern name is too long (maximum 32 code units)")
	case name == "":
		return "", p.fail(p.i, "subpattern name expected")
	case !p.more() || p.s[p.i] != term:
		return "", p.fail(p.i, "syntax error in subpattern name (missing terminator?)")
	}
	p.i++
	return name, nil
}

// optionSetting is (?imnrsxJU-imnrsx) or (?^...) alone (applies to the rest of the enclosing
// group) or followed by ":" (a non-capturing group with those options).
func (p *parser) optionSetting() (parsedItem, error) {
	set, hyphenOK := true, true
	o := p.opts
	if p.peek(0) == '^' {
		o.extended, o.extendedMore, o.noAutoCapture = false, false, false
		hyphenOK = false
		p.i++
	}
	for p.more() && p.s[p.i] != ')' && p.s[p.i] != ':' {
		c := p.s[p.i]
		p.i++
		switch c {
		case '-':
			if !hyphenOK {
				return parsedItem{}, p.fail(p.i-1, "invalid hyphen in option setting")
			}
			set, hyphenOK = false, false
		case 'a':
			if strings.IndexByte("DPSTW", p.peek(0)) >= 0 && p.more() {
				p.i++
			}
		case 'J':
			o.dupNames = set
		case 'n':
			o.noAutoCapture = set
		case 'x':
			o.extended = set
			more := p.peek(0) == 'x'
			if more {
				p.i++
			}
			o.extendedMore = set && more
		case 'i', 'm', 'r', 's', 'U':
		default:
			return parsedItem{}, p.fail(p.i-1, errAfterQ)
		}
	}
	if !p.more() {
		return parsedItem{}, p.fail(p.i, errUnclosed)
	}
	if p.s[p.i] == ')' {
		p.i++
		p.opts = o
		return parsedItem{}, nil
	}
	p.i++
	saved := p.opts
	p.opts = o
	it, err := p.body(groupPlain, 0)
	p.opts = saved
	return it, err
}

// compileError records an error PCRE2 finds only while compiling, after every parse error.
func (p *parser) compileError(msg string) {
	if p.lateCompile == nil {
		p.lateCompile = p.fail(p.i, msg)
	}
}
