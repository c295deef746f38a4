package boundedyaml

import "bytes"

// A YAML parser's tree costs about 200 bytes of memory per node whatever the node holds, so a
// 3 MiB document of tiny flow scalars ([1,1,1,…], 1.5 million nodes) takes sigs.k8s.io/yaml's
// converter over 300 MB, and yaml.v3's Node tree (Check) as much: bytes alone do not bound what
// a document costs to parse. EstimateNodes counts, without parsing, what can start a node, so
// that such a document is refused before any tree is built.

// EstimateNodes is an over-estimate of the nodes of a YAML (or JSON) text, in one pass without
// allocating: each line with content, each flow indicator ([, {, ','), each "key: " and each
// "- " entry count one. Quoted scalars, comments and block scalars (| and >) count nothing
// inside, since they hold one node however many commas they contain. A real node always comes
// with one of the counted marks, so the count is never below the node count, and for ordinary
// documents it is within a small factor of it.
func EstimateNodes(data []byte) int {
	e := estimator{n: 1, blockIndent: -1} // the root collection, which no mark starts
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		e.line(line)
	}
	return e.n
}

type estimator struct {
	n           int
	quote       byte // the quote of a scalar that goes on to the next line, or 0
	blockIndent int  // the indentation a block scalar's lines exceed, or -1 outside one
}

func (e *estimator) line(line []byte) {
	indent := 0
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	if e.blockIndent >= 0 {
		if indent == len(line) || indent > e.blockIndent {
			return // inside a block scalar: one node, counted where it started
		}
		e.blockIndent = -1
	}
	if e.quote == 0 && indent < len(line) {
		e.n++
	}
	last := e.scan(line[indent:])
	if e.quote == 0 && (last == '|' || last == '>') {
		e.blockIndent = indent
	}
}

// scan counts the marks of one line's content and returns its last significant byte outside
// quotes and comments, or what follows a block scalar indicator's modifiers.
func (e *estimator) scan(s []byte) byte {
	var last byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if e.quote != 0 {
			switch {
			case c == '\\' && e.quote == '"':
				i++
			case c == e.quote && e.quote == '\'' && i+1 < len(s) && s[i+1] == '\'':
				i++
			case c == e.quote:
				e.quote, last = 0, c
			}
			continue
		}
		switch c {
		case '"', '\'':
			e.quote = c
		case '#':
			if i == 0 || s[i-1] == ' ' || s[i-1] == '\t' {
				return last
			}
		case ',', '[', '{':
			e.n++
		case ':', '-', '?':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t' {
				e.n++
			}
		}
		if c != ' ' && c != '\t' && !(blockModifier(c) && (last == '|' || last == '>')) {
			last = c
		}
	}
	return last
}

// blockModifier is a block scalar header's chomping or indentation indicator (|-, >+, |2).
func blockModifier(c byte) bool { return c == '-' || c == '+' || c >= '1' && c <= '9' }
