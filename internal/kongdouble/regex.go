package kongdouble

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
)

// pcreOnly rewrites PCRE constructs Go's RE2 syntax lacks into RE2 equivalents that keep the
// rest of the pattern's structure, so the rest can still be checked: lookarounds and atomic
// groups become plain groups, backreferences a literal, possessive quantifiers greedy ones.
var pcreOnly = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\(\?(=|!|<=|<!|>)`), "(?:"},
	{regexp.MustCompile(`\\[1-9]|\\k<\w+>|\\g\{?-?\d+\}?`), "x"},
	{regexp.MustCompile(`([*+?}])\+`), "$1"},
	{regexp.MustCompile(`\\[ZzAGQEKRXhHvV]`), "x"},
}

// checkRegex reports whether Kong's PCRE would reject a route path regex. Go's parser stands in
// for PCRE: errors that only mean "RE2 lacks this PCRE feature" are tolerated after rewriting
// the feature away; structural errors (unbalanced parentheses or brackets, bad ranges, a
// repetition of nothing) are reported.
func checkRegex(re string) error {
	_, err := syntax.Parse(re, syntax.Perl)
	if err == nil {
		return nil
	}
	var se *syntax.Error
	if !errors.As(err, &se) || !tolerable(se.Code) {
		return err
	}
	rewritten := re
	for _, r := range pcreOnly {
		rewritten = r.re.ReplaceAllString(rewritten, r.with)
	}
	if rewritten == re {
		return nil // a PCRE feature with no structural problem that we can see
	}
	_, err2 := syntax.Parse(rewritten, syntax.Perl)
	if errors.As(err2, &se) && !tolerable(se.Code) {
		return err2
	}
	return nil
}

func tolerable(code syntax.ErrorCode) bool {
	switch code {
	case syntax.ErrInvalidPerlOp, syntax.ErrInvalidEscape, syntax.ErrInvalidRepeatOp,
		syntax.ErrInvalidNamedCapture:
		return true
	}
	return strings.HasPrefix(string(code), "invalid or unsupported Perl syntax")
}
