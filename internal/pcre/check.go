// Package pcre checks a regular expression against PCRE2's grammar without compiling it. Kong
// compiles route paths (and, with its default router, header matches) with PCRE2 through
// OpenResty's ngx.re, and refuses the whole declarative configuration for one pattern that does
// not compile; Go's regexp (RE2) is the wrong judge: it refuses lookarounds, backreferences and
// possessive quantifiers that PCRE2 accepts, and accepts `\i`-style escapes PCRE2 refuses.
//
// Check follows PCRE2 10.44 (Kong 3.8 and 3.9; 3.7 has 10.43, the first with variable-length
// lookbehinds) in 8-bit mode, compiled as Kong compiles route paths (PCRE2_ANCHORED, no UTF unless
// the pattern starts with (*UTF)), and the library's defaults Kong builds it with: 250 nested
// parentheses, a 64 KiB compiled pattern (LINK_SIZE 2), lookbehinds of at most 255 characters
// when variable. It is a parser, not a compiler: one pass over the pattern with recursion only
// into groups (at most 250 deep, PCRE2's own limit), so time and memory are linear in the
// pattern; it never matches anything. docs/bad-input.md ("Regexes: PCRE's grammar") says how it
// was checked against PCRE2 itself and what it does not model.
package pcre

import (
	"strconv"
	"unicode/utf8"
)

// PCRE2's build-time and default limits (config.h, pcre2_internal.h).
const (
	maxNest         = 250   // PARENS_NEST_LIMIT
	maxRepeat       = 65535 // MAX_REPEAT_COUNT
	maxGroups       = 65535 // MAX_GROUP_NUMBER
	maxNameLen      = 32    // MAX_NAME_SIZE
	maxNames        = 10000 // MAX_NAME_COUNT
	maxVarLookbeh   = 255   // MAX_VARLOOKBEHIND
	maxFixedLookbeh = 65535 // lookbehind lengths are stored in 16 bits
	maxCompiled     = 1 << 16
	maxMark         = 255 // MAX_MARK in 8-bit mode
	maxBranchVisits = 2000
	unbounded       = -1
)

// Error is PCRE2's compile error: its own message and roughly where it applies.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return e.Msg + " at offset " + strconv.Itoa(e.Offset) }

// Check returns the error PCRE2 gives compiling pattern, or nil.
func Check(pattern string) error {
	p := &parser{s: pattern}
	if err := p.run(); err != nil {
		return err
	}
	return nil
}

// span is what an item can match: a length range in characters (max unbounded: -1) and a lower
// bound of its compiled size in code units.
type span struct {
	min, max, size int
}

func (a span) then(b span) span {
	out := span{min: satAdd(a.min, b.min), max: unbounded, size: satAdd(a.size, b.size)}
	if a.max >= 0 && b.max >= 0 {
		out.max = satAdd(a.max, b.max)
	}
	return out
}

func (a span) or(b span) span {
	out := span{min: min(a.min, b.min), max: unbounded, size: satAdd(a.size, b.size)}
	if a.max >= 0 && b.max >= 0 {
		out.max = max(a.max, b.max)
	}
	return out
}

// satAdd adds without overflow: sizes and lengths only need to be known up to the limits.
func satAdd(a, b int) int {
	if a > 1<<40 || b > 1<<40 {
		return 1 << 40
	}
	return a + b
}

func satMul(a, n int) int {
	if n != 0 && a > (1<<40)/n {
		return 1 << 40
	}
	return a * n
}

type options struct {
	extended, extendedMore, noAutoCapture, dupNames bool
}

// ref is a reference to a group, checked once every group is known.
type ref struct {
	at     int
	number int    // > 0 for a numbered reference
	name   string // else a named one
}

