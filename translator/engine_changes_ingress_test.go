package translator

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/store"
)

// Values the Ingress mutations draw from: valid ones and invalid ones.
var (
	somePaths = []string{"/", "/api", "/api/v2", "/collide", "/~/items/(\\d+)$", "/a//b", "relative", "/x/../y",
		"", "/~/(unbalanced", "/static/"}
	someHosts = []string{"collide.example.com", "*.wild.example.com", "Bad_Host!", "", "xn--bcher-kva.example"}

	ingressAnnotations = map[string][]string{
		annStripPath:               {"true", "false", "maybe"},
		annPreserveHost:            {"true", "false", "nope"},
		annProtocols:               {"https", "http,https", "grpc", "tcp", "bogus"},
		annMethods:                 {"GET", "GET,POST", "get", "B@D"},
		annRegexPriority:           {"10", "-3", "1.5", "99999999999999999999"},
		annHostAliases:             {"alias.example.com", "a.example.com,b.example.com", "Bad_Alias"},
		annHeadersPrefix + "x-env": {"prod", "a,b", ""},
		annPathHandling:            {"v0", "v1", "v3"},
		annRegexPrefix:             {"/~", "/re:", ""},
		annRewrite:                 {"/new/$1", "/x"},
		annSNIs:                    {"collide.example.com", "*.wild.example.com", "bad sni"},
		annRedirectCode:            {"301", "308", "999"},
		annForceSSLRedirect:        {"true", "false"},
		annRequestBuffering:        {"false", "x"},
		annTags:                    {"a,b", "team-x", ""},
	}
)

// backend returns a backend to a Service of ns (maybe one that never exists), with a port by
// name, by number or none.
func (w *world) backend(ns string) *networkingv1.IngressServiceBackend {
	b := &networkingv1.IngressServiceBackend{Name: pick(w.r, w.names(store.KindService, ns))}
	switch w.r.IntN(6) {
	case 0:
		b.Port.Name = pick(w.r, []string{"http", "https", "missing-port"})
	case 1:
		b.Port.Number = pick(w.r, []int32{443, 8080, 9999})
	case 2: // no port
	default:
		b.Port.Number = 80
	}
	return b
}

