package atc

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds on what Parse reads. Kong itself has none, but a route expression is written by a
// controller or a person, never megabytes long or hundreds of parentheses deep, and a parser
// that recurses per parenthesis must stop somewhere before the stack does.
const (
	// MaxExpressionLen is the longest expression Parse reads, in bytes.
	MaxExpressionLen = 1 << 20
	// MaxDepth is the deepest nesting of parentheses (groups, negations and transformations)
	// Parse and Check accept.
	MaxDepth = 64
)

// SyntaxError is an expression Kong's grammar does not accept, with the byte offset where
// reading stopped.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("syntax error at offset %d: %s", e.Offset, e.Msg)
}

// Parse reads an expression of Kong's grammar (atc-router's atc_grammar.pest) into a tree. As
// in Kong, || binds tighter than && (atc-router's Pratt parser declares && first), whitespace
// (space, tab, CR, LF) may stand between any two tokens, `!` applies only to a parenthesised
// expression, and integers may be written in octal (leading 0) or hex (0x). A chain of the same
// operator becomes one And or Or; parentheses only group, so rendering the result gives KIC's
// form of the same expression. Parse does not consult the schema: see Check.
//
// Parse reads each byte a bounded number of times; input longer than MaxExpressionLen or nested
// deeper than MaxDepth is refused.
func Parse(text string) (Matcher, error) {
	if len(text) > MaxExpressionLen {
		return nil, &SyntaxError{Offset: MaxExpressionLen, Msg: fmt.Sprintf("expression longer than %d bytes", MaxExpressionLen)}
	}
	if !utf8.ValidString(text) {
		return nil, &SyntaxError{Offset: len(text) - len(strings.ToValidUTF8(text, "")), Msg: "expression is not valid UTF-8"}
	}
	p := &parser{s: text}
	p.space()
	m, err := p.expression()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, p.errorf("unexpected %q after a complete expression", p.rest(8))
	}
	return m, nil
}

