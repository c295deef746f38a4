// Package atc models Kong's expressions-router language (ATC, as implemented by Kong's
// atc-router and used when Kong runs with router_flavor = expressions) as a typed tree of
// predicates joined by &&, || and !, renders that tree as text exactly as KIC v3.5.13 writes
// route expressions, parses Kong's grammar back into the tree, and checks a tree against the
// field schema and operator rules Kong applies before it accepts a route.
//
// The rendering is what makes two controllers' configs comparable byte for byte, so it follows
// KIC's rules, not a minimal form: a predicate is `field op literal` with single spaces; an And
// or Or of two or more operands wraps every operand in parentheses and joins them with " && " or
// " || "; an And or Or of one operand is that operand; a Not is `!(operand)`; a string literal is
// double-quoted with only `\`, `"`, newline, carriage return and tab escaped.
//
// The constructors keep the tree canonical (empty operands dropped, a one-operand And or Or
// replaced by its operand), so a tree rendered and parsed back is the same tree. The package
// imports only the standard library: the translator and the Kong test double both build on it.
package atc
