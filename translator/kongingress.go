package translator

import (
	"strings"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	"github.com/kongsync/kongsync/store"
)

// KongIngress (configuration.konghq.com/v1, deprecated) reaches a Kong upstream only through
// konghq.com/override on the Service behind it, as in KIC v3.5.13: only the `upstream` section
// is applied (KIC 3.0 dropped `proxy` and `route`), over the upstream's defaults and under the
// Service's konghq.com/host-header and KongUpstreamPolicy, which are applied after it. The
// upstream piece looks the KongIngress up through the recording view, so that a KongIngress
// change rebuilds exactly the upstreams of the Services that name it.

// kongIngressFor looks up the KongIngress svc names in konghq.com/override (nil when it names
// none or it is missing) and reports KIC's deprecation messages on the Service.
func (t *translation) kongIngressFor(svc *corev1.Service) *configurationv1.KongIngress {
	name := svc.Annotations[annOverride]
	if name == "" {
		return nil
	}
	ref, field := serviceRef(svc), annotationField(annOverride)
	t.deprecated(ref, field, "KongIngress is deprecated (as in KIC 3.x): migrate to konghq.com/upstream-policy and a KongUpstreamPolicy")
	if _, both := svc.Annotations[annUpstreamPolicy]; both {
		t.problem(ref, field, "konghq.com/upstream-policy is set too: use only konghq.com/upstream-policy; "+
			"its KongUpstreamPolicy's settings take precedence over the KongIngress's")
	}
	ki, ok := t.snap.KongIngress(svc.Namespace, name)
	if !ok {
		t.missingRef(ref, field, "KongIngress %s/%s not found; upstream keeps its defaults", svc.Namespace, name)
		return nil
	}
	return ki
}

// applyKongIngress sets on u every field the KongIngress's upstream section sets (KIC's
// overrideByKongIngress). Sections KIC 3.x ignores are reported on the KongIngress; an upstream
// section Kong would refuse (only manifests can hold one: the CRD's schema checks most of it)
// is reported field by field and not applied at all.
func (t *translation) applyKongIngress(u *kong.Upstream, ki *configurationv1.KongIngress) {
	if ki == nil {
		return
	}
	ref := store.Ref{Kind: store.KindKongIngress, Namespace: ki.Namespace, Name: ki.Name}
	if len(ki.Proxy) > 0 && string(ki.Proxy) != "null" {
		t.deprecated(ref, "proxy", "no longer supported since KIC 3.0: use the Service's konghq.com/ annotations; ignored")
	}
	if len(ki.Route) > 0 && string(ki.Route) != "null" {
		t.deprecated(ref, "route", "no longer supported since KIC 3.0: use the Ingress's konghq.com/ annotations; ignored")
	}
	k := ki.Upstream
	if k == nil {
		return
	}
	if errs := validateKongIngressUpstream(k); len(errs) > 0 {
		for _, e := range errs {
			t.problem(ref, e.field, "%s; KongIngress upstream not applied", e.reason)
		}
		return
	}
	set(&u.HostHeader, k.HostHeader)
	set(&u.Algorithm, k.Algorithm)
	set(&u.Slots, k.Slots)
	if k.Healthchecks != nil {
		u.Healthchecks = k.Healthchecks.DeepCopy()
	}
	set(&u.HashOn, k.HashOn)
	set(&u.HashFallback, k.HashFallback)
	set(&u.HashOnHeader, k.HashOnHeader)
	set(&u.HashFallbackHeader, k.HashFallbackHeader)
	set(&u.HashOnCookie, k.HashOnCookie)
	set(&u.HashOnCookiePath, k.HashOnCookiePath)
	set(&u.HashOnQueryArg, k.HashOnQueryArg)
	set(&u.HashFallbackQueryArg, k.HashFallbackQueryArg)
	set(&u.HashOnURICapture, k.HashOnURICapture)
	set(&u.HashFallbackURICapture, k.HashFallbackURICapture)
}

// kongIngressAlgorithms are the algorithms the KongIngress CRD allows.
var kongIngressAlgorithms = []string{"round-robin", "consistent-hashing", "least-connections", "latency"}

// kongHashInputs are Kong's values of hash_on and hash_fallback.
var kongHashInputs = []string{"none", "consumer", "ip", "header", "cookie", "path", "query_arg", "uri_capture"}

// validateKongIngressUpstream checks what the CRD's schema checks (algorithm, slots minimum,
// health-check minimums and http_path) and what Kong's upstream schema refuses outright (slots
// over 65536, unknown hash inputs, a parameterised hash input without its parameter).
func validateKongIngressUpstream(k *configurationv1.KongIngressUpstream) []fieldErr {
	c := &policyCheck{}
	c.oneOf("upstream.algorithm", k.Algorithm, kongIngressAlgorithms...)
	if k.Slots != nil && (*k.Slots < 10 || *k.Slots > 65536) {
		c.fail("upstream.slots", "must be between 10 and 65536")
	}
	c.oneOf("upstream.hash_on", k.HashOn, kongHashInputs...)
	c.oneOf("upstream.hash_fallback", k.HashFallback, kongHashInputs...)
	needs := func(field string, input *string, want string, param *string, paramField string) {
		if input != nil && *input == want && (param == nil || *param == "") {
			c.fail(paramField, field+" is "+want+", which needs "+paramField[len("upstream."):])
		}
	}
	needs("hash_on", k.HashOn, "header", k.HashOnHeader, "upstream.hash_on_header")
	needs("hash_on", k.HashOn, "cookie", k.HashOnCookie, "upstream.hash_on_cookie")
	needs("hash_on", k.HashOn, "query_arg", k.HashOnQueryArg, "upstream.hash_on_query_arg")
	needs("hash_on", k.HashOn, "uri_capture", k.HashOnURICapture, "upstream.hash_on_uri_capture")
	needs("hash_fallback", k.HashFallback, "header", k.HashFallbackHeader, "upstream.hash_fallback_header")
	needs("hash_fallback", k.HashFallback, "cookie", k.HashOnCookie, "upstream.hash_on_cookie")
	needs("hash_fallback", k.HashFallback, "query_arg", k.HashFallbackQueryArg, "upstream.hash_fallback_query_arg")
	needs("hash_fallback", k.HashFallback, "uri_capture", k.HashFallbackURICapture, "upstream.hash_fallback_uri_capture")
	if hc := k.Healthchecks; hc != nil && hc.Active != nil {
		if p := hc.Active.HTTPPath; p != nil && !strings.HasPrefix(*p, "/") {
			c.fail("upstream.healthchecks.active.http_path", "must start with /")
		}
		if n := hc.Active.Concurrency; n != nil && *n < 1 {
			c.fail("upstream.healthchecks.active.concurrency", "must be at least 1")
		}
	}
	return c.errs
}

// overrideOnGatewayBackend reports konghq.com/override on a Service behind a Gateway API
// route: KIC applies KongIngress only to the upstreams of Ingress-made Kong services.
func (t *translation) overrideOnGatewayBackend(svcs []*corev1.Service) {
	for _, svc := range svcs {
		if name := svc.Annotations[annOverride]; name != "" {
			t.problem(serviceRef(svc), annotationField(annOverride),
				"KongIngress %q does not apply to the upstreams of Gateway API routes (as in KIC); use konghq.com/upstream-policy", name)
		}
	}
}
