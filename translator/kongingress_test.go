package translator

import (
	"strings"
	"testing"

	"github.com/kong/go-kong/kong"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
)

func TestValidateKongIngressUpstream(t *testing.T) {
	for _, c := range []struct {
		name string
		u    configurationv1.KongIngressUpstream
		want []string // fields, in order
	}{
		{"empty", configurationv1.KongIngressUpstream{}, nil},
		{"valid", configurationv1.KongIngressUpstream{Algorithm: kong.String("latency"), Slots: kong.Int(10),
			HashOn: kong.String("header"), HashOnHeader: kong.String("x"), HashFallback: kong.String("cookie"), HashOnCookie: kong.String("c")}, nil},
		{"algorithm", configurationv1.KongIngressUpstream{Algorithm: kong.String("sticky-sessions")}, []string{"upstream.algorithm"}},
		{"slots low", configurationv1.KongIngressUpstream{Slots: kong.Int(9)}, []string{"upstream.slots"}},
		{"slots high", configurationv1.KongIngressUpstream{Slots: kong.Int(65537)}, []string{"upstream.slots"}},
		{"hash input", configurationv1.KongIngressUpstream{HashOn: kong.String("body")}, []string{"upstream.hash_on"}},
		{"hash params", configurationv1.KongIngressUpstream{HashOn: kong.String("query_arg"), HashFallback: kong.String("uri_capture")},
			[]string{"upstream.hash_on_query_arg", "upstream.hash_fallback_uri_capture"}},
		{"fallback cookie", configurationv1.KongIngressUpstream{HashFallback: kong.String("cookie")}, []string{"upstream.hash_on_cookie"}},
		{"health", configurationv1.KongIngressUpstream{Healthchecks: &kong.Healthcheck{Active: &kong.ActiveHealthcheck{
			HTTPPath: kong.String("x"), Concurrency: kong.Int(0)}}},
			[]string{"upstream.healthchecks.active.http_path", "upstream.healthchecks.active.concurrency"}},
	} {
		var got []string
		for _, e := range validateKongIngressUpstream(&c.u) {
			got = append(got, e.field)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
