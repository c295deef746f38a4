package document

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// errSlowPath says the fast YAML emitter met something whose rendering it does not reproduce
// (non-ASCII text, escapes, nested sequences, ...); the caller then uses yaml.v3 for that part.
var errSlowPath = errors.New("needs the general YAML encoder")

// yamlEmitter writes the block-style YAML that yaml.v3 (indent 2) writes for a JSON tree, byte
// for byte, without yaml.v3's per-event costs. It implements yaml.v3's choices for the values a
// Kong config holds: sorted keys in yaml.v3's natural order, plain scalars unless YAML would read
// them as another type or they start with an indicator, single quotes when plain is not allowed,
// double quotes for strings that look like numbers, booleans or null, and literal blocks for
// multi-line PEM text. Everything else returns errSlowPath.
type yamlEmitter struct {
	out []byte
}

func (e *yamlEmitter) indent(n int) {
	for range n {
		e.out = append(e.out, ' ')
	}
}

// mapping writes the pairs of m at indent ind; the first key goes on the current line when
// inline (a mapping that is a sequence item).
func (e *yamlEmitter) mapping(m *jval, ind int, inline bool) error {
	for i, k := range m.sortedKeys() {
		if i > 0 || !inline {
			e.indent(ind)
		}
		if err := e.scalarString(m.keys[k], true); err != nil {
			return err
		}
		if err := e.mappingValue(m.vals[k], ind); err != nil {
			return err
		}
	}
	return nil
}

// mappingValue writes what follows a key: ": scalar", ": {}", or a nested block.
func (e *yamlEmitter) mappingValue(v *jval, ind int) error {
	switch {
	case v.kind == 'o' && len(v.keys) == 0:
		e.out = append(e.out, ": {}\n"...)
	case v.kind == 'a' && len(v.items) == 0:
		e.out = append(e.out, ": []\n"...)
	case v.kind == 'o':
		e.out = append(e.out, ":\n"...)
		return e.mapping(v, ind+2, false)
	case v.kind == 'a':
		e.out = append(e.out, ":\n"...)
		return e.sequence(v, ind+2)
	case v.kind == 's' && strings.IndexByte(v.str, '\n') >= 0:
		return e.literal(v.str, ind+2)
	default:
		e.out = append(e.out, ": "...)
		if err := e.scalar(v); err != nil {
			return err
		}
		e.out = append(e.out, '\n')
	}
	return nil
}

func (e *yamlEmitter) sequence(a *jval, ind int) error {
	for _, it := range a.items {
		e.indent(ind)
		e.out = append(e.out, "- "...)
		if err := e.item(it, ind); err != nil {
			return err
		}
	}
	return nil
}

func (e *yamlEmitter) item(it *jval, ind int) error {
	switch {
	case it.kind == 'o' && len(it.keys) == 0:
		e.out = append(e.out, "{}\n"...)
	case it.kind == 'a' && len(it.items) == 0:
		e.out = append(e.out, "[]\n"...)
	case it.kind == 'o':
		return e.mapping(it, ind+2, true)
	case it.kind == 'a', it.kind == 's' && strings.IndexByte(it.str, '\n') >= 0:
		return errSlowPath
	default:
		if err := e.scalar(it); err != nil {
			return err
		}
		e.out = append(e.out, '\n')
	}
	return nil
}

func (e *yamlEmitter) scalar(v *jval) error {
	switch v.kind {
	case 's':
		return e.scalarString(v.str, false)
	case 'n':
		f, err := strconv.ParseFloat(v.str, 64)
		if err != nil {
			return err
		}
		if n, ok := exactInt(f); ok {
			e.out = strconv.AppendInt(e.out, n, 10)
			return nil
		}
		e.out = strconv.AppendFloat(e.out, f, 'g', -1, 64)
	case 't':
		e.out = append(e.out, "true"...)
	case 'f':
		e.out = append(e.out, "false"...)
	case 'z':
		e.out = append(e.out, "null"...)
	default:
		return errSlowPath
	}
	return nil
}

