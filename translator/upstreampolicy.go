package translator

import (
	"slices"
	"strconv"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"

	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// policyRead is what looking up a Service's KongUpstreamPolicy found: the Cache compares it
// on reuse (the same pointer, or still missing, means the same upstream).
type policyRead struct {
	named  bool                    // the Service carries konghq.com/upstream-policy
	policy *kup.KongUpstreamPolicy // as found; nil when missing
}

// upstreamPolicy looks up the KongUpstreamPolicy a Service names, in the Service's namespace,
// as KIC does for every Kong upstream of the Service. A missing policy is a problem on the
// Service; the upstream keeps its defaults (KIC reports the failed fetch and applies nothing).
func (t *translation) upstreamPolicy(svc *corev1.Service) policyRead {
	name, ok := svc.Annotations[annUpstreamPolicy]
	if !ok {
		return policyRead{}
	}
	p, found := t.snap.KongUpstreamPolicy(svc.Namespace, name)
	if !found {
		t.missingRef(serviceRef(svc), annotationField(annUpstreamPolicy),
			"KongUpstreamPolicy %s/%s not found; upstream keeps its defaults", svc.Namespace, name)
		return policyRead{named: true}
	}
	return policyRead{named: true, policy: p}
}

// policyUnchanged reports whether svc's policy is still what r found.
func (t *translation) policyUnchanged(svc *corev1.Service, r policyRead) bool {
	if !r.named {
		return true // the Service (same pointer) names none
	}
	p, _ := t.snap.KongUpstreamPolicy(svc.Namespace, svc.Annotations[annUpstreamPolicy])
	return p == r.policy
}

// applyUpstreamPolicy sets on u every field the policy sets, KIC's field mapping: unset fields
// leave u's values. An invalid policy (values its CRD's schema rejects; only manifests can hold
// one) is reported field by field on the policy and not applied at all. A policy using a
// feature the target Kong lacks (Gates) is not applied either, with a problem on the Services
// svcs whose upstream it is, as KIC reports it.
func (t *translation) applyUpstreamPolicy(u *kong.Upstream, p *kup.KongUpstreamPolicy, svcs []*corev1.Service) {
	if p == nil {
		return
	}
	if errs := validatePolicy(&p.Spec); len(errs) > 0 {
		ref := store.Ref{Kind: store.KindKongUpstreamPolicy, Namespace: p.Namespace, Name: p.Name}
		for _, e := range errs {
			t.problem(ref, e.field, "%s; policy not applied", e.reason)
		}
		return
	}
	if !t.policySupported(p, svcs) {
		return
	}
	s := &p.Spec
	set(&u.Algorithm, s.Algorithm)
	set(&u.Slots, s.Slots)
	if s.Healthchecks != nil {
		u.Healthchecks = healthchecks(s.Healthchecks)
	}
	on, fb := s.HashOn, s.HashOnFallback
	set(&u.HashOn, hashInput(on))
	set(&u.HashFallback, hashInput(fb))
	if on != nil {
		set(&u.HashOnHeader, on.Header)
		set(&u.HashOnQueryArg, on.QueryArg)
		set(&u.HashOnURICapture, on.URICapture)
	}
	if fb != nil {
		set(&u.HashFallbackHeader, fb.Header)
		set(&u.HashFallbackQueryArg, fb.QueryArg)
		set(&u.HashFallbackURICapture, fb.URICapture)
	}
	// KIC takes hash_on_cookie(_path) from hashOn, else from hashOnFallback.
	for _, h := range []*kup.KongUpstreamHash{fb, on} {
		if h != nil {
			set(&u.HashOnCookie, h.Cookie)
			set(&u.HashOnCookiePath, h.CookiePath)
		}
	}
	if ss := s.StickySessions; ss != nil {
		u.StickySessionsCookie = kong.String(ss.Cookie)
		// The CRD defaults cookiePath to "/": objects from the API server always have it.
		u.StickySessionsCookiePath = kong.String("/")
		set(&u.StickySessionsCookiePath, ss.CookiePath)
	}
}

// policySupported reports whether the target Kong has what p uses; if not, each Service in svcs
// gets a problem naming the policy, its field and the versions (KIC's check in
// kongstate.FillUpstreamOverrides, which skips the whole policy: Kong before 3.11 would refuse
// the sticky_sessions_cookie fields too).
func (t *translation) policySupported(p *kup.KongUpstreamPolicy, svcs []*corev1.Service) bool {
	if p.Spec.Algorithm == nil || *p.Spec.Algorithm != "sticky-sessions" || t.has(GateStickySessions) {
		return true
	}
	for _, svc := range svcs {
		t.problem(serviceRef(svc), annotationField(annUpstreamPolicy),
			"KongUpstreamPolicy %s/%s: spec.algorithm %q needs Kong %s or later (translating for Kong %s); policy not applied, upstream keeps its defaults",
			p.Namespace, p.Name, *p.Spec.Algorithm, GateStickySessions.Since, t.opts.KongVersion)
	}
	return false
}

// set overwrites *dst with a copy of v when v is set.
func set[T any](dst **T, v *T) {
	if v != nil {
		c := *v
		*dst = &c
	}
}

// Kong's names of the parameterised hash inputs.
const (
	hashHeader     = "header"
	hashCookie     = "cookie"
	hashQueryArg   = "query_arg"
	hashURICapture = "uri_capture"
)

// hashInput is Kong's hash_on (or hash_fallback) value for h; nil when h sets nothing.
func hashInput(h *kup.KongUpstreamHash) *string {
	if h == nil {
		return nil
	}
	switch {
	case h.Input != nil:
		return h.Input
	case h.Header != nil:
		return kong.String(hashHeader)
	case h.Cookie != nil:
		return kong.String(hashCookie)
	case h.QueryArg != nil:
		return kong.String(hashQueryArg)
	case h.URICapture != nil:
		return kong.String(hashURICapture)
	}
	return nil
}

func healthchecks(h *kup.KongUpstreamHealthcheck) *kong.Healthcheck {
	out := &kong.Healthcheck{}
	if h.Threshold != nil {
		out.Threshold = kong.Float64(float64(*h.Threshold))
	}
	if a := h.Active; a != nil {
		out.Active = &kong.ActiveHealthcheck{
			Concurrency: a.Concurrency, HTTPPath: a.HTTPPath, HTTPSSni: a.HTTPSSNI,
			HTTPSVerifyCertificate: a.HTTPSVerifyCertificate, Type: a.Type, Timeout: a.Timeout, Headers: a.Headers,
			Healthy: healthy(a.Healthy), Unhealthy: unhealthy(a.Unhealthy),
		}
	}
	if p := h.Passive; p != nil {
		out.Passive = &kong.PassiveHealthcheck{Type: p.Type, Healthy: healthy(p.Healthy), Unhealthy: unhealthy(p.Unhealthy)}
	}
	return out
}

func healthy(h *kup.KongUpstreamHealthcheckHealthy) *kong.Healthy {
	if h == nil {
		return nil
	}
	return &kong.Healthy{HTTPStatuses: slices.Clone(h.HTTPStatuses), Interval: h.Interval, Successes: h.Successes}
}

func unhealthy(h *kup.KongUpstreamHealthcheckUnhealthy) *kong.Unhealthy {
	if h == nil {
		return nil
	}
	return &kong.Unhealthy{HTTPFailures: h.HTTPFailures, HTTPStatuses: slices.Clone(h.HTTPStatuses),
		TCPFailures: h.TCPFailures, Timeouts: h.Timeouts, Interval: h.Interval}
}

// fieldErr is one invalid field of a KongUpstreamPolicy.
type fieldErr struct{ field, reason string }

type policyCheck struct{ errs []fieldErr }

func (c *policyCheck) fail(field, reason string) { c.errs = append(c.errs, fieldErr{field, reason}) }

func (c *policyCheck) oneOf(field string, v *string, allowed ...string) {
	if v != nil && !slices.Contains(allowed, *v) {
		c.fail(field, strconv.Quote(*v)+" is not one of "+joinQuoted(allowed))
	}
}

func (c *policyCheck) atLeast(field string, v *int, lo int) {
	if v != nil && *v < lo {
		c.fail(field, strconv.Itoa(*v)+" is less than "+strconv.Itoa(lo))
	}
}

func joinQuoted(vs []string) string {
	out := ""
	for i, v := range vs {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(v)
	}
	return out
}

// validatePolicy checks what KongUpstreamPolicy's CRD schema and rules check; KIC relies on the
// API server having done so and passes any value on to Kong.
func validatePolicy(s *kup.KongUpstreamPolicySpec) []fieldErr {
	var c policyCheck
	c.oneOf("spec.algorithm", s.Algorithm, "round-robin", "consistent-hashing", "least-connections", "latency", "sticky-sessions")
	if s.Slots != nil && (*s.Slots < 10 || *s.Slots > 65536) {
		c.fail("spec.slots", strconv.Itoa(*s.Slots)+" is not between 10 and 65536")
	}
	algo := ""
	if s.Algorithm != nil {
		algo = *s.Algorithm
	}
	if h := s.HashOn; h != nil {
		c.hash("spec.hashOn", h, true)
		if h.Cookie != nil && h.CookiePath == nil {
			c.fail("spec.hashOn.cookiePath", "is required when spec.hashOn.cookie is set")
		}
		if h.CookiePath != nil && h.Cookie == nil {
			c.fail("spec.hashOn.cookie", "is required when spec.hashOn.cookiePath is set")
		}
		if algo != "consistent-hashing" && algo != "sticky-sessions" {
			c.fail("spec.algorithm", `must be "consistent-hashing" or "sticky-sessions" when spec.hashOn is set`)
		}
	}
	if h := s.HashOnFallback; h != nil {
		c.hash("spec.hashOnFallback", h, false)
		if algo != "consistent-hashing" {
			c.fail("spec.algorithm", `must be "consistent-hashing" when spec.hashOnFallback is set`)
		}
		if s.HashOn != nil && s.HashOn.Cookie != nil {
			c.fail("spec.hashOnFallback", "must not be set when spec.hashOn.cookie is set")
		}
	}
	if ss := s.StickySessions; ss != nil {
		on := s.HashOn
		if on == nil || on.Input == nil || *on.Input != "none" || on.Cookie != nil || on.CookiePath != nil ||
			on.Header != nil || on.URICapture != nil || on.QueryArg != nil {
			c.fail("spec.hashOn", `must be exactly {input: none} when spec.stickySessions is set`)
		}
		if ss.Cookie == "" {
			c.fail("spec.stickySessions.cookie", "is required when spec.stickySessions is set")
		}
		if algo != "sticky-sessions" {
			c.fail("spec.algorithm", `must be "sticky-sessions" when spec.stickySessions is set`)
		}
	}
	if h := s.Healthchecks; h != nil {
		c.healthchecks(h)
	}
	return c.errs
}

// hash checks one hash input: at most one source (a cookie only for hashOn) and a known input.
func (c *policyCheck) hash(field string, h *kup.KongUpstreamHash, primary bool) {
	n := 0
	for _, v := range []*string{h.Input, h.Header, h.URICapture, h.QueryArg} {
		if v != nil {
			n++
		}
	}
	sources := "input, header, uriCapture or queryArg"
	if primary {
		sources = "input, cookie, header, uriCapture or queryArg"
		if h.Cookie != nil {
			n++
		}
	}
	if n > 1 {
		c.fail(field, "sets more than one of "+sources)
	}
	c.oneOf(field+".input", h.Input, "ip", "consumer", "path", "none")
}

var probeTypes = []string{"http", "https", "tcp", "grpc", "grpcs"}

func (c *policyCheck) healthchecks(h *kup.KongUpstreamHealthcheck) {
	if a := h.Active; a != nil {
		const f = "spec.healthchecks.active"
		c.oneOf(f+".type", a.Type, probeTypes...)
		c.atLeast(f+".concurrency", a.Concurrency, 1)
		c.atLeast(f+".timeout", a.Timeout, 0)
		if a.HTTPPath != nil && (*a.HTTPPath == "" || (*a.HTTPPath)[0] != '/') {
			c.fail(f+".httpPath", strconv.Quote(*a.HTTPPath)+" does not start with /")
		}
		c.healthy(f+".healthy", a.Healthy)
		c.unhealthy(f+".unhealthy", a.Unhealthy)
	}
	if p := h.Passive; p != nil {
		const f = "spec.healthchecks.passive"
		c.oneOf(f+".type", p.Type, probeTypes...)
		c.healthy(f+".healthy", p.Healthy)
		c.unhealthy(f+".unhealthy", p.Unhealthy)
		if p.Healthy != nil && p.Healthy.Interval != nil {
			c.fail(f+".healthy.interval", "must not be set for passive health checks")
		}
		if p.Unhealthy != nil && p.Unhealthy.Interval != nil {
			c.fail(f+".unhealthy.interval", "must not be set for passive health checks")
		}
	}
}

func (c *policyCheck) healthy(f string, h *kup.KongUpstreamHealthcheckHealthy) {
	if h == nil {
		return
	}
	c.statuses(f+".httpStatuses", h.HTTPStatuses)
	c.atLeast(f+".interval", h.Interval, 0)
	c.atLeast(f+".successes", h.Successes, 0)
}

func (c *policyCheck) unhealthy(f string, h *kup.KongUpstreamHealthcheckUnhealthy) {
	if h == nil {
		return
	}
	c.statuses(f+".httpStatuses", h.HTTPStatuses)
	c.atLeast(f+".httpFailures", h.HTTPFailures, 0)
	c.atLeast(f+".tcpFailures", h.TCPFailures, 0)
	c.atLeast(f+".timeouts", h.Timeouts, 0)
	c.atLeast(f+".interval", h.Interval, 0)
}

func (c *policyCheck) statuses(f string, codes []int) {
	for i, code := range codes {
		if code < 100 || code > 599 {
			c.fail(f+"["+strconv.Itoa(i)+"]", strconv.Itoa(code)+" is not an HTTP status (100-599)")
		}
	}
}
