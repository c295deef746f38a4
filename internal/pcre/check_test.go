package pcre

import (
	"strings"
	"testing"
	"time"
)

func TestCheckTable(t *testing.T) {
	accept := []string{
		`/price(usd)?`, `(?<=a)b`, `(?<!a)b`, `a++b`, `a*+`, `a?+`, `(?>ab)`, `(a)\1`, `(?<n>a)\k<n>`,
		`(?P<n>a)(?P=n)`, `(a)(?1)`, `(?R)?`, `\Qa(b\E`, `(*UTF)é`, `(*SKIP)(*FAIL)|a`, `(?i)a`, `(?x) a # c`,
		`[[:alpha:]]`, `\p{Greek}`, `\p{sc:Latin}`, `x{,3}`, `a{65535}`, `(?<=a{1,3})b`, `(?<=ab|c)d`,
		`a{`, `a{x}`, `[\8]`, `[\d-]`, `(?|(a)|(b))\1`, `(?(1)a|b)(a)`, `(?(DEFINE)(?<d>\d))(?&d)`,
		`/api/(?<version>v[0-9]+)/.*`, `~`, ``, `(?#unbalanced ( comment)a`, `\x{ff}`, `\o{377}`, `\cA`,
	}
	refuse := map[string]string{
		`[z-a]`:          "range out of order in character class",
		`x{4,2}`:         "numbers out of order in {} quantifier",
		`a**`:            "quantifier does not follow a repeatable item",
		`/price(usd`:     "missing closing parenthesis",
		`a)`:             "unmatched closing parenthesis",
		`[a`:             "missing terminating ] for character class",
		`\`:              `\ at end of pattern`,
		`\i`:             `unrecognized character follows \`,
		`\u0041`:         `PCRE2 does not support \F, \L, \l, \N{name}, \U, or \u`,
		`a{65536}`:       "number too big in {} quantifier",
		`(?<=a+)b`:       "length of lookbehind assertion is not limited",
		`(?<=a{1,300})b`: "branch too long in variable-length lookbehind assertion",
		`\1`:             "reference to non-existent subpattern",
		`\k<x>`:          "reference to non-existent subpattern",
		`(?<n>a)(?<n>b)`: "two named subpatterns have the same name (PCRE2_DUPNAMES not set)",
		`[[:foo:]]`:      "unknown POSIX class name",
		`[:alpha:]`:      "POSIX named classes are supported only within a class",
		`\p{Foo}`:        `unknown property after \P or \p`,
		`\x{100}`:        `character code point value in \x{} or \o{} is too large`,
		`(?z)`:           "unrecognized character after (? or (?-",
		`(*BOGUS)`:       "(*VERB) not recognized or malformed",
		`(*MARK)`:        "(*MARK) must have an argument",
		`(?C256)`:        "number after (?C is greater than 255",
		`(?(1)a|b|c)(a)`: "conditional subpattern contains more than two branches",
		`(?=\K)`:         `\K is not allowed in lookarounds (but see PCRE2_EXTRA_ALLOW_LOOKAROUND_BSK)`,
		`[\d-z]`:         "invalid range in character class",
		`(?#open`:        "missing ) after (?# comment",
		strings.Repeat("(", 251) + strings.Repeat(")", 251): "parentheses are too deeply nested",
		strings.Repeat("(?:abcdefghij){1000}", 10):          "regular expression is too large",
	}
	for _, p := range accept {
		if err := Check(p); err != nil {
			t.Errorf("Check(%q) = %v, want accepted (PCRE2 compiles it)", p, err)
		}
	}
	for p, want := range refuse {
		err := Check(p)
		e, ok := err.(*Error)
		if !ok || e.Msg != want {
			t.Errorf("Check(%.40q) = %v, want PCRE2's %q", p, err, want)
		}
	}
}

// TestCheckHostileBounded: 256 KiB patterns (the API server's annotation limit) of nested
// groups, nested quantifiers and long lookbehinds are each checked in well under a second, with
// an error where PCRE2 has one.
func TestCheckHostileBounded(t *testing.T) {
	const n = 256 << 10
	cases := map[string]string{
		"nested groups":     strings.Repeat("(", n/2) + strings.Repeat(")", n/2),
		"nested 250 deep":   strings.Repeat(strings.Repeat("(?:", 250)+"a"+strings.Repeat(")", 250), n/1004),
		"nested quantifier": strings.Repeat("(a*)*", n/5),
		"repeated groups":   strings.Repeat("((a{1,65535}){1,65535}){1,65535}", n/33),
		"lookbehinds":       strings.Repeat("(?<=abc|d{1,3})", n/15),
		"classes":           strings.Repeat("[[:alpha:]a-z\\d]", n/16),
		"quote":             strings.Repeat(`\Q`, n/2),
		"references":        "(a)" + strings.Repeat(`\1\k<x>\g{-1}`, n/14),
	}
	for name, p := range cases {
		start := time.Now()
		err := Check(p)
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("%s: %v", name, d)
		}
		t.Logf("%s: %d bytes: %v in %v", name, len(p), err, time.Since(start))
	}
	if Check(cases["nested groups"]) == nil || Check(cases["nested quantifier"]) == nil {
		t.Error("PCRE2 refuses these (too deeply nested; too large)")
	}
}

// FuzzCheck: no panic, the same answer twice, and an error always carries PCRE2's wording and
// an offset within the pattern.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`(?<=a)b`, `[z-a]`, `(?|(a)|(b))\2`, `(*UTF)\x{100}`, `(?(R&n)a)`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		err := Check(p)
		if again := Check(p); (err == nil) != (again == nil) || err != nil && err.Error() != again.Error() {
			t.Fatalf("%q: %v then %v", p, err, again)
		}
		if e, ok := err.(*Error); err != nil && (!ok || e.Offset < 0 || e.Offset > len(p) || e.Msg == "") {
			t.Fatalf("%q: %#v", p, err)
		}
	})
}
