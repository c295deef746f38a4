package document

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

// EmptyHash is the configuration_hash DB-less Kong reports while it holds no configuration.
const EmptyHash = "00000000000000000000000000000000"

// JSON encodes the document compactly. The bytes are what the sync loop sends as the "config"
// string, so Kong's configuration_hash is Hash of them.
func JSON(d *Document) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("encode config as JSON: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// YAML encodes the document as YAML with keys sorted at every level, the way decK and KIC
// print configs, so a dump reads like theirs and diffs cleanly.
//
// yaml.v3's emitter never drops the events it has written (its queue only grows), which makes
// one large document cost hundreds of megabytes and seconds. So each top-level key, and each
// item of a top-level list, is emitted by its own encoder as a one-key mapping; items after the
// first drop the "key:" line their mapping repeats. The emitter's output for an item does not
// depend on what precedes it (line width is unlimited), so the bytes equal a single encode's.
func YAML(d *Document) ([]byte, error) {
	js, err := JSON(d)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(js, &top); err != nil {
		return nil, fmt.Errorf("re-read config JSON: %w", err)
	}
	keys, err := yamlKeyOrder(top)
	if err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(make([]byte, 0, len(js)*5/4))
	for _, key := range keys {
		if err := yamlTopLevel(out, key, top[key]); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

// yamlTopLevel writes one top-level key of the document, list items one at a time.
func yamlTopLevel(out *bytes.Buffer, key string, raw json.RawMessage) error {
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' {
		return yamlChunk(out, key, raw, false)
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return fmt.Errorf("re-read config JSON: %w", err)
	}
	if len(items) == 0 {
		return yamlChunk(out, key, raw, false)
	}
	for i, item := range items {
		if err := yamlChunk(out, key, append([]byte("["), append(item, ']')...), i > 0); err != nil {
			return err
		}
	}
	return nil
}

// yamlChunk emits {key: value} and appends it to out, without its first line if dropKey.
func yamlChunk(out *bytes.Buffer, key string, value json.RawMessage, dropKey bool) error {
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
	out.Write(b)
	return nil
}

func yamlEncode(tree any) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(tree); err != nil {
		return nil, fmt.Errorf("encode config as YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// yamlKeyOrder returns the top-level keys in the order yaml.v3 sorts mapping keys (not plain
// byte order), found by letting it encode a mapping of those keys.
func yamlKeyOrder(top map[string]json.RawMessage) ([]string, error) {
	probe := make(map[string]int, len(top))
	for k := range top {
		probe[k] = 0
	}
	b, err := yamlEncode(probe)
	if err != nil {
		return nil, err
	}
	var node yaml.Node
	if err := yaml.Unmarshal(b, &node); err != nil {
		return nil, fmt.Errorf("re-read key order: %w", err)
	}
	m := node.Content[0]
	keys := make([]string, 0, len(m.Content)/2)
	for i := 0; i < len(m.Content); i += 2 {
		keys = append(keys, m.Content[i].Value)
	}
	return keys, nil
}

// Hash is the md5 hex digest Kong computes over a config string it receives.
func Hash(configJSON []byte) string {
	sum := md5.Sum(configJSON)
	return hex.EncodeToString(sum[:])
}
