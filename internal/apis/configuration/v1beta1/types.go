// Package v1beta1 holds the subset of Kong's configuration.konghq.com/v1beta1 custom resources
// that kongsync reads (KongUpstreamPolicy), with the JSON shape of the CRD KIC installs. Like
// package v1, these are our own minimal types rather than Kong's kubernetes-configuration
// module, which would pull in the Kong operator and Gateway API type trees for one struct.
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is configuration.konghq.com/v1beta1.
var SchemeGroupVersion = schema.GroupVersion{Group: "configuration.konghq.com", Version: "v1beta1"}

// UpstreamPolicyAnnotation attaches a KongUpstreamPolicy (by name, in the Service's namespace)
// to every Kong upstream made for the annotated Service.
const UpstreamPolicyAnnotation = "konghq.com/upstream-policy"

// KongUpstreamPolicy sets the load-balancing algorithm, hashing, sticky sessions and health
// checks of the Kong upstreams of the Services that reference it. Its status is the Gateway
// API's policy status: the Services and KongServiceFacades it applies to (its ancestors), with
// the conditions each controller writes (status/ writes kongsync's).
type KongUpstreamPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KongUpstreamPolicySpec `json:"spec,omitempty"`
	Status PolicyStatus           `json:"status,omitempty"`
}

// PolicyStatus is the Gateway API's PolicyStatus, the shape of the CRD's status.
type PolicyStatus struct {
	Ancestors []PolicyAncestorStatus `json:"ancestors,omitempty"`
}

// PolicyAncestorStatus is one ancestor's entry: the object the policy applies to, the
// controller that wrote the entry and its conditions.
type PolicyAncestorStatus struct {
	AncestorRef    AncestorRef        `json:"ancestorRef"`
	ControllerName string             `json:"controllerName"`
	Conditions     []metav1.Condition `json:"conditions,omitempty"`
}

// AncestorRef is the Gateway API's ParentReference, naming an ancestor.
type AncestorRef struct {
	Group       *string `json:"group,omitempty"`
	Kind        *string `json:"kind,omitempty"`
	Namespace   *string `json:"namespace,omitempty"`
	Name        string  `json:"name"`
	SectionName *string `json:"sectionName,omitempty"`
	Port        *int32  `json:"port,omitempty"`
}

// KongUpstreamPolicySpec mirrors the CRD's spec; every field is optional (nil: Kong's or
// kongsync's default stays).
type KongUpstreamPolicySpec struct {
	Algorithm      *string                     `json:"algorithm,omitempty"`
	Slots          *int                        `json:"slots,omitempty"`
	HashOn         *KongUpstreamHash           `json:"hashOn,omitempty"`
	HashOnFallback *KongUpstreamHash           `json:"hashOnFallback,omitempty"`
	Healthchecks   *KongUpstreamHealthcheck    `json:"healthchecks,omitempty"`
	StickySessions *KongUpstreamStickySessions `json:"stickySessions,omitempty"`
}

// KongUpstreamHash is one hash input: a predefined Input or one parameterised source. The CRD
// allows only one of them to be set.
type KongUpstreamHash struct {
	Input      *string `json:"input,omitempty"`
	Header     *string `json:"header,omitempty"`
	Cookie     *string `json:"cookie,omitempty"`
	CookiePath *string `json:"cookiePath,omitempty"`
	QueryArg   *string `json:"queryArg,omitempty"`
	URICapture *string `json:"uriCapture,omitempty"`
}

// KongUpstreamStickySessions is the cookie Kong pins clients to a target with.
type KongUpstreamStickySessions struct {
	Cookie     string  `json:"cookie"`
	CookiePath *string `json:"cookiePath,omitempty"`
}

// KongUpstreamHealthcheck is an upstream's health-check configuration.
type KongUpstreamHealthcheck struct {
	Active    *KongUpstreamActiveHealthcheck  `json:"active,omitempty"`
	Passive   *KongUpstreamPassiveHealthcheck `json:"passive,omitempty"`
	Threshold *int                            `json:"threshold,omitempty"`
}

// KongUpstreamActiveHealthcheck configures active probing.
type KongUpstreamActiveHealthcheck struct {
	Type                   *string                           `json:"type,omitempty"`
	Concurrency            *int                              `json:"concurrency,omitempty"`
	Healthy                *KongUpstreamHealthcheckHealthy   `json:"healthy,omitempty"`
	Unhealthy              *KongUpstreamHealthcheckUnhealthy `json:"unhealthy,omitempty"`
	HTTPPath               *string                           `json:"httpPath,omitempty"`
	HTTPSSNI               *string                           `json:"httpsSni,omitempty"`
	HTTPSVerifyCertificate *bool                             `json:"httpsVerifyCertificate,omitempty"`
	Timeout                *int                              `json:"timeout,omitempty"`
	Headers                map[string][]string               `json:"headers,omitempty"`
}

// KongUpstreamPassiveHealthcheck configures passive checks (judging proxied traffic).
type KongUpstreamPassiveHealthcheck struct {
	Type      *string                           `json:"type,omitempty"`
	Healthy   *KongUpstreamHealthcheckHealthy   `json:"healthy,omitempty"`
	Unhealthy *KongUpstreamHealthcheckUnhealthy `json:"unhealthy,omitempty"`
}

