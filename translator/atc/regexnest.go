package atc

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// RegexNestLimit is the nest limit of Rust's regex crate (RegexBuilder's default), with which
// atc-router compiles the regex of every `~` predicate (regex::Regex::new): a pattern whose
// syntax tree is deeper is refused ("exceed the maximum nesting depth"), and Kong with it the
// route. Go's RE2 parser allows 1,000, so a regex nested 300 deep passes syntax.Parse.
const RegexNestLimit = 250

// CheckRegex reports whether Kong's expressions router compiles re: Go's RE2 syntax, which is
// nearly Rust's regex syntax, the regex crate's nest limit (RegexNestLimit), and its refusal of
// a capture group name used twice (which Go accepts).
func CheckRegex(re string) error {
	parsed, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return err
	}
	if name := duplicateCapture(parsed, map[string]bool{}); name != "" {
		return fmt.Errorf("duplicate capture group name %q (Kong's regex engine refuses it; Go's accepts it)", name)
	}
	if d := RegexNestDepth(re); d > RegexNestLimit {
		return fmt.Errorf("regex nested %d deep, beyond the nest limit of Kong's regex engine (%d)", d, RegexNestLimit)
	}
	return nil
}

// duplicateCapture is a capture group name used twice in re, or "".
func duplicateCapture(re *syntax.Regexp, seen map[string]bool) string {
	if re.Op == syntax.OpCapture && re.Name != "" {
		if seen[re.Name] {
			return re.Name
		}
		seen[re.Name] = true
	}
	for _, sub := range re.Sub {
		if name := duplicateCapture(sub, seen); name != "" {
			return name
		}
	}
	return ""
}

// RegexNestDepth is the depth regex-syntax's nest limiter counts for re: along the deepest path
// of its syntax tree, one level for each group, repetition, alternation of two or more
// branches, concatenation of two or more items and bracketed class (and a class's union of two
// or more items, and set operation); literals, escapes, anchors and flags count none. re is
// expected to parse (CheckRegex parses it first).
func RegexNestDepth(re string) int {
	p := nestParser{s: re}
	return p.alternation()
}

type nestParser struct {
	s string
	i int
}

func (p *nestParser) more() bool { return p.i < len(p.s) }

// alternation reads branches up to a closing parenthesis or the end.
func (p *nestParser) alternation() int {
	branches, d := 0, 0
	for {
		d = max(d, p.concat())
		branches++
		if !p.more() || p.s[p.i] != '|' {
			break
		}
		p.i++
	}
	if branches > 1 {
		d++
	}
	return d
}

// concat reads items up to '|', ')' or the end; a repetition wraps the item before it.
func (p *nestParser) concat() int {
	items, d, last := 0, 0, 0
	for p.more() {
		c := p.s[p.i]
		switch {
		case c == '|' || c == ')':
			if items > 1 {
				d++
			}
			return d
		case c == '*' || c == '+' || c == '?':
			p.i++
			p.lazy()
			last++
			d = max(d, last)
			continue
		case c == '{' && p.counted():
			p.lazy()
			last++
			d = max(d, last)
			continue
		case c == '(':
			last = p.group()
		case c == '[':
			last = p.class()
		case c == '\\':
			p.escape()
			last = 0
		default:
			p.rune()
			last = 0
		}
		items++
		d = max(d, last)
	}
	if items > 1 {
		d++
	}
	return d
}

// lazy skips a repetition's '?' (non-greedy).
func (p *nestParser) lazy() {
	if p.more() && p.s[p.i] == '?' {
		p.i++
	}
}

// counted skips a counted repetition ({n}, {n,}, {n,m}) at p.i and says whether there was one.
func (p *nestParser) counted() bool {
	end := strings.IndexByte(p.s[p.i:], '}')
	if end < 2 {
		return false
	}
	body := p.s[p.i+1 : p.i+end]
	lo, hi, _ := strings.Cut(body, ",")
	if !digits(lo) || (hi != "" && !digits(hi)) {
		return false
	}
	p.i += end + 1
	return true
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// group reads a parenthesised group at p.i: (?flags) is a flags item (depth 0), anything else
// a group one level above its alternation.
func (p *nestParser) group() int {
	p.i++ // (
	if p.more() && p.s[p.i] == '?' {
		p.i++
		switch {
		case strings.HasPrefix(p.s[p.i:], "P<"), strings.HasPrefix(p.s[p.i:], "<"):
			if end := strings.IndexByte(p.s[p.i:], '>'); end >= 0 {
				p.i += end + 1
			}
		default:
			for p.more() && p.s[p.i] != ':' && p.s[p.i] != ')' {
				p.i++
			}
			if p.more() && p.s[p.i] == ')' {
				p.i++
				return 0
			}
			p.i++ // :
		}
	}
	d := 1 + p.alternation()
	if p.more() { // )
		p.i++
	}
	return d
}

// class reads a bracketed class at p.i ('[' ... ']', with nested classes, [:name:] and the
// set operations &&, -- and ~~) and returns its depth.
func (p *nestParser) class() int {
	p.i++ // [
	if p.more() && p.s[p.i] == '^' {
		p.i++
	}
	items, d, op := 0, 0, false
	for first := true; p.more(); first = false {
		c := p.s[p.i]
		switch {
		case c == ']' && !first:
			p.i++
			if items > 1 {
				d++
			}
			if op {
				d++
			}
			return 1 + d
		case c == '[' && strings.HasPrefix(p.s[p.i:], "[:") && strings.Contains(p.s[p.i+2:], ":]"):
			p.i += strings.Index(p.s[p.i+2:], ":]") + 4
		case c == '[':
			d = max(d, p.class())
		case c == '\\':
			p.escape()
		case (c == '&' || c == '-' || c == '~') && strings.HasPrefix(p.s[p.i+1:], string(c)):
			p.i += 2
			op = true
			continue
		case c == '-' && items > 0 && p.i+1 < len(p.s) && p.s[p.i+1] != ']':
			// a range: its end is part of the item before
			p.i++
			if p.s[p.i] == '\\' {
				p.escape()
			} else {
				p.rune()
			}
			continue
		default:
			p.rune()
		}
		items++
	}
	return 1 + d
}

// escape skips a backslash escape at p.i, with its braced or fixed-length argument.
func (p *nestParser) escape() {
	p.i++ // \
	if !p.more() {
		return
	}
	c := p.s[p.i]
	p.i++
	n := 0
	switch c {
	case 'x':
		n = 2
	case 'u':
		n = 4
	case 'U':
		n = 8
	case 'p', 'P':
		n = 1
	default:
		p.i += utf8RuneLenAt(p.s, p.i-1) - 1
		return
	}
	if p.more() && p.s[p.i] == '{' {
		if end := strings.IndexByte(p.s[p.i:], '}'); end >= 0 {
			p.i += end + 1
			return
		}
	}
	p.i = min(len(p.s), p.i+n)
}

func (p *nestParser) rune() { p.i += utf8RuneLenAt(p.s, p.i) }

func utf8RuneLenAt(s string, i int) int {
	_, n := utf8.DecodeRuneInString(s[i:])
	return max(n, 1)
}
