package sync

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

// EntityError is one entry of Kong's flattened_errors: an entity and what is wrong with it.
type EntityError struct {
	Type string   `json:"entity_type"`
	ID   string   `json:"entity_id,omitempty"`
	Name string   `json:"entity_name,omitempty"`
	Tags []string `json:"entity_tags,omitempty"`
	// Errors are the entity's field and entity-level errors.
	Errors []FieldError `json:"errors,omitempty"`
	// Parents holds the foreign keys Kong put on the entity (e.g. "service" → id for a route
	// nested in a service), used to find an owner when the entity carries no k8s-* tags.
	Parents map[string]string `json:"-"`
	// digest is the digest of an entity without tags (entityDigest), to find the custom entity
	// Kong rejected (kongerror_custom.go); the entity itself is not kept.
	digest string
}

// FieldError is one error of an entity: Type "field" (with Field) or "entity".
type FieldError struct {
	Type    string `json:"type"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message,omitempty"`
	// Messages holds per-element errors of a multi-value field (older Kong versions).
	Messages []string `json:"messages,omitempty"`
}

// String renders the entity and its errors on one line, without entity contents.
func (e EntityError) String() string {
	var b strings.Builder
	b.WriteString(e.Type)
	if e.Name != "" {
		b.WriteString(" " + e.Name)
	} else if e.ID != "" {
		b.WriteString(" " + e.ID)
	}
	for i, fe := range e.Errors {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if fe.Field != "" {
			b.WriteString(fe.Field + ": ")
		}
		b.WriteString(fe.Message)
		if len(fe.Messages) > 0 {
			b.WriteString(strings.Join(fe.Messages, ", "))
		}
	}
	return b.String()
}

// configError is the body of a 400 from POST /config. Only what is needed is decoded: the
// entities themselves are read for their foreign keys only, never kept (they may hold keys).
type configError struct {
	Code      int    `json:"code"`
	Name      string `json:"name"`
	Message   string `json:"message"`
	Flattened []struct {
		EntityError
		Entity map[string]json.RawMessage `json:"entity"`
	} `json:"flattened_errors"`
}

// parseConfigError decodes a 400 body into entity errors and Kong's message.
func parseConfigError(body []byte) ([]EntityError, string, error) {
	var ce configError
	if err := json.Unmarshal(body, &ce); err != nil {
		return nil, "", fmt.Errorf("decode Kong's 400 response: %w", err)
	}
	out := make([]EntityError, 0, len(ce.Flattened))
	for _, f := range ce.Flattened {
		ee := f.EntityError
		if len(ee.Tags) == 0 && len(f.Entity) > 0 {
			if raw, err := json.Marshal(f.Entity); err == nil {
				ee.digest = entityDigest(raw)
			}
		}
		redactCredentialValues(&ee)
		for _, fk := range []string{"service", "route", "consumer", "upstream", "certificate"} {
			raw, ok := f.Entity[fk]
			if !ok {
				continue
			}
			var ref struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(raw, &ref) == nil && ref.ID != "" {
				if ee.Parents == nil {
					ee.Parents = map[string]string{}
				}
				ee.Parents[fk] = ref.ID
			}
		}
		out = append(out, ee)
	}
	return out, RedactMessage(ce.Message), nil
}

// ownerOf finds the Kubernetes object behind a rejected entity: its own tags, else, for a custom
// entity, the KongCustomEntity that made it, else the tags the same entity (by id) carries in
// the document sent, else those of its parent entities.
func ownerOf(ee EntityError, doc *document.Document) (store.Ref, bool) {
	if ref, ok := translator.RefFromTags(ee.Tags); ok {
		return ref, true
	}
	if ref, ok, custom := customOwner(ee, doc); custom {
		return ref, ok // never its parents': the Kong service a custom entity is attached to is not at fault
	}
	ids := []string{ee.ID}
	keys := make([]string, 0, len(ee.Parents))
	for k := range ee.Parents {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ids = append(ids, ee.Parents[k])
	}
	index := tagsByID(doc)
	for _, id := range ids {
		if id == "" {
			continue
		}
		if ref, ok := translator.RefFromTags(index[id]); ok {
			return ref, true
		}
	}
	return store.Ref{}, false
}

