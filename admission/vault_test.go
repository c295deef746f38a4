package admission

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kongsync/kongsync/store"
	"github.com/kongsync/kongsync/translator"
)

const vaults = "configuration.konghq.com/v1alpha1/kongvaults"

// vault is a KongVault's JSON as the API server hands it to the webhook (creationTimestamp set).
func vault(name, class, created, prefix, config string) string {
	ann := ""
	if class != "" {
		ann = `,"annotations":{"kubernetes.io/ingress.class":"` + class + `"}`
	}
	cfg := ""
	if config != "" {
		cfg = `,"config":` + config
	}
	return `{"apiVersion":"configuration.konghq.com/v1alpha1","kind":"KongVault","metadata":{"name":"` + name +
		`","creationTimestamp":"` + created + `"` + ann + `},"spec":{"backend":"env","prefix":"` + prefix + `"` + cfg + `}}`
}

// A second KongVault with a prefix a served vault holds is refused, as KIC's webhook refuses it
// (the oldest holder keeps the prefix); so is one whose config is not an object. Other
// prefixes, vaults of another class and updates of the holder pass.
func TestReviewVaults(t *testing.T) {
	objs, notes, err := store.DecodeManifests("cluster", strings.NewReader(cluster+"---\n"+
		vault("old", "kong", "2024-01-01T00:00:00Z", "shared", `{"prefix":"app_"}`)))
	if err != nil || len(notes) > 0 {
		t.Fatalf("cluster: %v %v", err, notes)
	}
	st, _ := store.Load(objs)
	h := Handler(New(st, translator.DefaultOptions(), func() bool { return true }, nil), logr.Discard(), nil)
	now := "2025-06-01T00:00:00Z"
	for _, tc := range []struct {
		name, object, old string
		op                admissionv1.Operation
		allowed           bool
		message           string
	}{
		{"a second vault with the prefix", vault("new", "kong", now, "shared", ""), "", admissionv1.Create, false,
			`KongVault new: spec.prefix: prefix "shared" is already used by KongVault old`},
		{"another prefix", vault("new", "kong", now, "other", `{"prefix":"x_"}`), "", admissionv1.Create, true, ""},
		{"a config that is not an object", vault("new", "kong", now, "other", `[1]`), "", admissionv1.Create, false,
			"KongVault new: spec.config: config must be a JSON object"},
		{"a prefix Kong refuses", vault("new", "kong", now, "Other", ""), "", admissionv1.Create, false,
			`KongVault new: spec.prefix: prefix "Other" is not one Kong accepts`},
		{"another class", vault("new", "nginx", now, "shared", ""), "", admissionv1.Create, true, ""},
		{"the holder updated", vault("old", "kong", "2024-01-01T00:00:00Z", "shared", `{"prefix":"b_"}`),
			vault("old", "kong", "2024-01-01T00:00:00Z", "shared", `{"prefix":"app_"}`), admissionv1.Update, true, ""},
	} {
		code, resp, body := review(t, h, tc.op, vaults, tc.object, tc.old)
		if code != http.StatusOK {
			t.Errorf("%s: HTTP %d %s", tc.name, code, body)
			continue
		}
		msg := ""
		if resp.Result != nil {
			msg = resp.Result.Message
		}
		if resp.Allowed != tc.allowed || !strings.Contains(msg, tc.message) {
			t.Errorf("%s: allowed %v (want %v), message %q (want %q in it)", tc.name, resp.Allowed, tc.allowed, msg, tc.message)
		}
	}
}
