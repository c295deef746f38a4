package v1

import (
	"encoding/json"
	"slices"

	"github.com/kong/go-kong/kong"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// OverrideAnnotation names, on a Service, the KongIngress (in the Service's namespace) whose
// `upstream` section overrides the Kong upstreams made for it. KongIngress is deprecated in KIC
// 3.x in favour of konghq.com/upstream-policy and KongUpstreamPolicy.
const OverrideAnnotation = "konghq.com/override"

// KongIngress is KIC's deprecated override object. KIC 3.x applies only its `upstream` section;
// `proxy` and `route` are read only to say that they have no effect (the published CRD's rules
// refuse them; a manifest may still hold them).
type KongIngress struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Upstream *KongIngressUpstream `json:"upstream,omitempty"`
	// Proxy and Route are kept as given: only their presence is read.
	Proxy json.RawMessage `json:"proxy,omitempty"`
	Route json.RawMessage `json:"route,omitempty"`
}

// KongIngressUpstream is the CRD's `upstream` section, in Kong's own field names; every field
// is optional (nil: the upstream keeps its value).
type KongIngressUpstream struct {
	HostHeader             *string           `json:"host_header,omitempty"`
	Algorithm              *string           `json:"algorithm,omitempty"`
	Slots                  *int              `json:"slots,omitempty"`
	Healthchecks           *kong.Healthcheck `json:"healthchecks,omitempty"`
	HashOn                 *string           `json:"hash_on,omitempty"`
	HashFallback           *string           `json:"hash_fallback,omitempty"`
	HashOnHeader           *string           `json:"hash_on_header,omitempty"`
	HashFallbackHeader     *string           `json:"hash_fallback_header,omitempty"`
	HashOnCookie           *string           `json:"hash_on_cookie,omitempty"`
	HashOnCookiePath       *string           `json:"hash_on_cookie_path,omitempty"`
	HashOnQueryArg         *string           `json:"hash_on_query_arg,omitempty"`
	HashFallbackQueryArg   *string           `json:"hash_fallback_query_arg,omitempty"`
	HashOnURICapture       *string           `json:"hash_on_uri_capture,omitempty"`
	HashFallbackURICapture *string           `json:"hash_fallback_uri_capture,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (in *KongIngress) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy, as informer objects must be copied before mutation.
func (in *KongIngress) DeepCopy() *KongIngress {
	if in == nil {
		return nil
	}
	out := &KongIngress{}
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Proxy, out.Route = slices.Clone(in.Proxy), slices.Clone(in.Route)
	if u := in.Upstream; u != nil {
		c := KongIngressUpstream{
			HostHeader: cloneStr(u.HostHeader), Algorithm: cloneStr(u.Algorithm), HashOn: cloneStr(u.HashOn),
			HashFallback: cloneStr(u.HashFallback), HashOnHeader: cloneStr(u.HashOnHeader),
			HashFallbackHeader: cloneStr(u.HashFallbackHeader), HashOnCookie: cloneStr(u.HashOnCookie),
			HashOnCookiePath: cloneStr(u.HashOnCookiePath), HashOnQueryArg: cloneStr(u.HashOnQueryArg),
			HashFallbackQueryArg: cloneStr(u.HashFallbackQueryArg), HashOnURICapture: cloneStr(u.HashOnURICapture),
			HashFallbackURICapture: cloneStr(u.HashFallbackURICapture), Healthchecks: u.Healthchecks.DeepCopy(),
		}
		if u.Slots != nil {
			s := *u.Slots
			c.Slots = &s
		}
		out.Upstream = &c
	}
	return out
}

func cloneStr(p *string) *string {
	if p == nil {
		return nil
	}
	s := *p
	return &s
}
