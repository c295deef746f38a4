package document

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// YAML encodes the document as YAML with keys sorted at every level, the way decK and KIC
// print configs, so a dump reads like theirs and diffs cleanly.
//
// The bytes are defined as yaml.v3's (indent 2) for the document's JSON tree. Writing a large
// document through yaml.v3 costs seconds and gigabytes (its emitter keeps every event it has
// written), so a fast emitter (yamlfast.go) writes each top-level key and each item of a
// top-level list, and yaml.v3 writes only the pieces the fast emitter declines, one at a time.
// An item's rendering does not depend on what precedes it (line width is unlimited), so the
// pieces join into the single-encoder output; encode_test.go checks that they do.
//
// Each item is encoded to JSON, parsed and emitted on its own, so that only one item's JSON
// and tree are alive at a time: the whole document's JSON and its tree, held together, were
// most of `kongsync dump`'s peak memory (10k Ingresses: 105 MB live at the end, for a 14 MB
// output). Long lists are emitted in parallel runs, joined in order.
func YAML(d *Document) ([]byte, error) {
	return joined(YAMLPieces(d))
}

// YAMLPieces is YAML in pieces of about runPiece bytes, and their total size, for a writer
// that does not need them joined (net.Buffers): emitting never grows, copies and drops a
// buffer the size of the config.
func YAMLPieces(d *Document) ([][]byte, int, error) {
	fields := emittedFields(d)
	names := &jval{keys: make([]string, len(fields))}
	for i, f := range fields {
		names.keys[i] = f.name
	}
	var pieces [][]byte
	for _, i := range names.sortedKeys() {
		p, err := yamlField(fields[i])
		if err != nil {
			return nil, 0, err
		}
		pieces = append(pieces, p...)
	}
	size := 0
	for _, p := range pieces {
		size += len(p)
	}
	return pieces, size, nil
}

// yamlField is one top-level key of the document and its value.
func yamlField(f emittedField) ([][]byte, error) {
	if f.value.Kind() != reflect.Slice || f.value.Len() == 0 {
		js, err := marshalNoEscape(f.value.Interface())
		if err != nil {
			return nil, fmt.Errorf("encode config as JSON: %w", err)
		}
		v, err := parseJSONTree(js)
		if err != nil {
			return nil, fmt.Errorf("re-read config JSON: %v", err)
		}
		e := &yamlEmitter{}
		return [][]byte{e.out}, e.topLevel(f.name, v)
	}
	head := &yamlEmitter{}
	if err := head.scalarString(f.name, true); err == errSlowPath {
		b, err := yamlSlowList(f)
		return [][]byte{b}, err
	} else if err != nil {
		return nil, err
	}
	head.out = append(head.out, ":\n"...)
	var runs [][][]byte
	err := inRuns(f.value.Len(), func(workers int) { runs = make([][][]byte, workers) }, func(w, from, to int) (err error) {
		runs[w], err = yamlItems(f, from, to)
		return err
	})
	pieces := [][]byte{head.out}
	for _, r := range runs {
		pieces = append(pieces, r...)
	}
	return pieces, err
}

// yamlItems emits items [from, to) of a top-level list, each from its own JSON and tree, into
// pieces of about runPiece bytes.
func yamlItems(f emittedField, from, to int) ([][]byte, error) {
	var pieces [][]byte
	e := &yamlEmitter{out: make([]byte, 0, runPiece+runPiece/4)}
	var js []byte
	var parser jsonParser // one tree at a time: each item's reuses the last one's nodes
	var scratch bytes.Buffer
	enc := json.NewEncoder(&scratch)
	enc.SetEscapeHTML(false)
	for i := from; i < to; i++ {
		var err error
		if js, err = appendItem(js[:0], &scratch, enc, f.value.Index(i).Interface()); err != nil {
			return nil, fmt.Errorf("encode config as JSON: %w", err)
		}
		it, err := parser.parse(js)
		if err != nil {
			return nil, fmt.Errorf("re-read config JSON: %v", err)
		}
		mark := len(e.out)
		e.out = append(e.out, "  - "...)
		err = e.item(it, 2)
		if err == errSlowPath {
			e.out = e.out[:mark]
			err = e.slowChunk(f.name, append(append([]byte("["), it.raw...), ']'), true)
		}
		if err != nil {
			return nil, err
		}
		if len(e.out) >= runPiece && i+1 < to {
			pieces = append(pieces, e.out)
			e.out = make([]byte, 0, runPiece+runPiece/4)
		}
	}
	return append(pieces, e.out), nil
}

// yamlSlowList is a top-level list whose key the fast emitter declines: yaml.v3 writes it,
// one item at a time.
func yamlSlowList(f emittedField) ([]byte, error) {
	e := &yamlEmitter{}
	for i := range f.value.Len() {
		js, err := marshalNoEscape(f.value.Index(i).Interface())
		if err != nil {
			return nil, fmt.Errorf("encode config as JSON: %w", err)
		}
		if err := e.slowChunk(f.name, append(append([]byte("["), js...), ']'), i > 0); err != nil {
			return nil, err
		}
	}
	return e.out, nil
}