// KongUpstreamHealthcheckHealthy says when a target counts as healthy.
type KongUpstreamHealthcheckHealthy struct {
	HTTPStatuses []int `json:"httpStatuses,omitempty"`
	Interval     *int  `json:"interval,omitempty"`
	Successes    *int  `json:"successes,omitempty"`
}

// KongUpstreamHealthcheckUnhealthy says when a target counts as unhealthy.
type KongUpstreamHealthcheckUnhealthy struct {
	HTTPFailures *int  `json:"httpFailures,omitempty"`
	HTTPStatuses []int `json:"httpStatuses,omitempty"`
	TCPFailures  *int  `json:"tcpFailures,omitempty"`
	Timeouts     *int  `json:"timeouts,omitempty"`
	Interval     *int  `json:"interval,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (in *KongUpstreamPolicy) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns an independent copy, as informer objects must be copied before mutation.
func (in *KongUpstreamPolicy) DeepCopy() *KongUpstreamPolicy {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = in.Spec.deepCopy()
	if in.Status.Ancestors != nil {
		out.Status.Ancestors = make([]PolicyAncestorStatus, len(in.Status.Ancestors))
		for i, a := range in.Status.Ancestors {
			a.AncestorRef = AncestorRef{Group: clonePtr(a.AncestorRef.Group), Kind: clonePtr(a.AncestorRef.Kind),
				Namespace: clonePtr(a.AncestorRef.Namespace), Name: a.AncestorRef.Name,
				SectionName: clonePtr(a.AncestorRef.SectionName), Port: clonePtr(a.AncestorRef.Port)}
			a.Conditions = append([]metav1.Condition(nil), a.Conditions...)
			out.Status.Ancestors[i] = a
		}
	}
	return &out
}

func (in KongUpstreamPolicySpec) deepCopy() KongUpstreamPolicySpec {
	out := in
	out.Algorithm = clonePtr(in.Algorithm)
	out.Slots = clonePtr(in.Slots)
	out.HashOn = in.HashOn.deepCopy()
	out.HashOnFallback = in.HashOnFallback.deepCopy()
	if in.StickySessions != nil {
		s := *in.StickySessions
		s.CookiePath = clonePtr(s.CookiePath)
		out.StickySessions = &s
	}
	if h := in.Healthchecks; h != nil {
		c := KongUpstreamHealthcheck{Threshold: clonePtr(h.Threshold)}
		if a := h.Active; a != nil {
			ac := KongUpstreamActiveHealthcheck{Type: clonePtr(a.Type), Concurrency: clonePtr(a.Concurrency),
				Healthy: a.Healthy.deepCopy(), Unhealthy: a.Unhealthy.deepCopy(), HTTPPath: clonePtr(a.HTTPPath),
				HTTPSSNI: clonePtr(a.HTTPSSNI), HTTPSVerifyCertificate: clonePtr(a.HTTPSVerifyCertificate),
				Timeout: clonePtr(a.Timeout)}
			if a.Headers != nil {
				ac.Headers = make(map[string][]string, len(a.Headers))
				for k, v := range a.Headers {
					ac.Headers[k] = append([]string(nil), v...)
				}
			}
			c.Active = &ac
		}
		if p := h.Passive; p != nil {
			c.Passive = &KongUpstreamPassiveHealthcheck{Type: clonePtr(p.Type),
				Healthy: p.Healthy.deepCopy(), Unhealthy: p.Unhealthy.deepCopy()}
		}
		out.Healthchecks = &c
	}
	return out
}

func (in *KongUpstreamHash) deepCopy() *KongUpstreamHash {
	if in == nil {
		return nil
	}
	return &KongUpstreamHash{Input: clonePtr(in.Input), Header: clonePtr(in.Header), Cookie: clonePtr(in.Cookie),
		CookiePath: clonePtr(in.CookiePath), QueryArg: clonePtr(in.QueryArg), URICapture: clonePtr(in.URICapture)}
}

func (in *KongUpstreamHealthcheckHealthy) deepCopy() *KongUpstreamHealthcheckHealthy {
	if in == nil {
		return nil
	}
	return &KongUpstreamHealthcheckHealthy{HTTPStatuses: cloneInts(in.HTTPStatuses),
		Interval: clonePtr(in.Interval), Successes: clonePtr(in.Successes)}
}

func (in *KongUpstreamHealthcheckUnhealthy) deepCopy() *KongUpstreamHealthcheckUnhealthy {
	if in == nil {
		return nil
	}
	return &KongUpstreamHealthcheckUnhealthy{HTTPFailures: clonePtr(in.HTTPFailures),
		HTTPStatuses: cloneInts(in.HTTPStatuses), TCPFailures: clonePtr(in.TCPFailures),
		Timeouts: clonePtr(in.Timeouts), Interval: clonePtr(in.Interval)}
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func cloneInts(s []int) []int {
	if s == nil {
		return nil
	}
	return append([]int(nil), s...)
}
