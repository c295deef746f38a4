// Command gen prints random regular expressions, one per line in the escaped form oracle.c
// reads (\\, \n, \xHH), built from pieces of PCRE2's grammar and its error cases: the input of
// internal/pcre's oracle corpus (README.md).
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
)

var pieces = []string{
	"a", "b", "/", "-", ".", "x", "0", "1", "9", "_", " ", "#", "\n", "é",
	"(", ")", "[", "]", "{", "}", "*", "+", "?", "|", "^", "$", "\\", ",", ":", "<", ">", "=", "!", "'",
	"(?", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>", "(?|", "(?*", "(?i)", "(?x)", "(?xx)", "(?J)",
	"(?n)", "(?-i)", "(?^)", "(?^i:", "(?i-x:", "(?z)", "(?#c)", "(?#", "(?<n>", "(?P<n>", "(?'n'",
	"(?<1n>", "(?P=n)", "(?P>n)", "(?&n)", "(?&m)", "(?1)", "(?2)", "(?-1)", "(?+1)", "(?0)", "(?R)",
	"(?R1)", "(?(1)", "(?(2)", "(?(<n>)", "(?('n')", "(?(n)", "(?(R)", "(?(R1)", "(?(R&n)",
	"(?(DEFINE)", "(?(VERSION>=10.4)", "(?(?=a)", "(?(?<=a)", "(?(x", "(?C)", "(?C1)", "(?C256)",
	"(?C\"s\")", "(?Cx)", "(*ACCEPT)", "(*FAIL)", "(*F)", "(*MARK:x)", "(*MARK)", "(*:x)", "(*:)",
	"(*SKIP)", "(*PRUNE:n)", "(*THEN)", "(*COMMIT)", "(*BOGUS)", "(*pla:", "(*nlb:", "(*atomic:",
	"(*sr:", "(*bogus:", "(*UTF)", "(*UCP)", "(*LIMIT_MATCH=10)", "(*CRLF)",
	"\\d", "\\D", "\\w", "\\s", "\\h", "\\v", "\\b", "\\B", "\\A", "\\z", "\\Z", "\\G", "\\K",
	"\\Q", "\\E", "\\x{41}", "\\x{100}", "\\x{}", "\\x{4g}", "\\x41", "\\x", "\\o{101}", "\\o{777}",
	"\\o", "\\o{}", "\\1", "\\2", "\\8", "\\10", "\\0", "\\07", "\\400", "\\g1", "\\g{1}",
	"\\g{-1}", "\\g{+1}", "\\g<1>", "\\g<+1>", "\\g<n>", "\\g'n'", "\\g{n}", "\\g", "\\g0", "\\k<n>",
	"\\k'n'", "\\k{n}", "\\k", "\\p{L}", "\\p{Lu}", "\\p{Greek}", "\\p{sc:Greek}", "\\p{scx:Latin}",
	"\\p{bc:L}", "\\p{Foo}", "\\p{^L}", "\\pL", "\\p", "\\p{L", "\\P{Any}", "\\N", "\\N{2}",
	"\\N{U+41}", "\\N{name}", "\\R", "\\X", "\\C", "\\c", "\\cA", "\\c\xe9", "\\i", "\\y", "\\u", "\\L",
	"\\F", "\\e", "\\a", "\\-", "\\]", "[:alpha:]", "[[:alpha:]]", "[[:^digit:]]", "[[:foo:]]",
	"[[.a.]]", "[[=a=]]", "[a-z]", "[z-a]", "[\\d-z]", "[a-\\d]", "[\\d-]", "[-a]", "[a-]", "[^]]",
	"[]a]", "[]", "[^]", "[\\b]", "[\\B]", "[\\R]", "[\\N]", "[\\Qa-\\E]", "[a\\", "{2}", "{2,1}",
	"{,3}", "{1,}", "{ 1 , 2 }", "{99999}", "{1,99999}", "{x}", "{,}", "*+", "+?", "??", "a{2}",
	"x{1,3}", "x{3,1}", "(a)", "(?<n>a)", "(?<n>b)", "(?|(a)|(b))", "(?<=a|bc)", "(?<=a+)",
	"(?<=a{1,300})", "(?<=\\d{2,5})", "(?<=(a|bc))", "(?<!a*)", "(?<=\\K)", "(?=\\K)",
}

func main() {
	n := flag.Int("n", 20000, "patterns")
	valid := flag.Bool("valid", false, "mostly well-formed pieces (groups closed), to reach the later checks")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	r := rand.New(rand.NewPCG(*seed, 20))
	seen := map[string]bool{}
	for len(seen) < *n {
		var b strings.Builder
		if *valid {
			b.WriteString(wellFormed(r, 3))
		} else {
			for k := 1 + r.IntN(7); k > 0; k-- {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
		}
		s := b.String()
		if seen[s] {
			continue
		}
		seen[s] = true
		fmt.Println(escape(s))
	}
}

// atoms are items that are valid alone (or nearly: references may name missing groups).
var atoms = []string{"a", "b", "/", ".", "\\d", "\\w", "[a-z]", "[^/]", "\\1", "\\k<n>", "(?1)",
	"\\b", "^", "$", "\\K", "(*ACCEPT)", "(*SKIP)", "\\R", "\\X", "\\C", "\\p{L}", "\\x{41}", "é",
	"\\Qa.\\E", "(?i)", "(?x)", " ", "#c\n", "(?C1)", "\\g{-1}", "\\N", "\\z", "{", "}", "[[:alpha:]]"}

var quants = []string{"", "", "", "*", "+", "?", "{2}", "{1,3}", "{,3}", "{2,}", "*+", "+?", "{300}", "{1000}"}

var opens = []string{"(", "(?:", "(?<n>", "(?=", "(?!", "(?<=", "(?<!", "(?>", "(?|", "(?(1)", "(?(?=a)",
	"(?(DEFINE)", "(*pla:", "(?i:", "(?P<m>", "(*nlb:"}

// wellFormed builds a pattern of closed groups up to depth levels deep, mostly valid, so that
// lookbehind lengths, references, names and conditionals are what decides.
func wellFormed(r *rand.Rand, depth int) string {
	var b strings.Builder
	for k := 1 + r.IntN(4); k > 0; k-- {
		if depth > 0 && r.IntN(3) == 0 {
			b.WriteString(opens[r.IntN(len(opens))])
			b.WriteString(wellFormed(r, depth-1))
			if r.IntN(3) == 0 {
				b.WriteString("|" + wellFormed(r, depth-1))
			}
			b.WriteString(")")
		} else {
			b.WriteString(atoms[r.IntN(len(atoms))])
		}
		b.WriteString(quants[r.IntN(len(quants))])
	}
	return b.String()
}

// escape writes s as oracle.c reads it.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