// parser is the state of one Parse: the text and the offset of the next unread byte.
type parser struct {
	s     string
	i     int
	depth int
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

// rest is up to n bytes of what is left, for error messages.
func (p *parser) rest(n int) string {
	r := p.s[p.i:]
	if len(r) > n {
		r = r[:n] + "…"
	}
	return r
}

func (p *parser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// eat consumes tok if the text continues with it.
func (p *parser) eat(tok string) bool {
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

// expression is a chain of ors joined by && (|| binds tighter in Kong).
func (p *parser) expression() (Matcher, error) {
	return p.chain("&&", p.orChain, And)
}

// orChain is a chain of terms joined by ||.
func (p *parser) orChain() (Matcher, error) {
	return p.chain("||", p.term, Or)
}

// chain reads operands separated by op and joins them with join.
func (p *parser) chain(op string, operand func() (Matcher, error), join func(...Matcher) Matcher) (Matcher, error) {
	var ms []Matcher
	for {
		m, err := operand()
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
		p.space()
		save := p.i
		if !p.eat(op) {
			break
		}
		p.space()
		if p.i == len(p.s) {
			p.i = save
			return nil, p.errorf("%s without a right operand", op)
		}
	}
	return join(ms...), nil
}

// term is a predicate, or an expression in parentheses, negated if `!` precedes them.
func (p *parser) term() (Matcher, error) {
	if p.i >= len(p.s) {
		return nil, p.errorf("expected a predicate or '(' but the expression ended")
	}
	c := p.s[p.i]
	if c != '!' && c != '(' {
		if !isAlpha(c) {
			return nil, p.errorf("expected a predicate or '(' at %q", p.rest(8))
		}
		return p.predicate()
	}
	negate := p.eat("!")
	p.space()
	if !p.eat("(") {
		return nil, p.errorf("'!' must be followed by a parenthesised expression")
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.space()
	m, err := p.expression()
	if err != nil {
		return nil, err
	}
	p.space()
	if !p.eat(")") {
		return nil, p.errorf("expected ')' at %q", p.rest(8))
	}
	p.depth--
	if negate {
		return Not(m), nil
	}
	return m, nil
}

// enter counts one more level of nesting and refuses to go beyond MaxDepth.
func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.errorf("nested deeper than %d levels", MaxDepth)
	}
	return nil
}

// predicate is `lhs op rhs`.
func (p *parser) predicate() (Matcher, error) {
	f, err := p.lhs()
	if err != nil {
		return nil, err
	}
	p.space()
	op, ok := p.operator()
	if !ok {
		return nil, p.errorf("expected an operator after %s at %q", f, p.rest(8))
	}
	p.space()
	at := p.i
	v, err := p.rhs()
	if err != nil {
		return nil, err
	}
	if _, isString := v.(StringValue); op == OpRegexMatch && !isString {
		return nil, &SyntaxError{Offset: at, Msg: "regex operator can only be used with String operands"}
	}
	return Predicate{Field: f, Op: op, Value: v}, nil
}

// lhs is a field, or a transformation function applied to one: `lower(http.path)`.
func (p *parser) lhs() (Field, error) {
	start := p.i
	name := p.ident()
	if name == "" {
		return "", p.errorf("expected a field name at %q", p.rest(8))
	}
	save := p.i
	p.space()
	if !p.eat("(") {
		p.i = save
		return Field(name), nil
	}
	if name != transformLower && name != transformAny {
		p.i = start
		return "", p.errorf("unknown transformation function: %s", name)
	}
	if err := p.enter(); err != nil {
		return "", err
	}
	p.space()
	inner, err := p.lhs()
	if err != nil {
		return "", err
	}
	p.space()
	if !p.eat(")") {
		return "", p.errorf("expected ')' after the argument of %s", name)
	}
	p.depth--
	return Field(name + "(" + string(inner) + ")"), nil
}

// ident reads an identifier: an ASCII letter, then letters, digits, '_' and '.'.
func (p *parser) ident() string {
	start := p.i
	if p.i < len(p.s) && isAlpha(p.s[p.i]) {
		p.i++
		for p.i < len(p.s) && isIdentByte(p.s[p.i]) {
			p.i++
		}
	}
	return p.s[start:p.i]
}

// operator reads a binary operator, trying them in the order of Kong's grammar (">=" before
// ">", "<=" before "<"); "not" and "in" may be separated by any whitespace.
func (p *parser) operator() (Op, bool) {
	operators := [...]Op{OpEqual, OpNotEqual, OpRegexMatch, OpPrefixMatch, OpSuffixMatch,
		OpGreaterEqual, OpGreater, OpLessEqual, OpLess, OpIn, OpNotIn, OpContains}
	for _, op := range operators {
		if op == OpNotIn {
			save := p.i
			if p.eat("not") {
				p.space()
				if p.eat("in") {
					return op, true
				}
			}
			p.i = save
			continue
		}
		if p.eat(string(op)) {
			return op, true
		}
	}
	return "", false
}

// rhs reads a literal, trying the kinds in the order of Kong's grammar: string, raw string, IP
// network, IP address, integer.
func (p *parser) rhs() (Value, error) {
	switch {
	case p.eat(`"`):
		return p.stringLiteral()
	case p.eat(`r#"`):
		end := strings.Index(p.s[p.i:], `"#`)
		if end < 0 {
			return nil, p.errorf("raw string without its closing \"#")
		}
		v := StringValue(p.s[p.i : p.i+end])
		p.i += end + 2
		return v, nil
	}
	if v, ok, err := p.ipLiteral(); ok || err != nil {
		return v, err
	}
	return p.intLiteral()
}

// stringLiteral reads the rest of a double-quoted string; only \" \\ \n \r \t are escapes.
func (p *parser) stringLiteral() (Value, error) {
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return StringValue(b.String()), nil
		case '\\':
			if p.i+1 >= len(p.s) {
				return nil, p.errorf("string ends inside an escape")
			}
			e, ok := unescape(p.s[p.i+1])
			if !ok {
				return nil, p.errorf("invalid escape \\%c in a string (Kong knows \\\" \\\\ \\n \\r \\t)", p.s[p.i+1])
			}
			b.WriteByte(e)
			p.i += 2
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return nil, p.errorf("string without its closing quote")
}

func unescape(c byte) (byte, bool) {
	switch c {
	case '"', '\\':
		return c, true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// intLiteral reads `-`? then octal (0 and octal digits), hex (0x and hex digits) or decimal
// digits, as Kong does; the magnitude must fit in 64 bits.
func (p *parser) intLiteral() (Value, error) {
	start := p.i
	neg := p.eat("-")
	digits, base := p.s[p.i:], 10
	switch {
	case len(digits) > 1 && digits[0] == '0' && digits[1] >= '0' && digits[1] <= '7':
		digits, base = digits[1:span(digits[1:], isOctal)+1], 8
		p.i++
	case len(digits) > 2 && digits[0] == '0' && digits[1] == 'x' && isHex(digits[2]):
		digits, base = digits[2:span(digits[2:], isHex)+2], 16
		p.i += 2
	default:
		digits = digits[:span(digits, isDigit)]
	}
	if digits == "" {
		p.i = start
		return nil, p.errorf("expected a string, IP, CIDR or integer literal at %q", p.rest(8))
	}
	p.i += len(digits)
	n, err := strconv.ParseInt(digits, base, 64)
	if err != nil || n != int64(int(n)) {
		return nil, &SyntaxError{Offset: start, Msg: fmt.Sprintf("integer %s out of range", p.s[start:p.i])}
	}
	if neg {
		n = -n
	}
	return IntValue(n), nil
}

// span is the length of the prefix of s whose bytes satisfy ok.
func span(s string, ok func(byte) bool) int {
	n := 0
	for n < len(s) && ok(s[n]) {
		n++
	}
	return n
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func isHex(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

// ipLiteral reads an IPv4 or IPv6 network or address when the text has one of their shapes
// (Kong's grammar decides the kind by shape, then refuses what does not parse as that kind).
// ok is false when no shape matches, so the literal may still be an integer.
func (p *parser) ipLiteral() (Value, bool, error) {
	rest := p.s[p.i:]
	n, kind := ipShape(rest)
	if n == 0 {
		return nil, false, nil
	}
	text := rest[:n]
	if kind == TypeIPCIDR {
		pfx, err := netip.ParsePrefix(text)
		if err != nil || pfx != pfx.Masked() {
			return nil, true, p.errorf("invalid CIDR %q (an address/bits with the host bits zero)", text)
		}
		p.i += n
		return CIDRValue(pfx), true, nil
	}
	addr, err := netip.ParseAddr(text)
	if err != nil {
		return nil, true, p.errorf("invalid IP address %q", text)
	}
	p.i += n
	return IPValue(addr), true, nil
}
