// Package boundedyaml converts YAML or JSON to JSON as sigs.k8s.io/yaml does (kubectl's YAML 1.1
// scalars: yes/no are booleans, 0x1F an integer), but refuses, before anything is expanded, a
// document whose JSON would exceed a number of bytes or a nesting depth. YAML aliases let a few
// hundred kilobytes stand for gigabytes: sigs.k8s.io/yaml's converter expands every alias into a
// fresh value, and its own guard (go-yaml's alias ratio) counts aliases, not bytes, so one large
// anchored value aliased a few thousand times passes it and exhausts memory.
//
// The check parses with gopkg.in/yaml.v3's Node API, which keeps an alias as a pointer to its
// anchor instead of copying it, and measures each anchored node once (memoised), so the check is
// linear in the document whatever its aliases expand to. Only then is the document converted
// with sigs.k8s.io/yaml, so accepted documents decode to exactly the values they did before.
package boundedyaml

import (
	"bytes"
	"errors"
	"fmt"

	"gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// Limits bounds a document's JSON form. MaxBytes and MaxDepth must be positive.
type Limits struct {
	// MaxNodes, if positive, bounds EstimateNodes of the YAML text: what parsing it costs.
	MaxNodes int
	// MaxBytes bounds the JSON's length, aliases expanded.
	MaxBytes int
	// MaxDepth bounds how deeply objects and arrays nest: a scalar is depth 0, {} and [] depth 1.
	MaxDepth int
}

// LimitError is a refusal for a bound, before the document was expanded. It never quotes the
// document (which may be a Secret's data).
type LimitError struct {
	Bound string // "bytes", "depth", "nodes" or "recursion"
	Limit int
}

// Error words the refusal to follow "the document" or "the Secret value".
func (e *LimitError) Error() string {
	switch e.Bound {
	case "bytes":
		return fmt.Sprintf("expands to more than %d bytes of JSON (YAML aliases expanded)", e.Limit)
	case "depth":
		return fmt.Sprintf("nests objects and arrays more than %d levels deep", e.Limit)
	case "nodes":
		return fmt.Sprintf("holds more than %d YAML nodes (scalars, sequences, mappings)", e.Limit)
	}
	return "holds a YAML alias inside the node it refers to (infinitely recursive)"
}

// ToJSON converts one YAML (or JSON) document to JSON with sigs.k8s.io/yaml's semantics, or
// returns a *LimitError when its JSON would exceed lim, or the parsers' syntax error. Like
// sigs.k8s.io/yaml it reads the first document of a stream only.
func ToJSON(data []byte, lim Limits) (js []byte, err error) {
	defer recoverParse(&err)
	if lim.MaxNodes > 0 && EstimateNodes(data) > lim.MaxNodes {
		return nil, &LimitError{Bound: "nodes", Limit: lim.MaxNodes}
	}
	// Aliases are the only way a YAML document grows when decoded, and an alias is always
	// written with '*': without one, the conversion costs what the input does, and the JSON
	// is checked after it.
	if bytes.IndexByte(data, '*') >= 0 {
		if err := Check(data, lim); err != nil {
			return nil, err
		}
	}
	if js, err = sigsyaml.YAMLToJSON(data); err != nil {
		return nil, err
	}
	if err := CheckJSON(js, lim); err != nil {
		return nil, err
	}
	return js, nil
}

// CheckJSON checks a JSON text against lim: its length, and the nesting of its objects and
// arrays. It does not validate the JSON.
func CheckJSON(js []byte, lim Limits) error {
	if len(js) > lim.MaxBytes {
		return &LimitError{Bound: "bytes", Limit: lim.MaxBytes}
	}
	if Depth(js) > lim.MaxDepth {
		return &LimitError{Bound: "depth", Limit: lim.MaxDepth}
	}
	return nil
}

// Depth is how deeply objects and arrays nest in a JSON text (0 for a scalar), skipping
// strings; one pass, no allocation.
func Depth(js []byte) int {
	depth, deepest := 0, 0
	inString := false
	for i := 0; i < len(js); i++ {
		c := js[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > deepest {
				deepest = depth
			}
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// Check parses the first YAML document of data without expanding its aliases and returns a
// *LimitError when its JSON form, aliases expanded, would exceed lim, or the parser's error.
// The size is estimated as JSON would write the tree (quotes around every scalar, brackets,
// colons and commas), which is within a small factor of the real JSON: ToJSON checks the real
// JSON again once converted, so the estimate only has to stop expansion early.
func Check(data []byte, lim Limits) (err error) {
	defer recoverParse(&err)
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	m := measurer{lim: lim, done: map[*yaml.Node]extent{}, open: map[*yaml.Node]bool{}}
	_, err = m.measure(&doc, 0)
	return err
}

// extent is what a node turns into once expanded: its estimated JSON bytes and its height (how
// deeply objects and arrays nest inside it, itself included).
type extent struct{ size, height int }

type measurer struct {
	lim  Limits
	done map[*yaml.Node]extent // anchored nodes already measured
	open map[*yaml.Node]bool   // anchored nodes being measured (an alias to one is recursive)
}

// measure returns the extent of n, found at the given depth (the number of collections around
// it). Each node of the tree is visited once and each alias costs one look-up, so the work is
// linear in the document; any bound exceeded stops the walk at once.
func (m *measurer) measure(n *yaml.Node, depth int) (extent, error) {
	if n.Kind == yaml.AliasNode {
		return m.alias(n, depth)
	}
	anchored := n.Anchor != ""
	if anchored {
		m.open[n] = true
	}
	e, err := m.measureNode(n, depth)
	if err != nil {
		return extent{}, err
	}
	if anchored {
		delete(m.open, n)
		m.done[n] = e
	}
	return e, nil
}

func (m *measurer) measureNode(n *yaml.Node, depth int) (extent, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return extent{size: len("null")}, nil
		}
		return m.measure(n.Content[0], depth)
	case yaml.MappingNode, yaml.SequenceNode:
		if depth+1 > m.lim.MaxDepth {
			return extent{}, &LimitError{Bound: "depth", Limit: m.lim.MaxDepth}
		}
		e := extent{size: 2, height: 1} // the brackets; each member adds a comma or colon
		for _, c := range n.Content {
			ce, err := m.measure(c, depth+1)
			if err != nil {
				return extent{}, err
			}
			e.size += ce.size + 1
			e.height = max(e.height, ce.height+1)
			if e.size > m.lim.MaxBytes {
				return extent{}, &LimitError{Bound: "bytes", Limit: m.lim.MaxBytes}
			}
		}
		return e, nil
	}
	return m.bytes(extent{size: len(n.Value) + 2}) // a scalar, as a quoted string
}

// alias is the extent of the anchored node an alias names: measured once, when the walk met it
// (an anchor always comes before its aliases), so each further alias costs a look-up.
func (m *measurer) alias(n *yaml.Node, depth int) (extent, error) {
	target := n.Alias
	if target == nil || m.open[target] {
		return extent{}, &LimitError{Bound: "recursion"}
	}
	e, ok := m.done[target]
	if !ok {
		var err error
		if e, err = m.measure(target, depth); err != nil {
			return extent{}, err
		}
	}
	if depth+e.height > m.lim.MaxDepth {
		return extent{}, &LimitError{Bound: "depth", Limit: m.lim.MaxDepth}
	}
	return m.bytes(e)
}

func (m *measurer) bytes(e extent) (extent, error) {
	if e.size > m.lim.MaxBytes {
		return extent{}, &LimitError{Bound: "bytes", Limit: m.lim.MaxBytes}
	}
	return e, nil
}

// recoverParse turns a parser's panic into an error: the YAML libraries fixed the panics known to
// their maintainers, and a new one must not take the process down for one document.
func recoverParse(err *error) {
	if recover() != nil {
		*err = errors.New("yaml: the parser failed on this document")
	}
}
