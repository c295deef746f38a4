package translator

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/kong/go-database-reconciler/pkg/dump"
	"github.com/kong/go-database-reconciler/pkg/file"
	"github.com/kong/go-database-reconciler/pkg/state"
)

// deckKongVersion is the Kong version decK validates against: 3.x path and route rules apply.
var deckKongVersion = semver.MustParse("3.9.1")

// validateWithDeck runs decK's offline validation on a YAML document: the file schema, then the
// state build (references, duplicate names and ids, certificate/SNI checks, 3.x route paths),
// with no Kong to talk to.
func validateWithDeck(doc []byte) error {
	content, err := file.GetContentFromReader(bytes.NewReader(doc), file.EnvVarsSkip)
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	current, err := state.NewKongState()
	if err != nil {
		return err
	}
	raw, err := file.Get(context.Background(), content,
		file.RenderConfig{CurrentState: current, KongVersion: deckKongVersion}, dump.Config{}, nil)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	target, err := state.Get(raw)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	_ = target
	return nil
}

// TestValidateWithDeckRejects makes sure the validator used by TestGolden can fail.
func TestValidateWithDeckRejects(t *testing.T) {
	bad := map[string]string{
		"schema":          "_format_version: \"3.0\"\nservices:\n- name: a\n  host: h\n  port: not-a-number\n",
		"duplicate names": "_format_version: \"3.0\"\nservices:\n- name: a\n  host: h\n- name: a\n  host: h\n",
		"duplicate route": "_format_version: \"3.0\"\nservices:\n- name: a\n  host: h\n  routes:\n  - name: r\n    paths: [/]\n- name: b\n  host: h\n  routes:\n  - name: r\n    paths: [/]\n",
		"cert without id": "_format_version: \"3.0\"\ncertificates:\n- cert: a\n  key: b\n  snis:\n  - name: x.com\n",
	}
	for name, doc := range bad {
		if err := validateWithDeck([]byte(doc)); err == nil {
			t.Errorf("%s: decK accepted an invalid document", name)
		}
	}
	if err := validateWithDeck([]byte("_format_version: \"3.0\"\nservices:\n- name: a\n  host: h\n")); err != nil {
		t.Errorf("decK rejected a valid document: %v", err)
	}
}