// rulePath returns a random path of the Ingress, or nil.
func (w *world) rulePath(o *networkingv1.Ingress) *networkingv1.HTTPIngressPath {
	var all []*networkingv1.HTTPIngressPath
	for i := range o.Spec.Rules {
		if h := o.Spec.Rules[i].HTTP; h != nil {
			for j := range h.Paths {
				all = append(all, &h.Paths[j])
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	return pick(w.r, all)
}

func (w *world) mutateIngress(o *networkingv1.Ingress) string {
	m := &o.ObjectMeta
	p := w.rulePath(o)
	switch n := w.r.IntN(16); {
	case n == 0 && p != nil:
		p.Path = pick(w.r, somePaths)
		return fmt.Sprintf("path %q", p.Path)
	case n == 1 && p != nil:
		return w.setPathType(p)
	case n == 2 && len(o.Spec.Rules) > 0:
		i := w.r.IntN(len(o.Spec.Rules))
		o.Spec.Rules[i].Host = pick(w.r, append(slices.Clone(someHosts), pick(w.r, w.hosts)))
		return fmt.Sprintf("rules[%d].host %q", i, o.Spec.Rules[i].Host)
	case n == 3 && p != nil:
		p.Backend = networkingv1.IngressBackend{Service: w.backend(o.Namespace)}
		return fmt.Sprintf("backend %s:%s/%d", p.Backend.Service.Name, p.Backend.Service.Port.Name, p.Backend.Service.Port.Number)
	case n == 4 && p != nil && w.r.IntN(3) == 0:
		p.Backend = networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{Kind: "Bucket", Name: "b"}}
		return "resource backend"
	case n == 5:
		return w.addPath(o)
	case n == 6 && len(o.Spec.Rules) > 0:
		return w.removePath(o)
	case n == 7 || n == 8:
		return w.setAnnFrom(m, ingressAnnotations)
	case n == 9:
		return w.setPluginsAnnotation(m)
	case n == 10:
		return w.moveIngressClass(o)
	case n == 11:
		return w.mutateTLS(o)
	case n == 12:
		return w.setDefaultBackend(o)
	case n == 13:
		return w.retime(&o.ObjectMeta, store.KindIngress, w.ingressRivals(o)...)
	case n == 14 && p != nil: // the same host and path as other Ingresses so changed
		if len(o.Spec.Rules) > 0 {
			o.Spec.Rules[0].Host = "collide.example.com"
		}
		p.Path = "/collide"
		return "collide"
	}
	return w.setAnnFrom(m, ingressAnnotations)
}

// setPathType sets a path's type to a valid or invalid one, or removes it.
func (w *world) setPathType(p *networkingv1.HTTPIngressPath) string {
	pts := []networkingv1.PathType{networkingv1.PathTypeExact, networkingv1.PathTypePrefix,
		networkingv1.PathTypeImplementationSpecific, "Bogus"}
	if w.r.IntN(4) == 0 {
		p.PathType = nil
		return "pathType removed"
	}
	pt := pick(w.r, pts)
	p.PathType = &pt
	return "pathType " + string(pt)
}

// addPath adds a Prefix path to a service backend, in a new rule or in an existing one.
func (w *world) addPath(o *networkingv1.Ingress) string {
	pt := networkingv1.PathTypePrefix
	np := networkingv1.HTTPIngressPath{Path: pick(w.r, somePaths), PathType: &pt,
		Backend: networkingv1.IngressBackend{Service: w.backend(o.Namespace)}}
	if len(o.Spec.Rules) == 0 || w.r.IntN(3) == 0 {
		o.Spec.Rules = append(o.Spec.Rules, networkingv1.IngressRule{Host: pick(w.r, w.hosts),
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{np}}}})
		return "rule added"
	}
	rule := &o.Spec.Rules[w.r.IntN(len(o.Spec.Rules))]
	if rule.HTTP == nil {
		rule.HTTP = &networkingv1.HTTPIngressRuleValue{}
	}
	rule.HTTP.Paths = append(rule.HTTP.Paths, np)
	return "path added"
}

// removePath removes a path of a rule with more than one, else the whole rule. The Ingress has
// rules.
func (w *world) removePath(o *networkingv1.Ingress) string {
	i := w.r.IntN(len(o.Spec.Rules))
	if h := o.Spec.Rules[i].HTTP; h != nil && len(h.Paths) > 1 {
		j := w.r.IntN(len(h.Paths))
		h.Paths = slices.Delete(h.Paths, j, j+1)
		return fmt.Sprintf("rules[%d] path %d removed", i, j)
	}
	o.Spec.Rules = slices.Delete(o.Spec.Rules, i, i+1)
	return fmt.Sprintf("rule %d removed", i)
}

// setDefaultBackend removes the default backend, or sets it to a resource or a service backend.
func (w *world) setDefaultBackend(o *networkingv1.Ingress) string {
	if o.Spec.DefaultBackend != nil && w.r.IntN(2) == 0 {
		o.Spec.DefaultBackend = nil
		return "default backend removed"
	}
	if w.r.IntN(5) == 0 {
		o.Spec.DefaultBackend = &networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{Kind: "Bucket", Name: "b"}}
		return "resource default backend"
	}
	o.Spec.DefaultBackend = &networkingv1.IngressBackend{Service: w.backend(o.Namespace)}
	return "default backend " + o.Spec.DefaultBackend.Service.Name
}

