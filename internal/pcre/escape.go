package pcre

import "strings"

// propKind is what \p{name} names: a script (propScript), a script with script extensions
// (propScriptExt), or another property (general category, boolean, bidi class).
type propKind int

const (
	propOther propKind = iota + 1
	propScript
	propScriptExt
)

type escKind int

const (
	escChar     escKind = iota // a data character (value set)
	escType                    // \d \s \w \h \v \p and their negations, \N: one character of a set
	escAssert                  // \b \B \A \z \Z \G
	escKeep                    // \K
	escNewline                 // \R
	escCluster                 // \X
	escByte                    // \C
	escGroupRef                // a back reference or subroutine call
)

type esc struct {
	kind  escKind
	value int
	ref   ref
}

const (
	errBadEscape  = `unrecognized character follows \`
	errNotInClass = "escape sequence is invalid in character class"
	errUnsupp     = `PCRE2 does not support \F, \L, \l, \N{name}, \U, or \u`
	errNoRef      = "reference to non-existent subpattern"
	errGSyntax    = `\g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number`
	errKSyntax    = `\k is not followed by a braced, angle-bracketed, or quoted name`
	errTooLarge   = `character code point value in \x{} or \o{} is too large`
	errDigits     = `digits missing in \x{} or \o{} or \N{U+}`
)

// escape parses the sequence after a backslash at p.i (which it skips), in a class or not.
func (p *parser) escape(inClass bool) (esc, error) {
	at := p.i
	p.i++
	if !p.more() {
		return esc{}, p.fail(len(p.s), `\ at end of pattern`)
	}
	c := p.s[p.i]
	p.i++
	if !isWord(c) {
		if c >= 0x80 && p.utf {
			p.i--
			p.literal()
		}
		return esc{kind: escChar, value: int(c)}, nil
	}
	switch c {
	case 'a', 'e', 'f', 'n', 'r', 't':
		return esc{kind: escChar, value: int(c)}, nil
	case 'b':
		if inClass {
			return esc{kind: escChar, value: 8}, nil
		}
		return esc{kind: escAssert}, nil
	case 'B', 'A', 'z', 'Z', 'G', 'R', 'X':
		if inClass {
			return esc{}, p.fail(p.i, errNotInClass)
		}
		switch c {
		case 'R':
			return esc{kind: escNewline}, nil
		case 'X':
			return esc{kind: escCluster}, nil
		}
		return esc{kind: escAssert}, nil
	case 'd', 'D', 's', 'S', 'w', 'W', 'h', 'H', 'v', 'V':
		return esc{kind: escType}, nil
	case 'p', 'P':
		return esc{kind: escType}, p.property()
	case 'N':
		return p.escapeN(inClass)
	case 'K', 'C':
		if inClass {
			return esc{}, p.fail(p.i, errNotInClass)
		}
		if c == 'K' {
			return esc{kind: escKeep}, nil
		}
		return esc{kind: escByte}, nil
	case 'c':
		if !p.more() {
			return esc{}, p.fail(len(p.s), `\c at end of pattern`)
		}
		if d := p.s[p.i]; d < 0x20 || d > 0x7e {
			return esc{}, p.fail(p.i, `\c must be followed by a printable ASCII character`)
		}
		p.i++
		return esc{kind: escChar}, nil
	case 'x':
		return p.hexEscape()
	case 'o':
		return p.octalBraced()
	case 'g':
		if inClass {
			return esc{}, p.fail(p.i, errBadEscape)
		}
		return p.gReference(at)
	case 'k':
		if inClass {
			return esc{}, p.fail(p.i, errBadEscape)
		}
		return p.kReference(at)
	case 'F', 'L', 'l', 'U', 'u':
		return esc{}, p.fail(p.i, errUnsupp)
	}
	if isDigit(c) {
		return p.digitEscape(c, inClass, at)
	}
	return esc{}, p.fail(p.i, errBadEscape)
}

// escapeN is \N (any character but newline), \N{n,m} (the same, quantified), or \N{U+hhhh} (a
// code point, UTF mode only); \N{name} is Perl's and PCRE2 refuses it.
func (p *parser) escapeN(inClass bool) (esc, error) {
	if inClass {
		return esc{}, p.fail(p.i, `\N is not supported in a class`)
	}
	if !p.more() || p.s[p.i] != '{' || p.isQuantifier(p.i+1) {
		return esc{kind: escType}, nil
	}
	if strings.HasPrefix(p.s[p.i:], "{U+") {
		if !p.utf {
			return esc{}, p.fail(p.i, `\N{U+dddd} is supported only in Unicode (UTF) mode`)
		}
		p.i += 2
		return p.braced(16, 0x10ffff, `non-hex character in \x{} (closing brace missing?)`)
	}
	return esc{}, p.fail(p.i, errUnsupp)
}

// hexEscape is \x{h...} or \x followed by up to two hex digits (none: a zero byte).
func (p *parser) hexEscape() (esc, error) {
	if p.more() && p.s[p.i] == '{' {
		return p.braced(16, p.maxChar(), `non-hex character in \x{} (closing brace missing?)`)
	}
	for k := 0; k < 2 && p.more() && isHex(p.s[p.i]); k++ {
		p.i++
	}
	return esc{kind: escChar}, nil
}

func (p *parser) octalBraced() (esc, error) {
	if !p.more() || p.s[p.i] != '{' {
		return esc{}, p.fail(p.i, `missing opening brace after \o`)
	}
	return p.braced(8, p.maxChar(), `non-octal character in \o{} (closing brace missing?)`)
}

func (p *parser) maxChar() int {
	if p.utf {
		return 0x10ffff
	}
	return 0xff
}

// braced reads "{digits}" in base 8 or 16 at p.i, as \x{}, \o{} and \N{U+} want them.
func (p *parser) braced(base, limit int, badDigit string) (esc, error) {
	p.i++ // {
	p.skipBlanks()
	v, start := 0, p.i
	for p.more() && digitValue(p.s[p.i]) < base {
		v = min(v*base+digitValue(p.s[p.i]), 1<<32)
		p.i++
	}
	if p.i == start && p.more() && p.s[p.i] == '}' {
		return esc{}, p.fail(p.i, errDigits)
	}
	p.skipBlanks()
	if !p.more() || p.s[p.i] != '}' {
		return esc{}, p.fail(p.i, badDigit)
	}
	p.i++
	if v > limit {
		return esc{}, p.fail(p.i, errTooLarge)
	}
	if p.utf && v >= 0xd800 && v <= 0xdfff {
		return esc{}, p.fail(p.i, "disallowed Unicode code point (>= 0xd800 && <= 0xdfff)")
	}
	return esc{kind: escChar, value: v}, nil
}

func digitValue(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

func isHex(c byte) bool { return digitValue(c) < 16 }

// digitEscape is \0 (octal), or \1..\9...: a back reference when outside a class and the number
// is below 10, starts with 8 or 9, or names a group already opened; else octal digits (\8 and \9
// then stand for themselves).
func (p *parser) digitEscape(c byte, inClass bool, at int) (esc, error) {
	if !inClass && c != '0' {
		k, n := p.i-1, 0
		for k < len(p.s) && isDigit(p.s[k]) && n <= maxGroups {
			n = n*10 + int(p.s[k]-'0')
			k++
		}
		if n <= maxGroups && (n < 10 || c >= '8' || n <= p.groups) {
			p.i = k
			r := ref{at: at, number: n}
			p.refs = append(p.refs, r)
			return esc{kind: escGroupRef, ref: r}, nil
		}
	}
	if c >= '8' {
		return esc{kind: escChar, value: int(c)}, nil
	}
	v := int(c - '0')
	for k := 0; k < 2 && p.more() && p.s[p.i] >= '0' && p.s[p.i] <= '7'; k++ {
		v = v*8 + int(p.s[p.i]-'0')
		p.i++
	}
	if v > 0xff && !p.utf {
		return esc{}, p.fail(p.i, `octal value is greater than \377 in 8-bit non-UTF-8 mode`)
	}
	return esc{kind: escChar, value: v}, nil
}

// property checks \p or \P's name against PCRE2's table (loose matching, ^ for negation,
// sc:/scx:/bc: prefixes).
func (p *parser) property() error {
	if !p.more() {
		return p.fail(p.i, `malformed \P or \p sequence`)
	}
	if p.s[p.i] != '{' {
		c := p.s[p.i]
		p.i++
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return p.fail(p.i, `malformed \P or \p sequence`)
		}
		return p.knownProperty(strings.ToLower(string(c)))
	}
	end := strings.IndexByte(p.s[p.i:], '}')
	if end < 0 || end > 60 {
		return p.fail(p.i, `malformed \P or \p sequence`)
	}
	body := p.s[p.i+1 : p.i+end]
	p.i += end + 1
	body = strings.TrimPrefix(body, "^")
	var name strings.Builder
	for k := 0; k < len(body); k++ {
		c := body[k]
		if c == '_' || c == '-' || isSpace(c) {
			continue
		}
		if c == 0 || name.Len() >= 49 {
			return p.fail(p.i, `malformed \P or \p sequence`)
		}
		name.WriteByte(lower(c))
	}
	return p.knownProperty(name.String())
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func (p *parser) knownProperty(name string) error {
	unknown := p.fail(p.i, `unknown property after \P or \p`)
	k := strings.IndexAny(name, ":=")
	if k < 0 {
		if _, ok := properties[name]; ok {
			return nil
		}
		return unknown
	}
	key, val := name[:k], name[k+1:]
	switch key {
	case "bidiclass", "bc":
		if _, ok := properties["bidi"+val]; ok {
			return nil
		}
	case "script", "sc", "scriptextensions", "scx":
		if kind := properties[val]; kind == propScript || kind == propScriptExt {
			return nil
		}
	}
	return unknown
}
