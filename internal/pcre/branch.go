package pcre

// groupKind says what a parenthesis opened, for the rules that differ: lookbehind lengths,
// conditional branch counts, (?| numbering.
type groupKind int

const (
	groupTop groupKind = iota
	groupPlain
	groupLookahead
	groupLookbehind
	groupCond
	groupDefine
	groupReset
)

// alternation parses branches up to an unconsumed ")" or the end of the pattern and returns
// what the whole can match and how many branches it has.
func (p *parser) alternation(kind groupKind) (span, int, error) {
	saved := p.opts
	defer func() { p.opts = saved }()
	start := p.groups
	highest := p.groups
	var out span
	variable, lbMax, start0 := false, 0, p.i
	for n := 1; ; n++ {
		if kind == groupReset {
			p.groups = start
		}
		if p.lookbehind > 0 {
			p.visits++
			if p.visits > maxBranchVisits && p.lateLookbehind == nil {
				p.lateLookbehind = p.fail(p.i, "lookbehind is too complicated")
			}
		}
		bs := p.i
		b, err := p.branch()
		if err != nil {
			return out, n, err
		}
		if kind == groupLookbehind && p.lateLookbehind == nil && p.skipLookbehind == 0 {
			if b.max < 0 {
				p.lateLookbehind = p.fail(bs, "length of lookbehind assertion is not limited")
			}
			variable = variable || b.min != b.max
			lbMax = max(lbMax, b.max)
		}
		highest = max(highest, p.groups)
		if n == 1 {
			out = b
		} else {
			out = out.or(b)
			out.size = satAdd(out.size, 3)
		}
		if !p.more() || p.s[p.i] != '|' {
			p.groups = highest
			if kind == groupLookbehind && p.lateLookbehind == nil && p.skipLookbehind == 0 {
				p.lateLookbehind = lookbehindLength(variable, lbMax, start0)
			}
			return out, n, nil
		}
		p.i++
	}
}

// lookbehindLength checks a lookbehind's branch lengths: each fixed (branches may differ) up to
// 65535, or, when some branch is variable, every branch up to 255 (PCRE2 10.43 and later;
// MAX_VARLOOKBEHIND).
func lookbehindLength(variable bool, longest, at int) error {
	switch {
	case longest > maxFixedLookbeh:
		return &Error{Offset: at, Msg: "lookbehind assertion is too long"}
	case variable && longest > maxVarLookbeh:
		return &Error{Offset: at, Msg: "branch too long in variable-length lookbehind assertion"}
	}
	return nil
}

// branch parses items up to "|", ")" or the end. Quantifiers apply to the last item; PCRE2
// refuses one that follows nothing repeatable (the start, an assertion, an option setting, a
// callout, a verb other than (*ACCEPT), or another quantifier and its +/? suffix).
func (p *parser) branch() (span, error) {
	var before, last span
	repeatable, group, zeroWidth := false, false, false
	for p.more() {
		if p.inQuote {
			if p.s[p.i] == '\\' && p.peek(1) == 'E' {
				p.i += 2
				p.inQuote = false
				continue
			}
			before = before.then(last)
			last, repeatable, group, zeroWidth = p.literal(), true, false, false
			continue
		}
		c := p.s[p.i]
		if c == '|' || c == ')' {
			break
		}
		if p.skipTransparent() {
			continue
		}
		if c == '*' || c == '+' || c == '?' || c == '{' && p.isQuantifier(p.i+1) {
			if !repeatable {
				return span{}, p.fail(p.i+1, "quantifier does not follow a repeatable item")
			}
			q, err := p.quantifier()
			if err != nil {
				return span{}, err
			}
			last = repeat(last, q, group, zeroWidth)
			repeatable = false
			continue
		}
		before = before.then(last)
		it, err := p.item()
		if err != nil {
			return span{}, err
		}
		last, repeatable, group, zeroWidth = it.span, it.repeatable, it.group, it.assert
	}
	return before.then(last), nil
}

// skipTransparent skips what does not change the quantification state: \Q, \E, (?#...)
// comments and, in extended mode, white space and # comments. (?# without ")" is an error that
// item reports.
func (p *parser) skipTransparent() bool {
	c := p.s[p.i]
	switch {
	case c == '\\' && (p.peek(1) == 'Q' || p.peek(1) == 'E'):
		p.inQuote = p.peek(1) == 'Q'
		p.i += 2
		return true
	case c == '(' && p.peek(1) == '?' && p.peek(2) == '#':
		for k := p.i + 3; k < len(p.s); k++ {
			if p.s[k] == ')' {
				p.i = k + 1
				return true
			}
		}
		return false
	case p.opts.extended && isSpace(c):
		p.i++
		return true
	case p.opts.extended && c == '#':
		for p.more() && p.s[p.i] != '\n' {
			p.i++
		}
		return true
	}
	return false
}

