package translator

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kongsync/kongsync/store"
)

// TestKongPathRegex: Kong path verdicts as PCRE2 10.44 gives them (each checked with
// hack/pcre2-oracle), not Go's regexp: PCRE-only syntax passes, PCRE-only errors are caught.
func TestKongPathRegex(t *testing.T) {
	for p, invalid := range map[string]bool{
		"~/a(b": true, "~/a)b": true, "~/[ab": true, "~/[^]": true, `~/a\`: true,
		"~/(*UTF8)a":       true, // not a verb PCRE2 knows (Go accepts it as a group)
		"~/[[:nothing:]]+": true, "~/a{3,1}": true, `~/\i`: true, "~/a**": true,
		"~/(v1|v2)/x": false, "~/(?=api)[a-z]+": false, `~/(a)\1`: false, "~/x{2000}": false,
		"~/a*+": false, "~/(?#a(b)c": false, "~/(?<name>x)": false, `~/\Q(\E`: false, "~/[]a]": false,
		"~/files/[a-z]+$": false, "~/(?i)case": false, "~/(?P<n>x)(?&n)": false, "~/(?|a|b)": false,
		"~/a{,3}": false, "~/[[:alpha:]]+": false, "~/(?<=v1)/x": false,
		"~/a%2Fb": false, "~/a%zz": true, "/a%": true, "/a//b": true, "~/a//b": true, "/a/b": false,
	} {
		if got := kongPathProblem(p) != ""; got != invalid {
			t.Errorf("kongPathProblem(%q) = %q, want invalid %v", p, kongPathProblem(p), invalid)
		}
	}
}

func TestValidHost(t *testing.T) {
	for h, ok := range map[string]bool{
		"example.com": true, "*.example.com": true, "a-b.c": true, "localhost": true,
		"Example.com": false, "a_b.com": false, "*.*.example.com": false, "a..b": false, "": false,
		"example.com.": false, "-a.com": false, "a b": false, "example.com:80": false, "*": false,
		strings.Repeat("a", 64) + ".com": true, // label length is not checked, as by the API server
		strings.Repeat("a.", 127) + "a":  false,
	} {
		if got := validHost(h); got != ok {
			t.Errorf("validHost(%q) = %v, want %v", h, got, ok)
		}
	}
}

func TestQuoteShort(t *testing.T) {
	if got := quoteShort("abc"); got != `"abc"` {
		t.Errorf("short value: %s", got)
	}
	long := strings.Repeat("é", 200) // 400 bytes; a cut inside a rune must back off
	got := quoteShort(long)
	if !strings.HasSuffix(got, "... (400 bytes)") || len(got) > maxQuoted+40 {
		t.Errorf("long value: %s", got)
	}
	if !utf8.ValidString(got) || strings.Contains(got, `\x`) {
		t.Errorf("cut inside a rune: %s", got)
	}
}

func TestCapReason(t *testing.T) {
	if got := capReason("short"); got != "short" {
		t.Errorf("short reason changed: %q", got)
	}
	got := newProblem(store.Ref{Kind: store.KindIngress, Name: "x"}, "f", "name %s not found", strings.Repeat("ü", 5000)).Reason
	if len(got) > maxReason+40 || !strings.HasSuffix(got, "... (cut; 10015 bytes in all)") || !utf8.ValidString(got) {
		t.Errorf("long reason: %d bytes, ends %q", len(got), got[len(got)-40:])
	}
}
