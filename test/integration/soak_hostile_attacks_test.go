//go:build integration

package integration

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The hostile tenant's attacks, one generator per class of issue 20. Each is a pure function of
// its random source and stays within what the API server takes: objects under 1 MiB (it refuses
// requests over ~1.5 MB), annotations under 256 KiB in all, names DNS subdomains.

// hostAliasBytes is the size of the host-alias annotation: the API server's 256 KiB limit for
// all of an object's annotations, less its key and a margin.
const hostAliasBytes = 250 << 10

// aliasBombAttack is a KongPlugin whose configFrom Secret holds a YAML alias bomb (aliasBomb),
// used by an Ingress of the tenant, so that kongsync reads the Secret value.
func (w *world) aliasBombAttack(r *rand.Rand) []map[string]any {
	sec := w.evilObj("Secret", "", "v1", "bomb")
	sec["type"] = "Opaque"
	sec["stringData"] = map[string]any{"config": aliasBomb(r)}
	plug := w.evilObj("KongPlugin", "configuration.konghq.com", "v1", "bomb")
	plug["plugin"] = "request-transformer"
	plug["configFrom"] = map[string]any{"secretKeyRef": map[string]any{"name": "bomb", "key": "config"}}
	ing := w.evilIngress("bomb")
	setAnn(ing, "konghq.com/plugins", "bomb")
	return []map[string]any{sec, plug, ing}
}

// aliasBomb is a YAML object of 150–200 KB that its aliases expand ~10^4 times (1.5–4 GB): one
// long scalar, then four levels naming the level before 10–12 times, in a list or a map. It has
// few nodes (~1.5 × 10^4 after expansion): a guard that counts nodes lets it through, one that
// counts bytes does not.
func aliasBomb(r *rand.Rand) string {
	size, fan, asMap := 150_000+r.IntN(50_000), 10+r.IntN(3), r.IntN(2) == 0
	var b strings.Builder
	fmt.Fprintf(&b, "l0: &l0 %q\n", strings.Repeat("x", size))
	for l := 1; l <= 4; l++ {
		items := make([]string, fan)
		for i := range items {
			items[i] = fmt.Sprintf("*l%d", l-1)
			if asMap {
				items[i] = fmt.Sprintf("k%d: *l%d", i, l-1)
			}
		}
		open, end := "[", "]"
		if asMap {
			open, end = "{", "}"
		}
		fmt.Fprintf(&b, "l%d: &l%d %s%s %s\n", l, l, open, strings.Join(items, ", "), end)
	}
	return b.String()
}

// hostAliasAttack is an Ingress whose konghq.com/host-aliases holds ~250 KiB of hosts (~6,000
// long ones or ~27,000 short ones), on one rule or, one time in three, on 100: kongsync bounds
// what an Ingress's routes repeat to 64 times its size, so those 100 rules (25 MB of aliases in
// Kong's config) make no routes. About 50 rules would stay within the bound and make a 13 MB
// config for every push, which would load the soak's doubles more than kongsync.
func (w *world) hostAliasAttack(r *rand.Rand) []map[string]any {
	ing := w.evilIngress("aliases")
	setAnn(ing, "konghq.com/host-aliases", hostAliases(r, pick(r, w.evilHost("aliases"), "ev"), hostAliasBytes))
	if r.IntN(3) == 0 {
		spec := ing["spec"].(map[string]any)
		rules := spec["rules"].([]any)
		for i := 1; i < 100; i++ {
			rules = append(rules, map[string]any{"host": w.evilHost(fmt.Sprintf("r%d", i)), "http": rules[0].(map[string]any)["http"]})
		}
		spec["rules"] = rules
	}
	return []map[string]any{ing}
}