type parser struct {
	s       string
	i       int
	opts    options
	utf     bool
	inQuote bool // between \Q and \E

	depth      int
	groups     int            // capturing groups so far
	names      map[string]int // name → group number
	nameCount  int
	refs       []ref
	lookaround int // depth inside lookaround assertions (\K is refused there)
	lookbehind int // depth inside lookbehinds
	// skipLookbehind counts DEFINE groups inside lookbehinds: PCRE2 does not measure the
	// lookbehinds within them
	skipLookbehind int
	visits         int // lookbehind branches measured, as PCRE2 counts them
	groupLen       []span

	// PCRE2 finds these after the whole pattern is parsed (lookbehind lengths) or while
	// compiling it (\K in a lookaround); the first of each waits for the parse to succeed.
	lateLookbehind, lateCompile error
	resetMax                    []int // (?| groups: the highest group number a branch reached
}

func (p *parser) fail(at int, msg string) error { return &Error{Offset: at, Msg: msg} }

func (p *parser) more() bool { return p.i < len(p.s) }

func (p *parser) peek(k int) byte {
	if p.i+k < len(p.s) {
		return p.s[p.i+k]
	}
	return 0
}

func (p *parser) run() error {
	if err := p.startOptions(); err != nil {
		return err
	}
	sp, _, err := p.alternation(groupTop)
	if err != nil {
		return err
	}
	if p.more() { // only an unmatched ")" stops the top level early
		return p.fail(p.i, "unmatched closing parenthesis")
	}
	if err := p.checkRefs(true); err != nil {
		return err
	}
	if p.lateLookbehind != nil {
		return p.lateLookbehind
	}
	if p.lateCompile != nil {
		return p.lateCompile
	}
	if err := p.checkRefs(false); err != nil {
		return err
	}
	if satAdd(sp.size, 6) > maxCompiled {
		return p.fail(len(p.s), "regular expression is too large")
	}
	return nil
}

// startOptions reads the (*UTF), (*LIMIT_MATCH=n), newline and similar settings that only the
// start of a pattern may hold.
func (p *parser) startOptions() error {
	for p.i+2 < len(p.s) && p.s[p.i] == '(' && p.s[p.i+1] == '*' {
		rest := p.s[p.i+2:]
		matched := false
		for _, o := range startVerbs {
			if len(rest) >= len(o) && rest[:len(o)] == o {
				p.i += 2 + len(o)
				matched = true
				if o == "UTF)" {
					p.utf = true
				}
				if o[len(o)-1] == '=' {
					if err := p.limitValue(); err != nil {
						return err
					}
				}
				break
			}
		}
		if !matched {
			return nil
		}
	}
	if p.utf && !utf8.ValidString(p.s) {
		return p.fail(0, "UTF-8 error: invalid UTF-8 string")
	}
	return nil
}

var startVerbs = []string{"UTF)", "UCP)", "NOTEMPTY)", "NOTEMPTY_ATSTART)", "NO_AUTO_POSSESS)",
	"NO_DOTSTAR_ANCHOR)", "NO_JIT)", "NO_START_OPT)", "LIMIT_HEAP=", "LIMIT_MATCH=", "LIMIT_DEPTH=",
	"LIMIT_RECURSION=", "CR)", "LF)", "CRLF)", "ANY)", "NUL)", "ANYCRLF)", "BSR_ANYCRLF)", "BSR_UNICODE)"}

// limitValue reads the decimal number and ")" of a (*LIMIT_...=n) setting.
func (p *parser) limitValue() error {
	start, n := p.i, uint64(0)
	for p.more() && isDigit(p.s[p.i]) {
		n = n*10 + uint64(p.s[p.i]-'0')
		if n > 1<<32-1 {
			return p.fail(p.i, "(*VERB) not recognized or malformed")
		}
		p.i++
	}
	if p.i == start || !p.more() || p.s[p.i] != ')' {
		return p.fail(p.i, "(*VERB) not recognized or malformed")
	}
	p.i++
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWord(c byte) bool {
	return c == '_' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }
