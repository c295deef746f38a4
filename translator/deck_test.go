package translator

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/kong/go-database-reconciler/pkg/dump"
	"github.com/kong/go-database-reconciler/pkg/file"
	"github.com/kong/go-database-reconciler/pkg/state"
	"sigs.k8s.io/yaml"

	"github.com/kongsync/kongsync/document"
)

// deckKongVersion is the Kong version decK validates against: 3.x path and route rules apply.
var deckKongVersion = semver.MustParse("3.9.1")

// validateWithDeck runs decK's offline validation on a YAML document: the file schema, then the
// state build (references, duplicate names and ids, certificate/SNI checks, 3.x route paths),
// with no Kong to talk to.
func validateWithDeck(doc []byte) error {
	doc, err := withoutCustomEntities(doc)
	if err != nil {
		return err
	}
	doc, err = deckMemberships(doc)
	if err != nil {
		return err
	}
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

// withoutCustomEntities drops the top-level lists that are not document.Document's own: custom
// entities (KongCustomEntity), which decK's file format does not have (KIC, too, posts them
// beside its decK content).
func withoutCustomEntities(doc []byte) ([]byte, error) {
	var m map[string]any
	if err := yaml.Unmarshal(doc, &m); err != nil {
		return nil, err
	}
	own := map[string]bool{}
	dt := reflect.TypeFor[document.Document]()
	for i := range dt.NumField() {
		name, _, _ := strings.Cut(dt.Field(i).Tag.Get("json"), ",")
		own[name] = true
	}
	dropped := false
	for k := range m {
		if !own[k] {
			delete(m, k)
			dropped = true
		}
	}
	if !dropped {
		return doc, nil
	}
	return yaml.Marshal(m)
}

// deckMemberships turns DB-less Kong's consumer_group_consumers back into decK's form, each
// consumer's groups listed in it (KIC converts the other way before posting), so that decK
// checks that every membership names a consumer and a consumer group of the document.
func deckMemberships(doc []byte) ([]byte, error) {
	var m map[string]any
	if err := yaml.Unmarshal(doc, &m); err != nil {
		return nil, err
	}
	members, ok := m["consumer_group_consumers"].([]any)
	if !ok {
		return doc, nil
	}
	delete(m, "consumer_group_consumers")
	consumers, _ := m["consumers"].([]any)
	for _, it := range members {
		mem, _ := it.(map[string]any)
		found := false
		for _, c := range consumers {
			if c, _ := c.(map[string]any); c != nil && c["username"] == mem["consumer"] {
				groups, _ := c["groups"].([]any)
				c["groups"] = append(groups, map[string]any{"name": mem["consumer_group"]})
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("consumer_group_consumers: no consumer %v", mem["consumer"])
		}
	}
	return yaml.Marshal(m)
}

// TestValidateWithDeckRejects makes sure the validator used by TestGolden can fail.
func TestValidateWithDeckRejects(t *testing.T) {
	bad := map[string]string{
		"schema":          "_format_version: \"3.0\"\nservices:\n- name: a\n  host: h\n  port: not-a-number\n",
		"duplicate names": "_format_version: \"3.0\"\nservices:\n- name: a\n  host: h\n- name: a\n  host: h\n",
		"duplicate route": "_format_version: \"3.0\"\nservices:\n- name: a\n  host: h\n  routes:\n  - name: r\n    paths: [/]\n- name: b\n  host: h\n  routes:\n  - name: r\n    paths: [/]\n",
		"cert without id": "_format_version: \"3.0\"\ncertificates:\n- cert: a\n  key: b\n  snis:\n  - name: x.com\n",
		"dangling membership": "_format_version: \"3.0\"\nconsumers:\n- username: u\n" +
			"consumer_group_consumers:\n- consumer: u\n  consumer_group: g\n",
	}
	for name, doc := range bad {
		if err := validateWithDeck([]byte(doc)); err == nil {
			t.Errorf("%s: decK accepted an invalid document", name)
		}
	}
	for _, doc := range []string{"_format_version: \"3.0\"\nservices:\n- name: a\n  host: h\n",
		"_format_version: \"3.0\"\nconsumers:\n- username: u\nconsumer_groups:\n- name: g\n" +
			"consumer_group_consumers:\n- consumer: u\n  consumer_group: g\n"} {
		if err := validateWithDeck([]byte(doc)); err != nil {
			t.Errorf("decK rejected a valid document: %v", err)
		}
	}
}
