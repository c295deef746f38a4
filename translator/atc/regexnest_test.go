package atc

import (
	"strings"
	"testing"
)

func nestedGroups(n int, inner string) string {
	return strings.Repeat("(", n) + inner + strings.Repeat(")", n)
}

// TestRegexNestDepth counts as regex-syntax's nest limiter does: groups, repetitions,
// alternations and concatenations of two or more, bracketed classes.
func TestRegexNestDepth(t *testing.T) {
	for _, c := range []struct {
		re   string
		want int
	}{
		{"a", 0},
		{"ab", 1},
		{"a|b", 1},
		{"a*", 1},
		{"a{2,3}?", 1},
		{"a{x}", 1}, // not a repetition: a concatenation of literals
		{"(a)", 1},
		{"(?:a)", 1},
		{"(?P<n>a)", 1},
		{"(?i)a", 1}, // flags and a literal: a concatenation
		{"(?i:ab)", 2},
		{"[a-z]", 1},
		{"[a-z0-9]", 2},
		{"[[:alpha:]]", 1},
		{`\x41\p{Greek}`, 1},
		{`\x{10FFFF}`, 0},
		{"^/re/(a)", 2},
		{"((a|b)*c)+", 6}, // +, group, concatenation, *, group, alternation
		{nestedGroups(250, "a"), 250},
		{"^/re/" + nestedGroups(250, "a"), 251},
	} {
		if got := RegexNestDepth(c.re); got != c.want {
			t.Errorf("RegexNestDepth(%.40q) = %d, want %d", c.re, got, c.want)
		}
	}
}

// A regex nested deeper than the regex crate's limit passes Go's parser (limit 1,000) but not
// CheckRegex, nor the check of an expression holding it (Kong refuses the route).
func TestCheckRegexNestLimit(t *testing.T) {
	if err := CheckRegex(nestedGroups(RegexNestLimit, "a")); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	deep := "^/re/" + nestedGroups(300, "a")
	err := CheckRegex(deep)
	if err == nil || !strings.Contains(err.Error(), "nest limit") {
		t.Errorf("300 deep: %v, want the nest limit", err)
	}
	m, perr := Parse(`http.path ~ "` + deep + `"`)
	if perr != nil {
		t.Fatal(perr)
	}
	if err := Check(m); err == nil {
		t.Error("an expression with a regex 300 deep passes Check")
	}
	if err := CheckRegex("[z-a]"); err == nil {
		t.Error("[z-a] passes")
	}
	if err := CheckRegex("(?P<n>a)(?P<n>b)"); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("a capture name used twice: %v", err)
	}
	if err := CheckRegex("(?P<n>a)(?P<m>b)"); err != nil {
		t.Errorf("distinct capture names: %v", err)
	}
}