// scalarString writes a one-line string in the style yaml.v3 picks for it.
func (e *yamlEmitter) scalarString(s string, key bool) error {
	if !printableASCII(s) || key && len(s) > 128 {
		return errSlowPath
	}
	isString, ok := plainReadsAsString(s)
	switch {
	case !ok:
		return errSlowPath
	case !isString:
		if strings.ContainsAny(s, `"\`) {
			return errSlowPath
		}
		e.out = append(e.out, '"')
		e.out = append(e.out, s...)
		e.out = append(e.out, '"')
	case plainAllowed(s):
		e.out = append(e.out, s...)
	default:
		e.out = append(e.out, '\'')
		e.out = append(e.out, strings.ReplaceAll(s, "'", "''")...)
		e.out = append(e.out, '\'')
	}
	return nil
}

// literal writes a multi-line string as a "|" block whose lines sit at indent ind. Leading
// spaces, blank lines and trailing spaces change the header or the style; they take the slow
// path.
func (e *yamlEmitter) literal(s string, ind int) error {
	if !literalSafe(s) {
		return errSlowPath
	}
	body, chomp := strings.CutSuffix(s, "\n")
	e.out = append(e.out, ": |"...)
	if !chomp {
		e.out = append(e.out, '-')
	}
	e.out = append(e.out, '\n')
	for line := range strings.SplitSeq(body, "\n") {
		e.indent(ind)
		e.out = append(e.out, line...)
		e.out = append(e.out, '\n')
	}
	return nil
}

// literalSafe reports whether a multi-line string is one the fast emitter writes as a literal
// block: printable ASCII lines, none blank or with leading or trailing spaces where the
// block's header would have to say so. yaml.v3 writes others as literals too, but loses a
// leading line break, a first line starting with a tab or a Unicode line separator
// (quoteMisread has it double-quote them all).
func literalSafe(s string) bool {
	body, _ := strings.CutSuffix(s, "\n")
	return s[0] != ' ' && s[0] != '\n' && !strings.Contains(body, "\n\n") && !strings.Contains(s, " \n") &&
		!strings.HasSuffix(body, "\n") && !strings.HasSuffix(s, " ") && printableASCII(strings.ReplaceAll(s, "\n", ""))
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// plainAllowed is yaml.v3's analysis of whether a one-line printable ASCII string may be written
// plain in block context: no leading or trailing space and no indicator where YAML would see one.
func plainAllowed(s string) bool {
	if s[0] == ' ' || s[len(s)-1] == ' ' || strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		return false
	}
	blankAfter := func(i int) bool { return i+1 >= len(s) || s[i+1] == ' ' }
	switch s[0] {
	case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	case '?', ':', '-':
		if blankAfter(0) {
			return false
		}
	}
	for i := 1; i < len(s); i++ {
		if s[i] == ':' && blankAfter(i) || s[i] == '#' && s[i-1] == ' ' {
			return false
		}
	}
	return true
}

var (
	yamlFloat   = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	yamlBase60  = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)
	nonStrWords = map[string]bool{
		"": true, "~": true, "null": true, "Null": true, "NULL": true,
		"true": true, "True": true, "TRUE": true, "false": true, "False": true, "FALSE": true,
		".nan": true, ".NaN": true, ".NAN": true, ".inf": true, ".Inf": true, ".INF": true,
		"+.inf": true, "+.Inf": true, "+.INF": true, "-.inf": true, "-.Inf": true, "-.INF": true,
		// YAML 1.1 booleans, which yaml.v3 still quotes for older readers.
		"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
		"n": true, "N": true, "no": true, "No": true, "NO": true, "off": true, "Off": true, "OFF": true,
		// The merge key (yaml.v3 and YAML 1.1 readers merge it, or refuse a scalar value) and YAML
		// 1.1's value key (PyYAML refuses it), which yaml.v3 writes plain: yamlEncode quotes them.
		"<<": true, "=": true,
	}
)

// plainReadsAsString is yaml.v3's test for writing a string plain: read back unquoted it must
// still be a string (not null, a boolean, a number or a timestamp). ok is false where this code
// does not reproduce yaml.v3's answer (date-like strings).
func plainReadsAsString(s string) (isString, ok bool) {
	if nonStrWords[s] {
		return false, true
	}
	switch c := s[0]; {
	case c == '.':
		_, err := strconv.ParseFloat(s, 64)
		return err != nil, true
	case c != '+' && c != '-' && (c < '0' || c > '9'):
		return true, true
	}
	if looksLikeDate(s) {
		return false, false
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return false, true
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return false, true
	}
	if onlyChars(plain, "0123456789+-.eE") && yamlFloat.MatchString(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return false, true
		}
	}
	if rest, ok := strings.CutPrefix(plain, "0b"); ok {
		_, errInt := strconv.ParseInt(rest, 2, 64)
		_, errUint := strconv.ParseUint(rest, 2, 64)
		if errInt == nil || errUint == nil {
			return false, true
		}
	} else if rest, ok := strings.CutPrefix(plain, "-0b"); ok {
		if _, err := strconv.ParseInt("-"+rest, 2, 64); err == nil {
			return false, true
		}
	}
	return !(onlyChars(s, "0123456789_:.+-") && yamlBase60.MatchString(s)), true
}

// onlyChars reports whether every byte of s is in set: a cheap filter before a regexp.
func onlyChars(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

// looksLikeDate is true for strings starting "YYYY-", which yaml.v3 may read as timestamps.
func looksLikeDate(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == 4 && i < len(s) && s[i] == '-'
}

// yamlKeyLess orders mapping keys the way yaml.v3 does: letters compare by code point, other
// characters sort before letters, and runs of digits compare by numeric value.
func yamlKeyLess(a, b string) bool {
	ar, br := []rune(a), []rune(b)
	digits := false
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			digits = unicode.IsDigit(ar[i])
			continue
		}
		al, bl := unicode.IsLetter(ar[i]), unicode.IsLetter(br[i])
		if al && bl {
			return ar[i] < br[i]
		}
		if al || bl {
			if digits {
				return al
			}
			return bl
		}
		return digitRunLess(ar, br, i)
	}
	return len(ar) < len(br)
}

// digitRunLess compares a and b at their first difference i by the numbers starting there.
func digitRunLess(ar, br []rune, i int) bool {
	var an, bn int64
	if ar[i] == '0' || br[i] == '0' {
		for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
			if ar[j] != '0' {
				an, bn = 1, 1
				break
			}
		}
	}
	ai, bi := i, i
	for ; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
		an = an*10 + int64(ar[ai]-'0')
	}
	for ; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
		bn = bn*10 + int64(br[bi]-'0')
	}
	if an != bn {
		return an < bn
	}
	if ai != bi {
		return ai < bi
	}
	return ar[i] < br[i]
}

// sortedKeys returns the indexes of m's keys in yaml.v3's order.
func (m *jval) sortedKeys() []int {
	idx := make([]int, len(m.keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(x, y int) int {
		a, b := m.keys[x], m.keys[y]
		switch {
		case a == b:
			return 0
		case simpleKey(a) && simpleKey(b):
			return strings.Compare(a, b) // same order as yamlKeyLess for [a-z_] keys
		case yamlKeyLess(a, b):
			return -1
		}
		return 1
	})
	return idx
}

func simpleKey(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < 'a' || s[i] > 'z') && s[i] != '_' {
			return false
		}
	}
	return true
}
