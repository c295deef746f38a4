package pcre

import "strings"

// verbs are PCRE2's backtracking control verbs; has says whether an argument is required (1),
// allowed (0) or, for MARK's shorthand "", required too.
var verbs = map[string]int{"": 1, "MARK": 1, "ACCEPT": 0, "F": 0, "FAIL": 0, "COMMIT": 0,
	"PRUNE": 0, "SKIP": 0, "THEN": 0}

// alphaAssertions are the (*name:...) spellings of lookarounds, atomic groups and script runs.
var alphaAssertions = map[string]groupKind{
	"pla": groupLookahead, "positive_lookahead": groupLookahead,
	"nla": groupLookahead, "negative_lookahead": groupLookahead,
	"napla": groupLookahead, "non_atomic_positive_lookahead": groupLookahead,
	"plb": groupLookbehind, "positive_lookbehind": groupLookbehind,
	"nlb": groupLookbehind, "negative_lookbehind": groupLookbehind,
	"naplb": groupLookbehind, "non_atomic_positive_lookbehind": groupLookbehind,
	"atomic": groupPlain, "sr": groupPlain, "asr": groupPlain,
	"script_run": groupPlain, "atomic_script_run": groupPlain,
}

// starGroup parses what follows "(*": an alpha assertion (lower-case name and ":") or a verb.
func (p *parser) starGroup() (parsedItem, error) {
	start := p.i
	for p.more() && isWord(p.s[p.i]) {
		p.i++
	}
	name := p.s[start:p.i]
	if c := name; c != "" && c[0] >= 'a' && c[0] <= 'z' {
		kind, ok := alphaAssertions[name]
		if !ok || p.peek(0) != ':' {
			return parsedItem{}, p.fail(p.i, "(*alpha_assertion) not recognized")
		}
		p.i++
		return p.body(kind, 0)
	}
	need, ok := verbs[name]
	if !ok || !p.more() || p.s[p.i] != ':' && p.s[p.i] != ')' {
		return parsedItem{}, p.fail(p.i, errVerb)
	}
	if p.s[p.i] == ':' && p.peek(1) == ')' {
		p.i++ // an empty argument is no argument
	}
	if need == 1 && p.s[p.i] != ':' {
		return parsedItem{}, p.fail(p.i, "(*MARK) must have an argument")
	}
	if p.s[p.i] == ':' {
		end := strings.IndexByte(p.s[p.i:], ')')
		if end < 0 {
			return parsedItem{}, p.fail(len(p.s), errUnclosed)
		}
		if end-1 > maxMark {
			return parsedItem{}, p.fail(p.i+end, "name is too long in (*MARK), (*PRUNE), (*SKIP), or (*THEN)")
		}
		p.i += end
	}
	p.i++ // )
	if name == "ACCEPT" {
		// PCRE2 brackets a quantified (*ACCEPT)
		return parsedItem{span: span{0, 0, 7}, repeatable: true, group: true}, nil
	}
	return parsedItem{span: span{size: 1}}, nil
}

// callout is (?C), (?Cn) with n up to 255, or (?C"text") with one of PCRE2's delimiters.
func (p *parser) callout() (parsedItem, error) {
	p.i++ // C
	if !p.more() {
		return parsedItem{}, p.fail(p.i, errUnclosed)
	}
	c := p.s[p.i]
	switch {
	case isDigit(c):
		n := 0
		for p.more() && isDigit(p.s[p.i]) {
			n = n*10 + int(p.s[p.i]-'0')
			p.i++
			if n > 255 {
				return parsedItem{}, p.fail(p.i, "number after (?C is greater than 255")
			}
		}
	case c == ')':
	default:
		closing := strings.IndexByte("`'\"^%#${", c)
		if closing < 0 {
			return parsedItem{}, p.fail(p.i, "unrecognized string delimiter follows (?C")
		}
		term := c
		if c == '{' {
			term = '}'
		}
		p.i++
		for {
			k := strings.IndexByte(p.s[p.i:], term)
			if k < 0 {
				return parsedItem{}, p.fail(len(p.s), "missing terminating delimiter for callout with string argument")
			}
			p.i += k + 1
			if p.peek(0) != term { // a doubled delimiter stands for itself
				break
			}
			p.i++
		}
	}
	if !p.more() || p.s[p.i] != ')' {
		return parsedItem{}, p.fail(p.i, "closing parenthesis for (?C expected")
	}
	p.i++
	return parsedItem{span: span{size: 4}}, nil
}

// conditional parses (?(condition)yes|no) after "(?(".
func (p *parser) conditional() (parsedItem, error) {
	if !p.more() {
		return parsedItem{}, p.fail(p.i, errUnclosed)
	}
	if p.s[p.i] == '?' || p.s[p.i] == '*' {
		return p.assertCondition()
	}
	kind, err := p.referenceCondition()
	if err != nil {
		return parsedItem{}, err
	}
	if !p.more() || p.s[p.i] != ')' {
		return parsedItem{}, p.fail(p.i, "missing closing parenthesis for condition")
	}
	p.i++
	return p.body(kind, 0)
}