// ingressRivals are the other present Ingresses that claim a TLS host o claims, or that have a
// default backend when o has one: creation times decide between them.
func (w *world) ingressRivals(o *networkingv1.Ingress) []store.Ref {
	hosts := map[string]bool{}
	for _, tls := range o.Spec.TLS {
		for _, h := range tls.Hosts {
			hosts[h] = true
		}
	}
	var out []store.Ref
	for _, ref := range w.refs(store.KindIngress, true) {
		if ref == ingressRef(o) {
			continue
		}
		cur, _ := w.get(ref)
		other := cur.(*networkingv1.Ingress)
		rival := o.Spec.DefaultBackend != nil && other.Spec.DefaultBackend != nil
		for _, tls := range other.Spec.TLS {
			for _, h := range tls.Hosts {
				rival = rival || hosts[h]
			}
		}
		if rival {
			out = append(out, ref)
		}
	}
	return out
}

// moveIngressClass changes an Ingress's class (annotation or spec.ingressClassName), and
// sometimes moves it back a few steps later.
func (w *world) moveIngressClass(o *networkingv1.Ingress) string {
	ref := ingressRef(o)
	back := o.DeepCopy()
	var what string
	if w.r.IntN(2) == 0 {
		what = w.setClassAnnotation(&o.ObjectMeta)
	} else {
		switch v := pick(w.r, []string{"kong", "other", "nginx", "-"}); v {
		case "-":
			o.Spec.IngressClassName = nil
			what = "ingressClassName removed"
		default:
			o.Spec.IngressClassName = &v
			what = "ingressClassName " + v
		}
	}
	if w.r.IntN(2) == 0 {
		w.later(1+w.r.IntN(3), "class of "+ref.String()+" back", func() {
			cur, ok := w.get(ref)
			if !ok {
				return
			}
			c := cur.DeepCopyObject().(*networkingv1.Ingress)
			c.Annotations, c.Spec.IngressClassName = back.Annotations, back.Spec.IngressClassName
			w.put(c)
			w.count(store.KindIngress, "class back")
		})
	}
	return what
}

func (w *world) mutateTLS(o *networkingv1.Ingress) string {
	secrets := w.names(store.KindSecret, o.Namespace)
	switch n := w.r.IntN(6); {
	case n == 0 && len(o.Spec.TLS) > 0:
		o.Spec.TLS = nil
		return "TLS removed"
	case n == 3: // claim a TLS host another Ingress claims, with a Secret of this namespace
		var claimed []string
		for _, ref := range w.refs(store.KindIngress, true) {
			other, _ := w.get(ref)
			for _, tls := range other.(*networkingv1.Ingress).Spec.TLS {
				claimed = append(claimed, tls.Hosts...)
			}
		}
		if len(claimed) > 0 {
			h := pick(w.r, claimed)
			o.Spec.TLS = append(o.Spec.TLS, networkingv1.IngressTLS{Hosts: []string{h}, SecretName: pick(w.r, secrets)})
			return "TLS claim of " + h
		}
	case n == 1 && len(o.Spec.TLS) > 0:
		i := w.r.IntN(len(o.Spec.TLS))
		o.Spec.TLS[i].SecretName = pick(w.r, append(secrets, ""))
		return fmt.Sprintf("tls[%d].secretName %q", i, o.Spec.TLS[i].SecretName)
	case n == 2 && len(o.Spec.TLS) > 0:
		i := w.r.IntN(len(o.Spec.TLS))
		o.Spec.TLS[i].Hosts = append(o.Spec.TLS[i].Hosts, pick(w.r, append(slices.Clone(w.hosts), "Bad_Host!")))
		return fmt.Sprintf("tls[%d] host added", i)
	}
	var hosts []string
	for _, rule := range o.Spec.Rules {
		if rule.Host != "" {
			hosts = append(hosts, rule.Host)
		}
	}
	if len(hosts) == 0 || w.r.IntN(3) == 0 {
		hosts = append(hosts, pick(w.r, w.hosts))
	}
	o.Spec.TLS = append(o.Spec.TLS, networkingv1.IngressTLS{Hosts: hosts, SecretName: pick(w.r, secrets)})
	return "TLS entry added"
}
