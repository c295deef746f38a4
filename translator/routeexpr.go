package translator

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kongsync/kongsync/translator/atc"
)

// Routes under Kong's expressions router (router_flavor = expressions) carry an `expression`
// and a `priority` instead of hosts, paths, headers, methods, SNIs and destinations. The
// renderer (routerenderexpr.go) builds a route's expression here, from its match description
// (routematch.go), as KIC's tree of && and || over predicates; matchExpr renders it the way
// KIC v3.5.13 renders it (translator/atc documents the form: a lone operand bare, several each
// in parentheses) straight into a byte buffer, with no node or Value allocated per predicate.
// translator/atc is the reference: the tests check that both render the same text for the same
// tree, and that the text parses back.
//
// The matchers the families' expressions share are below (hosts, headers, methods, SNIs,
// protocols, ports); their paths are the renderer's.

// exprNode is a predicate, or an And or Or of the nodes after it.
type exprNode struct {
	field atc.Field
	op    atc.Op
	str   string
	num   int
	kind  exprKind
	kids  int32 // direct children of an And or Or, each non-empty
}

type exprKind uint8

const (
	exprString exprKind = iota // field op "str"
	exprInt                    // field op num
	exprAnd
	exprOr
)

// matchExpr is one route's expression tree, kept flat in prefix order while it is built: open
// an And or Or, add its operands, close it. A group left without operands is removed when
// closed, as KIC's And and Or drop empty operands, so every node that remains renders text.
// The zero value is ready; a family that makes many routes keeps one and resets it for each,
// so that its buffers are allocated once per build, not per route.
type matchExpr struct {
	nodes []exprNode
	open  []int32 // indexes of the groups being filled
	out   []byte  // rendering scratch
}

// reset empties the tree, keeping its buffers.
func (m *matchExpr) reset() { m.nodes, m.open = m.nodes[:0], m.open[:0] }

func (m *matchExpr) push(n exprNode) {
	if k := len(m.open); k > 0 && n.kind < exprAnd {
		m.nodes[m.open[k-1]].kids++
	}
	m.nodes = append(m.nodes, n)
}

// and and or open a group; end closes the innermost one.
func (m *matchExpr) and() { m.group(exprAnd) }
func (m *matchExpr) or()  { m.group(exprOr) }

func (m *matchExpr) group(k exprKind) {
	m.push(exprNode{kind: k})
	m.open = append(m.open, int32(len(m.nodes)-1))
}

func (m *matchExpr) end() {
	k := len(m.open) - 1
	g := m.open[k]
	m.open = m.open[:k]
	if m.nodes[g].kids == 0 {
		m.nodes = m.nodes[:g] // an empty group: KIC leaves it out
		return
	}
	if k > 0 {
		m.nodes[m.open[k-1]].kids++
	}
}

// str and num add a predicate to the innermost open group.
func (m *matchExpr) str(f atc.Field, op atc.Op, v string) {
	m.push(exprNode{field: f, op: op, str: v, kind: exprString})
}

func (m *matchExpr) num(f atc.Field, op atc.Op, v int) {
	m.push(exprNode{field: f, op: op, num: v, kind: exprInt})
}

// empty reports a tree that renders no text.
func (m *matchExpr) empty() bool { return len(m.nodes) == 0 }

// appendTo renders the tree (its first node and what that node holds) into dst.
func (m *matchExpr) appendTo(dst []byte) []byte {
	if len(m.nodes) == 0 {
		return dst
	}
	dst, _ = m.render(dst, 0)
	return dst
}

func (m *matchExpr) render(dst []byte, i int) ([]byte, int) {
	n := &m.nodes[i]
	switch n.kind {
	case exprString, exprInt:
		dst = append(dst, n.field...)
		dst = append(dst, ' ')
		dst = append(dst, n.op...)
		dst = append(dst, ' ')
		if n.kind == exprInt {
			return strconv.AppendInt(dst, int64(n.num), 10), i + 1
		}
		return atc.AppendStringLiteral(dst, n.str), i + 1
	}
	if n.kids == 1 {
		return m.render(dst, i+1)
	}
	sep := " && "
	if n.kind == exprOr {
		sep = " || "
	}
	j := i + 1
	for k := int32(0); k < n.kids; k++ {
		if k > 0 {
			dst = append(dst, sep...)
		}
		dst = append(dst, '(')
		dst, j = m.render(dst, j)
		dst = append(dst, ')')
	}
	return dst, j
}

// matcher is the tree as translator/atc's Matcher (tests compare the two renderings).
func (m *matchExpr) matcher() atc.Matcher {
	if len(m.nodes) == 0 {
		return atc.And()
	}
	am, _ := m.atcNode(0)
	return am
}

