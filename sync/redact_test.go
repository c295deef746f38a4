package sync

import (
	"strings"
	"testing"
)

// Kong's top-level "message" of a 400 renders the whole error tree, uniqueness violations with
// the duplicate value quoted: for a secret field (document.SecretFieldNames) the value must not
// reach the Outcome's message, its Err, logs or Events. Other quoted values stay readable.
func TestKongMessageSecretsRedacted(t *testing.T) {
	body := []byte(`{"code":14,"name":"invalid declarative configuration",
	 "message":"declarative config is invalid: {consumers={{keyauth_credentials={{key=\"uniqueness violation: 'keyauth_credentials' entity with key set to 'sup3r-s3cret' already declared\"}},basicauth_credentials={{password=\"uniqueness violation: 'basicauth_credentials' entity with password set to 'hunter2-pw' already declared\"}}},{username=\"uniqueness violation: 'consumers' entity with username set to 'alice' already declared\"}}}",
	 "flattened_errors":[{"entity_type":"consumer","errors":[{"type":"field","field":"x","messages":["uniqueness violation: 'hmacauth_credentials' entity with secret set to 'hmac-s3cret' already declared"]}]}]}`)
	ents, msg, err := parseConfigError(body)
	if err != nil {
		t.Fatal(err)
	}
	all := msg + " " + ents[0].String() + " " + messageOf(body)
	for _, secret := range []string{"sup3r-s3cret", "hunter2-pw", "hmac-s3cret"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q shown: %s", secret, all)
		}
	}
	if !strings.Contains(msg, "username set to 'alice' already declared") || !strings.Contains(msg, "with key set to '{vault://redacted-value}'") {
		t.Errorf("message = %s", msg)
	}
	if m, ok := jsonMessage(body); !ok || strings.Contains(m, "sup3r-s3cret") {
		t.Errorf("jsonMessage = %q", m)
	}
}