// hostAliases is a comma-separated list of at most n bytes of hosts under base, distinct but for
// every 64th, which repeats an earlier one.
func hostAliases(r *rand.Rand, base string, n int) string {
	var b strings.Builder
	for i := 0; ; i++ {
		h := fmt.Sprintf("a%d.%s", i, base)
		if i%64 == 63 {
			h = fmt.Sprintf("a%d.%s", r.IntN(i), base)
		}
		if b.Len()+len(h)+1 > n {
			return b.String()
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(h)
	}
}

// credentialAttack is a credential Secret and a KongConsumer of the tenant reusing the victim's
// public values: its key-auth key, its basic-auth username, its username or custom_id (or, now
// and then, a value of the tenant's own).
func (w *world) credentialAttack(r *rand.Rand) []map[string]any {
	sec := w.evilObj("Secret", "", "v1", "cred")
	sec["type"] = "Opaque"
	switch r.IntN(3) {
	case 0:
		setLabel(sec, "konghq.com/credential", "key-auth")
		sec["stringData"] = map[string]any{"key": victimKey}
	case 1:
		setLabel(sec, "konghq.com/credential", "basic-auth")
		sec["stringData"] = map[string]any{"username": victimBasic, "password": "stolen"}
	default:
		setLabel(sec, "konghq.com/credential", "key-auth")
		sec["stringData"] = map[string]any{"key": "evil-key"}
	}
	cons := w.evilObj("KongConsumer", "configuration.konghq.com", "v1", "cons")
	setAnn(cons, "kubernetes.io/ingress.class", w.class)
	cons["username"] = pick(r, victimUser, "evil-user", "evil-user")
	if r.IntN(3) == 0 {
		cons["custom_id"] = victimCID
	}
	cons["credentials"] = []any{"cred"}
	return []map[string]any{sec, cons}
}

// caAttack is a CA certificate Secret of the tenant reusing the victim CA's id, and now and then
// a Service of the tenant that trusts it, with an Ingress that makes it a Kong service.
func (w *world) caAttack(r *rand.Rand) []map[string]any {
	sec := w.evilObj("Secret", "", "v1", "ca")
	setLabel(sec, "konghq.com/ca-cert", "true")
	sec["stringData"] = map[string]any{"id": w.evil.caID, "cert": string(w.evil.evilCA)}
	out := []map[string]any{sec}
	if r.IntN(2) == 0 {
		svc := tlsService(w.evilObj("Service", "", "v1", "verified"), "ca")
		out = append(out, svc, w.evilIngress("verified", pathTo("/", "Prefix", "verified", 443)))
	}
	return out
}

// pcreRefused are regexes PCRE (what Kong compiles) refuses, some of which RE2 accepts.
var pcreRefused = []string{`[z-a]`, `x{4,2}`, `a**`, `(?<=a+)b`, `\k<nope>`, `(?P<n>a)(?P<n>b)`,
	`[[:alpha:]-z]`, `a{65536}`, `(*LIMIT_NOPE=1)a`, `\`}

// pcreBad is one of pcreRefused, or parentheses nested 300 deep (PCRE's limit is 250; RE2's 1000).
func pcreBad(r *rand.Rand) string {
	if r.IntN(len(pcreRefused)+1) == 0 {
		return strings.Repeat("(", 300) + "a" + strings.Repeat(")", 300)
	}
	return pick(r, pcreRefused...)
}

// regexAttack is an Ingress with a regex path PCRE refuses beside a good path, and an HTTPRoute
// with a path and a header regex PCRE refuses.
func (w *world) regexAttack(r *rand.Rand) []map[string]any {
	ing := w.evilIngress("regex", evilPath("/ok", "Prefix"), evilPath("/~/re/"+pcreBad(r), "ImplementationSpecific"))
	route := w.evilRoute("regex", map[string]any{
		"matches": []any{map[string]any{
			"path":    map[string]any{"type": "RegularExpression", "value": "/re/" + pcreBad(r)},
			"headers": []any{map[string]any{"type": "RegularExpression", "name": "x-evil", "value": pcreBad(r)}},
		}},
		"backendRefs": []any{evilBackend("app", 1)},
	})
	return []map[string]any{ing, route}
}

// weightAttack is an HTTPRoute whose backendRefs weigh more than Kong's 65535 (the Gateway API
// allows up to 1,000,000).
func (w *world) weightAttack(r *rand.Rand) []map[string]any {
	return []map[string]any{w.evilRoute("weights", map[string]any{
		"matches":     []any{map[string]any{"path": map[string]any{"type": "PathPrefix", "value": "/w"}}},
		"backendRefs": []any{evilBackend("app", 65536+r.IntN(934465)), evilBackend("app2", r.IntN(1000001))},
	})}
}

// controlStrings hold terminal escapes, carriage returns and newlines, bidi overrides and
// isolates, NUL and BEL: what must not reach a terminal, a log line or an Event raw.
var controlStrings = []string{"\x1b[31mred\x1b[0m", "GET\rPOST", "a\nInjected: yes", "\u202egnp.exe",
	"\u2066iso\u2069", "nul\x00byte", "bell\x07", "\x1b]0;title\x07"}

// controlAnnotations are annotations kongsync reads whose values the tenant fills with controls.
var controlAnnotations = []string{"konghq.com/methods", "konghq.com/plugins", "konghq.com/tags",
	"konghq.com/host-aliases", "konghq.com/path", "konghq.com/protocols", "konghq.com/headers.x-ctl",
	"konghq.com/strip-path", "konghq.com/regex-priority", "konghq.com/snis"}

// controlAttack is an Ingress with control characters in three annotations kongsync reads, and
// a KongConsumer whose username and custom_id hold them (names cannot: the API server refuses).
func (w *world) controlAttack(r *rand.Rand) []map[string]any {
	ing := w.evilIngress("ctl")
	for range 3 {
		setAnn(ing, pick(r, controlAnnotations...), pick(r, controlStrings...))
	}
	cons := w.evilObj("KongConsumer", "configuration.konghq.com", "v1", "ctl")
	setAnn(cons, "kubernetes.io/ingress.class", w.class)
	cons["username"] = "ctl-" + pick(r, controlStrings...)
	cons["custom_id"] = pick(r, controlStrings...)
	return []map[string]any{ing, cons}
}

// deepAttack is a KongPlugin whose config nests maps or lists 64, 1,200 or 5,000 deep (Kong's
// JSON decoder stops at 1,000; the API server's at 10,000), used by an Ingress of the tenant.
func (w *world) deepAttack(r *rand.Rand) []map[string]any {
	plug := w.evilObj("KongPlugin", "configuration.konghq.com", "v1", "deep")
	plug["plugin"] = "request-transformer"
	plug["config"] = map[string]any{"add": nested(pick(r, 64, 1200, 5000), r.IntN(2) == 0)}
	ing := w.evilIngress("deep")
	setAnn(ing, "konghq.com/plugins", "deep")
	return []map[string]any{plug, ing}
}

// nested is a value nesting maps (or lists) depth deep.
func nested(depth int, list bool) any {
	var v any = "end"
	for range depth {
		if list {
			v = []any{v}
		} else {
			v = map[string]any{"a": v}
		}
	}
	return v
}
