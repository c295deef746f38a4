package kongdouble

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strconv"
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

// bigRepeat matches a counted repetition; PCRE allows counts up to 65535, RE2 only 1000.
var bigRepeat = regexp.MustCompile(`\{(\d+)(,(\d*))?\}`)

// clampRepeats lowers counts in 1001..65535 to 1000 so RE2 can check the rest; larger counts
// are left alone and stay errors, as in PCRE.
func clampRepeats(re string) string {
	return bigRepeat.ReplaceAllStringFunc(re, func(m string) string {
		parts := bigRepeat.FindStringSubmatch(m)
		clamp := func(n string) (string, bool) {
			v, err := strconv.Atoi(n)
			if err != nil || v > 65535 {
				return n, false
			}
			if v > 1000 {
				return "1000", true
			}
			return n, true
		}
		lo, ok := clamp(parts[1])
		if !ok {
			return m
		}
		if parts[2] == "" {
			return "{" + lo + "}"
		}
		if parts[3] == "" {
			return "{" + lo + ",}"
		}
		hi, ok := clamp(parts[3])
		if !ok {
			return m
		}
		if a, _ := strconv.Atoi(parts[1]); a > mustAtoi(parts[3]) {
			return m // min > max stays an error
		}
		return "{" + lo + "," + hi + "}"
	})
}

func mustAtoi(s string) int {
	v, _ := strconv.Atoi(s)
	return v
}

// checkRegex reports whether Kong's PCRE would reject a route path regex. Go's parser stands in
// for PCRE: errors that only mean "RE2 lacks this PCRE feature" are tolerated after rewriting
// the feature away (and repeat counts above RE2's 1000 but within PCRE's 65535 clamped);
// structural errors (unbalanced parentheses or brackets, bad ranges, a repetition of nothing,
// {2,1}, counts above 65535) are reported.
func checkRegex(re string) error {
	_, err := syntax.Parse(re, syntax.Perl)
	if err == nil {
		return nil
	}
	var se *syntax.Error
	if !errors.As(err, &se) || !tolerable(se.Code) {
		return err
	}
	rewritten := clampRepeats(re)
	for _, r := range pcreOnly {
		rewritten = r.re.ReplaceAllString(rewritten, r.with)
	}
	_, err2 := syntax.Parse(rewritten, syntax.Perl)
	if err2 == nil {
		return nil
	}
	if !errors.As(err2, &se) || se.Code == syntax.ErrInvalidRepeatSize {
		return err // a count PCRE rejects too (above 65535, or min > max)
	}
	if !tolerable(se.Code) {
		return err2
	}
	return nil // a PCRE feature the rewrite does not cover; nothing structural seen
}

func tolerable(code syntax.ErrorCode) bool {
	switch code {
	case syntax.ErrInvalidPerlOp, syntax.ErrInvalidEscape, syntax.ErrInvalidRepeatOp,
		syntax.ErrInvalidNamedCapture, syntax.ErrInvalidRepeatSize:
		return true
	}
	return strings.HasPrefix(string(code), "invalid or unsupported Perl syntax")
}
