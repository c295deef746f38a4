package atc

import (
	"net/netip"
	"strconv"
)

// Op is a predicate's comparison operator, spelled as Kong's grammar spells it.
type Op string

// The operators of Kong's grammar. OpNotIn is written with one space, as KIC writes it (Kong
// accepts any whitespace between "not" and "in").
const (
	OpEqual        Op = "=="
	OpNotEqual     Op = "!="
	OpRegexMatch   Op = "~"
	OpPrefixMatch  Op = "^="
	OpSuffixMatch  Op = "=^"
	OpGreaterEqual Op = ">="
	OpGreater      Op = ">"
	OpLessEqual    Op = "<="
	OpLess         Op = "<"
	OpIn           Op = "in"
	OpNotIn        Op = "not in"
	OpContains     Op = "contains"
)

// Type is the type of a field in Kong's router schema, or of a literal.
type Type int

// The types of Kong's router schema (atc-router's ast Type, without Regex, which only the
// right side of `~` has once Kong compiled it).
const (
	TypeString Type = iota
	TypeInt
	TypeIPAddr
	TypeIPCIDR
)

// String names the type as Kong's schema does.
func (t Type) String() string {
	switch t {
	case TypeString:
		return "String"
	case TypeInt:
		return "Int"
	case TypeIPAddr:
		return "IpAddr"
	case TypeIPCIDR:
		return "IpCidr"
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Value is the right side of a predicate: a literal of one of Kong's types.
type Value interface {
	// Type is the literal's type, which Check compares with the field's.
	Type() Type
	// Literal is the literal as it appears in an expression.
	Literal() string
	// appendLiteral appends Literal to dst (rendering many routes should not allocate per
	// literal); unexported so the set of literals stays the one Kong's grammar has.
	appendLiteral(dst []byte) []byte
}

// StringValue is a string literal.
type StringValue string

// Type is TypeString.
func (StringValue) Type() Type { return TypeString }

// Literal quotes the string as KIC does: `\` and `"` are backslash-escaped and newline, carriage
// return and tab become \n, \r and \t; every other byte, control characters included, is
// written as it is (Kong's grammar accepts any character but `"` and `\` unescaped).
func (v StringValue) Literal() string { return string(v.appendLiteral(nil)) }

func (v StringValue) appendLiteral(dst []byte) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '"':
			dst = append(dst, '\\', '"')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// IntValue is an integer literal, written in decimal (Kong also reads octal and 0x hex).
type IntValue int

// Type is TypeInt.
func (IntValue) Type() Type { return TypeInt }

// Literal is the decimal form.
func (v IntValue) Literal() string { return strconv.Itoa(int(v)) }

func (v IntValue) appendLiteral(dst []byte) []byte { return strconv.AppendInt(dst, int64(v), 10) }

// IPValue is a single IPv4 or IPv6 address literal.
type IPValue netip.Addr

// Type is TypeIPAddr.
func (IPValue) Type() Type { return TypeIPAddr }

// Literal is the address in its canonical form (RFC 5952 for IPv6), except that an
// IPv4-mapped IPv6 address is written in full hex: Kong's grammar has no dotted IPv6 form.
func (v IPValue) Literal() string { return string(v.appendLiteral(nil)) }

func (v IPValue) appendLiteral(dst []byte) []byte { return appendAddr(dst, netip.Addr(v)) }

func appendAddr(dst []byte, a netip.Addr) []byte {
	if a.Is4In6() {
		return append(dst, a.StringExpanded()...)
	}
	return a.AppendTo(dst)
}

// CIDRValue is an IPv4 or IPv6 network literal (address/bits, host bits zero).
type CIDRValue netip.Prefix

// Type is TypeIPCIDR.
func (CIDRValue) Type() Type { return TypeIPCIDR }

// Literal is the network in its canonical form (an IPv4-mapped one as IPValue writes it).
func (v CIDRValue) Literal() string { return string(v.appendLiteral(nil)) }

func (v CIDRValue) appendLiteral(dst []byte) []byte {
	p := netip.Prefix(v)
	if !p.IsValid() {
		return p.AppendTo(dst)
	}
	dst = appendAddr(dst, p.Addr())
	dst = append(dst, '/')
	return strconv.AppendInt(dst, int64(p.Bits()), 10)
}

func addrOf(v IPValue) netip.Addr { return netip.Addr(v) }

func prefixOf(v CIDRValue) netip.Prefix { return netip.Prefix(v) }

// AppendStringLiteral appends s quoted as StringValue.Literal quotes it, so that a caller
// writing an expression into its own buffer needs no Value (and no allocation) per literal.
func AppendStringLiteral(dst []byte, s string) []byte { return StringValue(s).appendLiteral(dst) }
