package document

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// EmptyHash is the configuration_hash DB-less Kong reports while it holds no configuration.
const EmptyHash = "00000000000000000000000000000000"

// JSON encodes the document compactly. The bytes are what the sync loop sends as the "config"
// string, so Kong's configuration_hash is Hash of them.
//
// The bytes are encoding/json's for the whole document (HTML left unescaped), except that the
// characters YAML readers refuse or fold inside a quoted string (yamlUnsafe: DEL, C1 controls,
// U+FFFE, U+FFFF) are written as \u escapes, so that YAML tools read the JSON as Kong does. To use every CPU
// and to avoid growing one buffer through many doublings, each top-level list is split into
// contiguous runs encoded concurrently into their own buffers, then joined in order; an item's
// encoding does not depend on its neighbours, so the result is the same.
func JSON(d *Document) ([]byte, error) {
	return joined(jsonPieces(d))
}

// joined joins pieces of a known total size into one buffer.
func joined(pieces [][]byte, size int, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, size)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out, nil
}

// EncodeConfig is JSON as a hashed Config, never joined into one buffer: what the sync loop
// posts, without the copy of the whole config that JSON's result is. The md5 runs while the
// items are encoded (encodePieces).
func EncodeConfig(d *Document) (*Config, error) {
	h := md5.New()
	pieces, size, err := encodePieces(d, h)
	if err != nil {
		return nil, err
	}
	return hashedConfig(&Config{pieces: pieces, size: size, extra: -1}, hex.EncodeToString(h.Sum(nil))), nil
}

// jsonPieces returns the pieces of JSON(d) and their total size.
func jsonPieces(d *Document) ([][]byte, int, error) { return encodePieces(d, nil) }

// emittedField is a Document field encoding/json writes: its index, JSON name and value.
type emittedField struct {
	index int
	name  string
	value reflect.Value
}

// emittedFields lists the Document's fields in encoding/json's order, leaving out skipped ones
// and empty lists marked omitempty, with the custom entity lists at their place in key order.
func emittedFields(d *Document) []emittedField {
	return withCustom(d, structFields(d))
}

// structFields are the Document's own fields emittedFields lists.
func structFields(d *Document) []emittedField {
	v := reflect.ValueOf(d).Elem()
	var out []emittedField
	for i := range v.NumField() {
		name, omitEmpty := jsonName(v.Type().Field(i))
		f := v.Field(i)
		if name == "" || omitEmpty && f.Kind() == reflect.Slice && f.Len() == 0 {
			continue
		}
		out = append(out, emittedField{index: i, name: name, value: f})
	}
	return out
}

// jsonName reads a field's encoding/json name and omitempty flag ("" for skipped fields).
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" || !f.IsExported() {
		return "", false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, strings.Contains(","+opts+",", ",omitempty,")
}