// assertCondition is a condition that is a lookaround, optionally after a callout.
func (p *parser) assertCondition() (parsedItem, error) {
	p.i-- // back to the "(" that opens the assertion
	if strings.HasPrefix(p.s[p.i:], "(?C") {
		p.depth++
		p.i += 2
		_, err := p.callout()
		p.depth--
		if err != nil {
			return parsedItem{}, err
		}
	}
	rest := p.s[p.i:]
	ok := false
	for _, pre := range []string{"(?=", "(?!", "(?<=", "(?<!", "(?*", "(?<*", "(*"} {
		ok = ok || strings.HasPrefix(rest, pre)
	}
	if !ok {
		return parsedItem{}, p.fail(p.i, "assertion expected after (?( or (?(?C)")
	}
	cond, err := p.group()
	if err != nil {
		return parsedItem{}, err
	}
	return p.body(groupCond, cond.size)
}

// referenceCondition reads a condition naming a group, a recursion, DEFINE or VERSION, up to
// its ")".
func (p *parser) referenceCondition() (groupKind, error) {
	at := p.i
	c := p.s[p.i]
	switch {
	case isDigit(c) || c == '+' || c == '-':
		if (c == '+' || c == '-') && !isDigit(p.peek(1)) {
			return groupCond, p.fail(p.i+1, "digit expected after (?+ or (?-")
		}
		n, err := p.relativeNumber(p.groups, at)
		if err != nil {
			return groupCond, err
		}
		if n == 0 {
			return groupCond, p.fail(at, errNoRef)
		}
		p.refs = append(p.refs, ref{at: at, number: n})
		return groupCond, nil
	case c == '<' || c == '\'':
		term := byte('>')
		if c == '\'' {
			term = '\''
		}
		p.i++
		name, err := p.readName(term)
		if err == nil {
			p.refs = append(p.refs, ref{at: at, name: name})
		}
		return groupCond, err
	case strings.HasPrefix(p.s[p.i:], "VERSION"):
		return groupCond, p.versionCondition()
	}
	return p.namedCondition(at)
}

// namedCondition is (?(R), (?(Rn), (?(R&name), (?(DEFINE) or (?(name).
func (p *parser) namedCondition(at int) (groupKind, error) {
	if p.s[p.i] == 'R' && p.peek(1) == '&' {
		p.i += 2
		name, err := p.readNameUntil()
		if err == nil {
			p.refs = append(p.refs, ref{at: at, name: name})
		}
		return groupCond, err
	}
	start := p.i
	for p.more() && isWord(p.s[p.i]) {
		p.i++
	}
	name := p.s[start:p.i]
	switch {
	case name == "":
		return groupCond, p.fail(p.i, "assertion expected after (?( or (?(?C)")
	case name == "DEFINE":
		return groupDefine, nil
	case name == "R":
		return groupCond, nil
	case name[0] == 'R' && allDigits(name[1:]):
		n := 0
		for _, d := range name[1:] {
			n = min(n*10+int(d-'0'), maxGroups+1)
		}
		if n > 0 {
			p.refs = append(p.refs, ref{at: at, number: n})
		}
		return groupCond, nil
	case isDigit(name[0]):
		return groupCond, p.fail(start, "subpattern name must start with a non-digit")
	case len(name) > maxNameLen:
		return groupCond, p.fail(p.i, "subpattern name is too long (maximum 32 code units)")
	}
	p.refs = append(p.refs, ref{at: at, name: name})
	return groupCond, nil
}

func (p *parser) readNameUntil() (string, error) {
	start := p.i
	name, err := p.readName(')')
	if err == nil {
		p.i-- // leave ")" to the caller
	}
	_ = start
	return name, err
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// versionCondition is (?(VERSION=n.m) or (?(VERSION>=n.m).
func (p *parser) versionCondition() error {
	p.i += len("VERSION")
	bad := func() error { return p.fail(p.i, "syntax error or number too big in (?(VERSION condition") }
	if p.peek(0) == '>' {
		p.i++
	}
	if p.peek(0) != '=' {
		return bad()
	}
	p.i++
	digits := func(maxLen int) bool {
		s := p.i
		for p.more() && isDigit(p.s[p.i]) {
			p.i++
		}
		return p.i > s && p.i-s <= maxLen
	}
	if !digits(3) {
		return bad()
	}
	if p.peek(0) == '.' {
		p.i++
		if !digits(2) {
			return bad()
		}
	}
	return nil
}

// checkRefs refuses references to groups the whole pattern does not define: numbered ones
// (PCRE2 checks them right after parsing) or named ones (checked while compiling).
func (p *parser) checkRefs(numbered bool) error {
	for _, r := range p.refs {
		if numbered && r.name == "" && r.number > p.groups {
			return p.fail(r.at, errNoRef)
		}
		if _, ok := p.names[r.name]; !numbered && r.name != "" && !ok {
			return p.fail(r.at, errNoRef)
		}
	}
	return nil
}