func (m *matchExpr) atcNode(i int) (atc.Matcher, int) {
	n := &m.nodes[i]
	switch n.kind {
	case exprString:
		return atc.Predicate{Field: n.field, Op: n.op, Value: atc.StringValue(n.str)}, i + 1
	case exprInt:
		return atc.Predicate{Field: n.field, Op: n.op, Value: atc.IntValue(n.num)}, i + 1
	}
	ops := make([]atc.Matcher, 0, n.kids)
	j := i + 1
	for k := int32(0); k < n.kids; k++ {
		var c atc.Matcher
		c, j = m.atcNode(j)
		ops = append(ops, c)
	}
	if n.kind == exprOr {
		return atc.Or(ops...), j
	}
	return atc.And(ops...), j
}

// exprRoute holds a route's expression and priority, for the entity's pointers (render
// allocates one per route, or a family gives storage it allocated with the route).
type exprRoute struct {
	expr string
	prio uint64
}

// hosts adds an Or of the hosts KIC's host check accepts: `http.host == "h"`, or for a
// wildcard `*.example.com`, `http.host =^ ".example.com"`. KIC skips the others silently; the
// caller reports them (badExprHost). The family counts every host in its priority, as KIC does.
func (m *matchExpr) hosts(hosts ...string) {
	m.or()
	for _, h := range hosts {
		m.host(h)
	}
	m.end()
}

// host adds one host's predicate to the open group (nothing for a host KIC skips): call it
// between or() and end() to build an Or of hosts held in several lists.
func (m *matchExpr) host(h string) {
	switch {
	case !kicHost(h):
	case strings.HasPrefix(h, "*"):
		m.str(atc.FieldHTTPHost, atc.OpSuffixMatch, h[1:])
	default:
		m.str(atc.FieldHTTPHost, atc.OpEqual, h)
	}
}

// annotationHeaders adds konghq.com/headers.* as KIC matches them under expressions: an And,
// by header name in byte order, of an Or of the header's values; a value starting with "~*"
// is a regex (`~`), any other an exact match; names are lowercased with '-' as '_'. The Host
// header is matched by hosts, not here.
func (m *matchExpr) annotationHeaders(headers map[string][]string) {
	if len(headers) == 0 {
		return
	}
	var nb [8]string
	names := nb[:0]
	for name := range headers {
		names = append(names, name)
	}
	slices.Sort(names)
	m.and()
	for _, name := range names {
		f := atc.HeaderField(name)
		if f == atc.HeaderField("host") {
			continue
		}
		m.or()
		for _, v := range headers[name] {
			if re, ok := strings.CutPrefix(v, "~*"); ok {
				m.str(f, atc.OpRegexMatch, re)
			} else {
				m.str(f, atc.OpEqual, v)
			}
		}
		m.end()
	}
	m.end()
}

// methods adds an Or of `http.method == "M"` (the values are checked upper-case methods).
func (m *matchExpr) methods(methods []*string) {
	m.or()
	for _, v := range methods {
		m.str(atc.FieldHTTPMethod, atc.OpEqual, *v)
	}
	m.end()
}

// snis adds an Or of `tls.sni == "s"` for the SNIs KIC's SNI check accepts.
func (m *matchExpr) snis(snis ...string) {
	m.or()
	for _, s := range snis {
		if validSNI.MatchString(s) {
			m.str(atc.FieldTLSSNI, atc.OpEqual, s)
		}
	}
	m.end()
}

// sniPtrs is snis for a list of pointers.
func (m *matchExpr) sniPtrs(snis []*string) {
	m.or()
	for _, s := range snis {
		if validSNI.MatchString(*s) {
			m.str(atc.FieldTLSSNI, atc.OpEqual, *s)
		}
	}
	m.end()
}

// protocols adds an Or of `net.protocol == "p"`.
func (m *matchExpr) protocols(protocols ...string) {
	m.or()
	for _, p := range protocols {
		m.str(atc.FieldNetProtocol, atc.OpEqual, p)
	}
	m.end()
}

// ports adds an Or of `net.dst.port == n`.
func (m *matchExpr) ports(ports ...int) {
	m.or()
	for _, p := range ports {
		m.num(atc.FieldNetDstPort, atc.OpEqual, p)
	}
	m.end()
}

// kicHost is KIC's host check for expression routes (its validHosts pattern, without the
// regexp): an optional "*." then labels of ASCII letters and digits joined by single hyphens,
// separated by dots, and optionally a final ".*". IDNA names ("xn--") fail it, as in KIC.
func kicHost(h string) bool {
	h = strings.TrimPrefix(h, "*.")
	h = strings.TrimSuffix(h, ".*")
	if h == "" {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if !kicLabel(label) {
			return false
		}
	}
	return true
}

// kicLabel: runs of ASCII letters and digits joined by single hyphens.
func kicLabel(l string) bool {
	if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == '-':
			if l[i-1] == '-' {
				return false
			}
		case c|0x20 >= 'a' && c|0x20 <= 'z', c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return true
}

// expressions reports whether this build translates for Kong's expressions router.
func (t *translation) expressions() bool { return t.opts.RouterFlavor.Expressions() }
