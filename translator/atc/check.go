package atc

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The messages of atc-router 1.6.2 (the router of Kong 3.9), which Kong prefixes with "Router
// Expression failed validation: " in the error of the route.
const (
	errTypeMismatch     = "Type mismatch between the LHS and RHS values of predicate"
	errLowerOnlyString  = "lower-case transformation function only supported with String type fields"
	errRegexOnlyString  = "Regex operators only supports string operands"
	errPrefixOnlyString = "Regex/Prefix/Postfix operators only supports string operands"
	errOrderOnlyInt     = "Greater/GreaterOrEqual/Lesser/LesserOrEqual operators only supports integer operands"
	errInOnlyCIDR       = "In/NotIn operators only supports IP in CIDR"
	errContainsOnlyStr  = "Contains operator only supports string operands"
)

// Check reports whether Kong would accept the tree as the expression of an HTTP route (http,
// https, grpc or grpcs; the HTTP schema also has every field of the stream schema). See
// CheckIn.
func Check(m Matcher) error { return CheckIn(SchemaHTTP, m) }

// CheckIn reports whether Kong would accept the tree as the expression of a route whose
// protocols select schema: every field is in the schema (headers, queries and path segments by
// their wildcards), the literal has the field's type, the operator applies to that type (as
// atc-router's semantic check, in its order, with its messages), a regex compiles, and a
// path-segment field is well formed (Kong's own check after atc-router's). It also refuses what
// Kong could not be sent: an empty tree, a field or literal Parse would not read back, and a
// tree deeper than MaxDepth.
//
// Regexes are compiled with Go's RE2 syntax; Kong uses Rust's regex crate, whose syntax is
// nearly the same (both refuse backreferences and lookaround), and whose nest limit (250) is
// checked too (CheckRegex).
func CheckIn(schema Schema, m Matcher) error {
	if m == nil || m.IsEmpty() {
		return errors.New("empty expression")
	}
	return checkNode(schema, m, 0)
}

func checkNode(schema Schema, m Matcher, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("nested deeper than %d levels", MaxDepth)
	}
	var operands []Matcher
	switch n := m.(type) {
	case Predicate:
		return checkPredicate(schema, n)
	case *Predicate:
		return checkPredicate(schema, *n)
	case *AndMatcher:
		operands = n.Operands()
	case *OrMatcher:
		operands = n.Operands()
	case *NotMatcher:
		operands = []Matcher{n.Operand()}
	default:
		return fmt.Errorf("unknown matcher %T", m)
	}
	for _, o := range operands {
		if o == nil || o.IsEmpty() {
			continue
		}
		if err := checkNode(schema, o, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// checkPredicate applies atc-router's rules to one predicate, then Kong's path-segment check.
func checkPredicate(schema Schema, p Predicate) error {
	name, lower, ok := p.Field.unwrap()
	if !ok {
		return fmt.Errorf("field %q is not a field name of Kong's grammar", p.Field)
	}
	lhs, ok := schema.TypeOf(name)
	if !ok {
		return errors.New(errUnknownField)
	}
	if err := checkLiteral(p.Value); err != nil {
		return err
	}
	rhs := p.Value.Type()
	if p.Op != OpRegexMatch && p.Op != OpIn && p.Op != OpNotIn && lhs != rhs {
		return errors.New(errTypeMismatch)
	}
	if lower && lhs != TypeString {
		return errors.New(errLowerOnlyString)
	}
	if err := checkOperator(p, lhs, rhs); err != nil {
		return err
	}
	return checkPathSegments(name)
}

// checkOperator is atc-router's rule for each operator, given the field's and literal's types.
func checkOperator(p Predicate, lhs, rhs Type) error {
	var ok bool
	var msg string
	switch p.Op {
	case OpEqual, OpNotEqual:
		return nil
	case OpRegexMatch:
		if rhs != TypeString {
			return errors.New("regex operator can only be used with String operands")
		}
		if lhs != TypeString {
			return errors.New(errRegexOnlyString)
		}
		return CheckRegex(string(p.Value.(StringValue)))
	case OpPrefixMatch, OpSuffixMatch:
		ok, msg = rhs == TypeString, errPrefixOnlyString
	case OpGreater, OpGreaterEqual, OpLess, OpLessEqual:
		ok, msg = rhs == TypeInt, errOrderOnlyInt
	case OpIn, OpNotIn:
		ok, msg = lhs == TypeIPAddr && rhs == TypeIPCIDR, errInOnlyCIDR
	case OpContains:
		ok, msg = rhs == TypeString, errContainsOnlyStr
	default:
		return fmt.Errorf("unknown operator %q", p.Op)
	}
	if !ok {
		return errors.New(msg)
	}
	return nil
}

// checkLiteral refuses literals that Parse would not read back: nil, an invalid address, a
// network with host bits set, a string that is not UTF-8 (Kong reads expressions as UTF-8).
func checkLiteral(v Value) error {
	switch v := v.(type) {
	case nil:
		return errors.New("predicate without a value")
	case StringValue:
		if !utf8.ValidString(string(v)) {
			return errors.New("string literal is not valid UTF-8")
		}
	case IntValue:
		if int64(v) == math.MinInt64 {
			return errors.New("integer literal out of Kong's range")
		}
	case IPValue:
		if a := addrOf(v); !a.IsValid() || a.Zone() != "" {
			return fmt.Errorf("invalid IP address literal %q", v.Literal())
		}
	case CIDRValue:
		if p := prefixOf(v); !p.IsValid() || p != p.Masked() {
			return fmt.Errorf("invalid CIDR literal %q (host bits must be zero)", v.Literal())
		}
	}
	return nil
}

// checkPathSegments is Kong's check of http.path.segments.* fields: the suffix is "len", an
// index, or an interval start_end with start < end, numbers without leading zeros.
func checkPathSegments(name string) error {
	suffix, ok := strings.CutPrefix(name, pathSegmentPrefix)
	if !ok || suffix == "len" {
		return nil
	}
	start, end, interval := strings.Cut(suffix, "_")
	a, okA := segmentIndex(start, true)
	b, okB := segmentIndex(end, false)
	if !okA || interval && (!okB || a >= b) {
		return errors.New(errIllformedPathSegmentsField)
	}
	return nil
}

// segmentIndex reads a decimal without leading zeros ("0" itself only when zeroOK).
func segmentIndex(s string, zeroOK bool) (int, bool) {
	if s == "" || span(s, isDigit) != len(s) || s[0] == '0' && (len(s) > 1 || !zeroOK) {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