// tagsByID indexes every entity of a document that has an id by that id.
func tagsByID(d *document.Document) map[string][]string {
	m := map[string][]string{}
	if d == nil {
		return m
	}
	add := func(id *string, tags []*string) {
		if id == nil || *id == "" {
			return
		}
		ts := make([]string, 0, len(tags))
		for _, t := range tags {
			if t != nil {
				ts = append(ts, *t)
			}
		}
		m[*id] = ts
	}
	for _, s := range d.Services {
		add(s.ID, s.Tags)
		for _, r := range s.Routes {
			add(r.ID, r.Tags)
			for _, p := range r.Plugins {
				add(p.ID, p.Tags)
			}
		}
		for _, p := range s.Plugins {
			add(p.ID, p.Tags)
		}
	}
	for _, u := range d.Upstreams {
		add(u.ID, u.Tags)
		for _, t := range u.Targets {
			add(t.ID, t.Tags)
		}
	}
	for _, c := range d.Certificates {
		add(c.ID, c.Tags)
	}
	for _, c := range d.CACertificates {
		add(c.ID, c.Tags)
	}
	for _, c := range d.Consumers {
		add(c.ID, c.Tags)
		for _, p := range c.Plugins {
			add(p.ID, p.Tags)
		}
	}
	for _, p := range d.Plugins {
		add(p.ID, p.Tags)
	}
	return m
}

// uniquenessValue matches the value Kong quotes in a uniqueness violation.
var uniquenessValue = regexp.MustCompile(`(set to ')(.*)(' already declared)`)

// redactCredentialValues hides the values Kong quotes in errors about credentials (a key-auth
// key, a JWT or HMAC secret: of a credential, every quoted value), and secret fields' values in
// any other entity's errors: these messages end up in logs and Events.
func redactCredentialValues(ee *EntityError) {
	redact := RedactMessage
	if strings.HasSuffix(ee.Type, "_credential") || ee.Type == "jwt_secret" {
		redact = func(m string) string { return uniquenessValue.ReplaceAllString(m, "${1}[redacted]${3}") }
	}
	for i := range ee.Errors {
		ee.Errors[i].Message = redact(ee.Errors[i].Message)
		for j, m := range ee.Errors[i].Messages {
			ee.Errors[i].Messages[j] = redact(m)
		}
	}
}

// quotedSecret matches a secret value Kong quotes in a uniqueness violation, for any field name
// document.SecretFieldNames lists.
var quotedSecret = regexp.MustCompile(`(with (?:` + strings.Join(document.SecretFieldNames(), "|") + `) set to ')(.*?)(' already declared)`)

// RedactMessage hides the secrets Kong's messages quote. Kong's top-level "message" of a 400
// renders the whole error tree, uniqueness violations with their values included, and it
// reaches logs and the Err of an Outcome.
func RedactMessage(s string) string {
	return quotedSecret.ReplaceAllString(s, "${1}"+document.RedactedValue+"${3}")
}

// RedactErrorBody returns Kong's answer to a refused POST /config with the secrets it echoes
// replaced by document.RedactedValue: the entities of flattened_errors carry certificate keys
// and credentials as they were sent, and uniqueness messages quote duplicate keys. A body that
// is not JSON (nginx's HTML 413) is returned as it is.
func RedactErrorBody(body []byte) []byte {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return body
	}
	redactSecrets(v, "", false)
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

// redactSecrets walks a decoded JSON value; kind is the entity type the value is (from its
// entity_type or the key it is listed under), "" when unknown. Under "fields" (Kong's nested
// errors) values are error messages, not entity fields: only their quoted values are hidden.
func redactSecrets(v any, kind string, messages bool) {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			redactSecrets(e, kind, messages)
		}
	case map[string]any:
		if et, ok := t["entity_type"].(string); ok {
			if ent, ok := t["entity"].(map[string]any); ok {
				redactFields(ent, et)
			}
		}
		if !messages {
			redactFields(t, kind)
		}
		for k, e := range t {
			if s, ok := e.(string); ok {
				t[k] = RedactMessage(s)
				continue
			}
			redactSecrets(e, k, messages || k == "fields")
		}
	}
}

func redactFields(m map[string]any, kind string) {
	for _, f := range document.SecretFields(kind) {
		if _, ok := m[f].(string); ok {
			m[f] = document.RedactedValue
		}
	}
}