// skipComment skips one (?#...) comment or, in extended mode, white space or a # comment: they
// may stand between a quantifier and its + or ? suffix.
func (p *parser) skipComment() bool {
	c := p.s[p.i]
	if c == '\\' || !(c == '(' || p.opts.extended && (isSpace(c) || c == '#')) {
		return false
	}
	return p.skipTransparent()
}

// quant is a parsed quantifier: its bounds (max unbounded: -1).
type quant struct{ min, max int }

func (p *parser) quantifier() (quant, error) {
	var q quant
	switch p.s[p.i] {
	case '*':
		q, p.i = quant{0, unbounded}, p.i+1
	case '+':
		q, p.i = quant{1, unbounded}, p.i+1
	case '?':
		q, p.i = quant{0, 1}, p.i+1
	default:
		var err error
		if q, err = p.repeatCounts(); err != nil {
			return q, err
		}
	}
	for p.more() && p.skipComment() {
	}
	if p.more() && (p.s[p.i] == '+' || p.s[p.i] == '?') {
		p.i++
	}
	return q, nil
}

// repeat is what an item quantified q matches; an unbounded repeat of a group is of unlimited
// length even when the group matches nothing, as PCRE2 measures lookbehinds. A quantified group is compiled as copies of
// itself (min copies, plus max-min optional ones when max is bounded), which is how a small
// pattern reaches PCRE2's compiled size limit.
func repeat(it span, q quant, group, assert bool) span {
	out := span{min: satMul(it.min, q.min), max: unbounded, size: it.size}
	if q.max >= 0 && it.max >= 0 {
		out.max = satMul(it.max, q.max)
	}
	if assert || it.max == 0 && !group {
		out.min, out.max = 0, 0 // PCRE2 repeats an assertion at most once
	}
	if group {
		// min copies, then each optional copy in its own bracket with a BRAZERO (7 code units)
		optional := 0
		if q.max > q.min {
			optional = q.max - q.min
		}
		mandatory := q.min
		if mandatory == 0 && optional == 0 {
			mandatory = 1
		}
		out.size = satAdd(satMul(it.size, mandatory), satMul(satAdd(it.size, 7), optional))
	}
	return out
}

// isQuantifier reports whether "{" at k-1 starts a {n}, {n,}, {,m} or {n,m} quantifier (spaces
// and tabs allowed around the numbers, as in Perl 5.34); otherwise it is a literal.
func (p *parser) isQuantifier(k int) bool {
	skip := func() {
		for k < len(p.s) && (p.s[k] == ' ' || p.s[k] == '\t') {
			k++
		}
	}
	digits := func() bool {
		s := k
		for k < len(p.s) && isDigit(p.s[k]) {
			k++
		}
		return k > s
	}
	skip()
	hadMin := digits()
	skip()
	if k >= len(p.s) {
		return false
	}
	if p.s[k] == '}' {
		return hadMin
	}
	if p.s[k] != ',' {
		return false
	}
	k++
	skip()
	hadMax := digits()
	skip()
	return (hadMin || hadMax) && k < len(p.s) && p.s[k] == '}'
}

// repeatCounts reads a quantifier isQuantifier accepted, from its "{": PCRE2 checks each
// number against 65535 and the order of the two.
func (p *parser) repeatCounts() (quant, error) {
	p.i++
	num := func() (int, bool, error) {
		p.skipBlanks()
		n, s := 0, p.i
		for p.more() && isDigit(p.s[p.i]) {
			n = n*10 + int(p.s[p.i]-'0')
			p.i++
			if n > maxRepeat {
				return 0, false, p.fail(p.i, "number too big in {} quantifier")
			}
		}
		had := p.i > s
		p.skipBlanks()
		return n, had, nil
	}
	lo, _, err := num()
	if err != nil {
		return quant{}, err
	}
	if p.s[p.i] == '}' {
		p.i++
		return quant{lo, lo}, nil
	}
	p.i++ // the comma
	hi, had, err := num()
	if err != nil {
		return quant{}, err
	}
	p.i++ // the }
	if !had {
		return quant{lo, unbounded}, nil
	}
	if hi < lo {
		return quant{}, p.fail(p.i-1, "numbers out of order in {} quantifier")
	}
	return quant{lo, hi}, nil
}

func (p *parser) skipBlanks() {
	for p.more() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}
