package pcre

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOracleCorpus compares Check with PCRE2 10.44 itself on the patterns of
// testdata/oracle-10.44.txt: random compositions of PCRE2's syntax and error cases, each line
// "ok" or "err: " and PCRE2's message, a tab, and the pattern as hack/pcre2-oracle escapes it; the verdicts are what
// pcre2_compile (PCRE2_ANCHORED, as Kong compiles route paths) returned
// (hack/pcre2-oracle/README.md).
func TestOracleCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/oracle-10.44*.txt")
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) { checkCorpus(t, name) })
	}
}

func checkCorpus(t *testing.T, name string) {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	total, wrong, tooLarge, otherMessage := 0, 0, 0, 0
	for sc.Scan() {
		verdict, escaped, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("bad line %q", sc.Text())
		}
		pattern := unescape(escaped)
		total++
		got := Check(pattern)
		switch {
		case (got == nil) == (verdict == "ok"):
			if got != nil && !sameMessage(verdict, got) {
				otherMessage++
			}
			continue
		case strings.HasPrefix(verdict, "err: regular expression is too large") && got == nil:
			tooLarge++ // Check's compiled size is a lower bound; see docs/bad-input.md
			continue
		}
		wrong++
		if wrong <= 40 {
			t.Errorf("%q: PCRE2 says %q, Check says %v", pattern, verdict, got)
		}
	}
	if total < 1000 {
		t.Fatalf("only %d patterns read", total)
	}
	if wrong > 0 {
		t.Errorf("%d of %d verdicts differ from PCRE2's", wrong, total)
	}
	t.Logf("%d patterns; %d too large for PCRE2 and not for Check; %d refused by both with another message",
		total, tooLarge, otherMessage)
}

// sameMessage reports whether Check refused with PCRE2's message (PCRE2 reports the first error
// of its several passes; Check's single pass sometimes meets another first).
func sameMessage(verdict string, got error) bool {
	var e *Error
	if !errors.As(got, &e) {
		return false
	}
	return verdict == "err: "+e.Msg
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case 'x':
				if i+3 < len(s) {
					v, err := strconv.ParseUint(s[i+2:i+4], 16, 8)
					if err == nil {
						b.WriteByte(byte(v))
						i += 3
						continue
					}
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