// inRuns splits n items into contiguous runs, one per CPU (at least 64 items each), and calls
// run for each concurrently, after setup learned how many runs there are.
func inRuns(n int, setup func(workers int), run func(w, from, to int) error) error {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	if setup != nil {
		setup(workers)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { // a worker goroutine's panic would end the process: make it an error
				if v := recover(); v != nil {
					errs[w] = fmt.Errorf("items %d to %d: panic: %v", w*n/workers, (w+1)*n/workers-1, v)
				}
			}()
			errs[w] = run(w, w*n/workers, (w+1)*n/workers)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// appendItem is encodeItem appending to a byte slice; scratch and enc (which writes to
// scratch) serve the items encoding/json encodes.
func appendItem(dst []byte, scratch *bytes.Buffer, enc *json.Encoder, item any) ([]byte, error) {
	if b, ok, plain, err := appendFastPlain(dst, item); ok {
		if !plain && yamlUnsafe(b[len(dst):]) >= 0 {
			b = append(b[:len(dst)], appendYAMLSafe(nil, b[len(dst):])...)
		}
		return b, err
	}
	scratch.Reset()
	if err := encodeItem(scratch, enc, item); err != nil {
		return dst, err
	}
	return append(dst, scratch.Bytes()...), nil
}

// encodeItem appends one list item's JSON (encodeItemRaw's) with what YAML readers refuse raw
// escaped (appendYAMLSafe).
func encodeItem(buf *bytes.Buffer, enc *json.Encoder, item any) error {
	start := buf.Len()
	err := encodeItemRaw(buf, enc, item)
	if tail := buf.Bytes()[start:]; yamlUnsafe(tail) >= 0 {
		safe := appendYAMLSafe(nil, tail)
		buf.Truncate(start)
		buf.Write(safe)
	}
	return err
}

// encodeItemRaw appends one list item's JSON: services and upstreams by appendFast, other items
// by encoding/json. Items with their own MarshalJSON are
// appended as it returns them: encoding/json would only copy them through its compactor, and
// this package's MarshalJSON methods return compact JSON (TestJSONEqualsWholeEncode checks).
func encodeItemRaw(buf *bytes.Buffer, enc *json.Encoder, item any) error {
	if b, ok, err := appendFast(buf.AvailableBuffer(), item); ok {
		buf.Write(b)
		return err
	}
	if m, ok := item.(json.Marshaler); ok && !reflect.ValueOf(item).IsNil() {
		b, err := m.MarshalJSON()
		if err != nil {
			return err
		}
		buf.Write(b)
		return nil
	}
	if err := enc.Encode(item); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // the newline Encode wrote
	return nil
}

// runPiece is the size of the buffers list items are encoded into.
const runPiece = 64 << 10

// topLevel writes one top-level key, falling back to yaml.v3 per list item or for the key.
func (e *yamlEmitter) topLevel(key string, v *jval) error {
	mark := len(e.out)
	if v.kind != 'a' || len(v.items) == 0 {
		err := e.scalarString(key, true)
		if err == nil {
			err = e.mappingValue(v, 0)
		}
		if err == errSlowPath {
			e.out = e.out[:mark]
			return e.slowChunk(key, v.raw, false)
		}
		return err
	}
	if err := e.scalarString(key, true); err == errSlowPath {
		e.out = e.out[:mark]
		return e.slowList(key, v.items)
	}
	e.out = append(e.out, ":\n"...)
	for _, it := range v.items {
		mark := len(e.out)
		e.out = append(e.out, "  - "...)
		err := e.item(it, 2)
		if err == errSlowPath {
			e.out = e.out[:mark]
			err = e.slowChunk(key, append(append([]byte("["), it.raw...), ']'), true)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *yamlEmitter) slowList(key string, items []*jval) error {
	for i, it := range items {
		if err := e.slowChunk(key, append(append([]byte("["), it.raw...), ']'), i > 0); err != nil {
			return err
		}
	}
	return nil
}

// slowChunk has yaml.v3 emit {key: value} and appends it, without its first line if dropKey.
func (e *yamlEmitter) slowChunk(key string, value []byte, dropKey bool) error {
	var tree any
	if err := json.Unmarshal(value, &tree); err != nil {
		return fmt.Errorf("re-read config JSON: %w", err)
	}
	b, err := yamlEncode(map[string]any{key: tree})
	if err != nil {
		return err
	}
	if dropKey {
		b = b[bytes.IndexByte(b, '\n')+1:]
	}
	e.out = append(e.out, b...)
	return nil
}

// yamlEncode is yaml.v3's encoding of a JSON tree (indent 2), with the strings it would write
// in a way YAML readers misread double-quoted (quoteMisread), and integral numbers that a
// float64 holds exactly written as integers (exactInts): yaml.v3 writes a float64 of seven
// digits or more in exponent form (a route priority, 57178899677194, as 5.7178899677194e+13),
// where decK and KIC write the integer.
func yamlEncode(tree any) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	tree, _ = quoteMisread(tree)
	if err := enc.Encode(exactInts(tree)); err != nil {
		return nil, fmt.Errorf("encode config as YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Hash is the md5 hex digest Kong computes over a config string it receives.
func Hash(configJSON []byte) string {
	sum := md5.Sum(configJSON)
	return hex.EncodeToString(sum[:])
}

// exactInt is f as an integer, when f is one that float64 holds exactly (|f| < 2^53).
func exactInt(f float64) (int64, bool) {
	if f != math.Trunc(f) || math.Abs(f) >= 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// exactInts returns a decoded JSON tree with its exactInt numbers as int64, modifying maps
// and lists in place (the tree is the caller's own copy).
func exactInts(tree any) any {
	switch v := tree.(type) {
	case float64:
		if n, ok := exactInt(v); ok {
			return n
		}
	case map[string]any:
		for k, x := range v {
			v[k] = exactInts(x)
		}
	case []any:
		for i, x := range v {
			v[i] = exactInts(x)
		}
	}
	return tree
}
