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
func YAML(d *Document) ([]byte, error) {
	js, err := JSON(d)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(js, &tree); err != nil {
		return nil, fmt.Errorf("re-read config JSON: %w", err)
	}
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

// Hash is the md5 hex digest Kong computes over a config string it receives.
func Hash(configJSON []byte) string {
	sum := md5.Sum(configJSON)
	return hex.EncodeToString(sum[:])
}
