package atc

// Matcher is a node of an expression tree: a Predicate, or an And, Or or Not of matchers.
type Matcher interface {
	// Expression renders the node as KIC renders it ("" for an empty node).
	Expression() string
	// IsEmpty reports a node that matches nothing and renders as "": a Predicate without a
	// value, or an And, Or or Not left without operands. And and Or drop such operands.
	IsEmpty() bool
}

// appender is implemented by every matcher of this package, so rendering a tree fills one
// buffer instead of concatenating the strings of its nodes.
type appender interface {
	appendExpr(dst []byte) []byte
}

// appendMatcher appends m's expression to dst, through appendExpr when m has one.
func appendMatcher(dst []byte, m Matcher) []byte {
	if a, ok := m.(appender); ok {
		return a.appendExpr(dst)
	}
	return append(dst, m.Expression()...)
}

// Predicate compares a field with a literal: `http.path ^= "/foo"`.
type Predicate struct {
	Field Field
	Op    Op
	Value Value
}

// Expression is `field op literal`, single spaces between (KIC's form).
func (p Predicate) Expression() string { return string(p.appendExpr(nil)) }

// IsEmpty reports a predicate without a value, which KIC leaves out of And and Or.
func (p Predicate) IsEmpty() bool { return p.Value == nil }

func (p Predicate) appendExpr(dst []byte) []byte {
	if p.IsEmpty() {
		return dst
	}
	dst = append(dst, p.Field...)
	dst = append(dst, ' ')
	dst = append(dst, p.Op...)
	dst = append(dst, ' ')
	return p.Value.appendLiteral(dst)
}

// AndMatcher matches when every operand matches.
type AndMatcher struct{ operands []Matcher }

// OrMatcher matches when any operand matches.
type OrMatcher struct{ operands []Matcher }

// NotMatcher matches when its operand does not.
type NotMatcher struct{ operand Matcher }

// And joins the non-empty matchers with &&. With one it is that matcher itself (KIC renders a
// one-operand And as its operand, so the tree need not keep it); with none it is empty.
func And(ms ...Matcher) Matcher {
	kept := nonEmpty(ms)
	if len(kept) == 1 {
		return kept[0]
	}
	return &AndMatcher{operands: kept}
}

// Or joins the non-empty matchers with ||, as And does with &&.
func Or(ms ...Matcher) Matcher {
	kept := nonEmpty(ms)
	if len(kept) == 1 {
		return kept[0]
	}
	return &OrMatcher{operands: kept}
}

// Not negates m; the negation of an empty matcher is empty.
func Not(m Matcher) Matcher {
	if m == nil || m.IsEmpty() {
		return &NotMatcher{}
	}
	return &NotMatcher{operand: m}
}

// nonEmpty is ms without nil and empty matchers, in order.
func nonEmpty(ms []Matcher) []Matcher {
	kept := make([]Matcher, 0, len(ms))
	for _, m := range ms {
		if m != nil && !m.IsEmpty() {
			kept = append(kept, m)
		}
	}
	return kept
}

// Operands are the matchers joined (callers must not modify the slice).
func (m *AndMatcher) Operands() []Matcher {
	if m == nil {
		return nil
	}
	return m.operands
}

// Operands are the matchers joined (callers must not modify the slice).
func (m *OrMatcher) Operands() []Matcher {
	if m == nil {
		return nil
	}
	return m.operands
}

// Operand is the negated matcher (nil when empty).
func (m *NotMatcher) Operand() Matcher {
	if m == nil {
		return nil
	}
	return m.operand
}

// IsEmpty reports an And without operands.
func (m *AndMatcher) IsEmpty() bool { return m == nil || len(m.operands) == 0 }

// IsEmpty reports an Or without operands.
func (m *OrMatcher) IsEmpty() bool { return m == nil || len(m.operands) == 0 }

// IsEmpty reports a Not of nothing.
func (m *NotMatcher) IsEmpty() bool { return m == nil || m.operand == nil || m.operand.IsEmpty() }

// Expression is `(a) && (b) && ...`: every operand parenthesised, as KIC writes it.
func (m *AndMatcher) Expression() string { return string(m.appendExpr(nil)) }

// Expression is `(a) || (b) || ...`: every operand parenthesised, as KIC writes it.
func (m *OrMatcher) Expression() string { return string(m.appendExpr(nil)) }

// Expression is `!(a)`.
func (m *NotMatcher) Expression() string { return string(m.appendExpr(nil)) }

func (m *AndMatcher) appendExpr(dst []byte) []byte {
	if m.IsEmpty() {
		return dst
	}
	return appendJoined(dst, m.operands, " && ")
}

func (m *OrMatcher) appendExpr(dst []byte) []byte {
	if m.IsEmpty() {
		return dst
	}
	return appendJoined(dst, m.operands, " || ")
}

func (m *NotMatcher) appendExpr(dst []byte) []byte {
	if m.IsEmpty() {
		return dst
	}
	dst = append(dst, '!', '(')
	dst = appendMatcher(dst, m.operand)
	return append(dst, ')')
}

// appendJoined writes KIC's form of an And or Or: a lone operand as it is, several each in
// parentheses, joined by sep. Operands that are empty are skipped (the constructors drop them;
// this keeps a hand-built tree from rendering "()").
func appendJoined(dst []byte, ms []Matcher, sep string) []byte {
	kept := 0
	for _, m := range ms {
		if m != nil && !m.IsEmpty() {
			kept++
		}
	}
	first := true
	for _, m := range ms {
		if m == nil || m.IsEmpty() {
			continue
		}
		if !first {
			dst = append(dst, sep...)
		}
		first = false
		if kept == 1 {
			return appendMatcher(dst, m)
		}
		dst = append(dst, '(')
		dst = appendMatcher(dst, m)
		dst = append(dst, ')')
	}
	return dst
}
