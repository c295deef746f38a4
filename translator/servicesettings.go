package translator

import (
	"sort"
	"strings"

	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/store"
)

// serviceInfo is what a Kubernetes Service contributes to its Kong services and upstreams:
// tags and annotation settings, parsed and checked once per Service however many ports are used.
type serviceInfo struct {
	tags       []*string
	hostHeader *string
	// clientCertName is the Secret konghq.com/client-cert names, and caCerts the CA certificate
	// Secrets konghq.com/ca-certificates-secrets names, found: assemble resolves both (the
	// certificate's id is known once certificates are merged, a CA id must be one in the output).
	clientCertName string
	caCerts        []caCertRef
	// opts are the parsed service annotations; nil when the Service has no konghq.com/ one
	// (most Services), which saves their parsing and memory.
	opts    *serviceOptions
	tagData tagBlock // tags' storage, without konghq.com/tags
}

// claimsCerts reports whether the Service names a client certificate or CA certificates: its
// Kong service is then completed by resolveServiceCerts, in the build's order.
func (info *serviceInfo) claimsCerts() bool {
	return info.clientCertName != "" || len(info.caCerts) > 0
}

// serviceOptions are the Kong service fields a Service's annotations set.
type serviceOptions struct {
	protocol, path                            *string
	connectTimeout, readTimeout, writeTimeout *int
	retries, tlsVerifyDepth                   *int
	tlsVerify                                 *bool
}

// caCertRef is a CA certificate Secret or ConfigMap a Service names, with the id it holds.
type caCertRef struct {
	kind     store.Kind
	name, id string
}

// caAnnotation is the Service annotation naming CA certificates of a kind.
func caAnnotation(kind store.Kind) string {
	if kind == store.KindConfigMap {
		return annCACertConfigMaps
	}
	return annCACertSecrets
}

func serviceRef(s *corev1.Service) store.Ref {
	return store.Ref{Kind: store.KindService, Namespace: s.Namespace, Name: s.Name}
}

// hasKeyPrefix reports whether any key of m starts with prefix.
func hasKeyPrefix(m map[string]string, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// parseServiceOptions reads the konghq.com/ annotations of a Service into info.
func (t *translation) parseServiceOptions(svc *corev1.Service, info *serviceInfo) {
	a := svc.Annotations
	p := annotationParser{t: t, ref: serviceRef(svc), anns: a}
	o := &serviceOptions{}
	info.opts = o
	if v, ok := a[annProtocol]; ok && v != "" {
		if validProtocol(v) {
			o.protocol = kong.String(v)
		} else {
			p.bad(annProtocol, "unknown protocol")
		}
	}
	if v, ok := a[annPath]; ok && v != "" {
		if _, err := parseServicePath(v); err != nil {
			p.bad(annPath, err.Error())
		} else {
			o.path = kong.String(v)
		}
	}
	timeout := func(v string) (int, error) { return parseIntRange(v, 1, maxTimeout) }
	o.connectTimeout = p.integer(annConnectTimeout, timeout)
	o.readTimeout = p.integer(annReadTimeout, timeout)
	o.writeTimeout = p.integer(annWriteTimeout, timeout)
	o.retries = p.integer(annRetries, func(v string) (int, error) { return parseIntRange(v, 0, maxRetries) })
	o.tlsVerify = p.boolean(annTLSVerify, parseLooseBool)
	o.tlsVerifyDepth = p.integer(annTLSVerifyDepth, func(v string) (int, error) {
		return parseIntRange(v, 0, maxVerifyDep)
	})
	if v := a[annHostHeader]; v != "" {
		info.hostHeader = kong.String(v)
	}
	t.clientCertFor(svc, info)
	t.caCertsFor(svc, info)
}

// effectiveProtocol is the protocol the Kong service ends up with.
func (info *serviceInfo) effectiveProtocol() string {
	if info.opts != nil && info.opts.protocol != nil {
		return *info.opts.protocol
	}
	return defaultProtocol
}

// isTLSProtocol reports whether a service protocol encrypts traffic to the upstream, which
// client certificates and CA certificates need.
func isTLSProtocol(p string) bool {
	switch p {
	case "https", "grpcs", "tls", "wss":
		return true
	}
	return false
}

// apply sets the Kong service fields the annotations ask for. gRPC and stream services take no
// path (Kong refuses one): konghq.com/path is for the Service's HTTP Kong services, and a
// Service a TCPIngress or UDPIngress also routes to keeps it there only.
func (info *serviceInfo) apply(s *kong.Service) {
	if info.opts != nil {
		info.opts.apply(s)
	}
	if p := *s.Protocol; p == "grpc" || p == "grpcs" || streamProtocol(p) {
		s.Path = nil
	}
}

func (info *serviceOptions) apply(s *kong.Service) {
	if info.protocol != nil {
		s.Protocol = info.protocol
	}
	if info.path != nil {
		s.Path = info.path
	}
	setInt(&s.ConnectTimeout, info.connectTimeout)
	setInt(&s.WriteTimeout, info.writeTimeout)
	setInt(&s.ReadTimeout, info.readTimeout)
	setInt(&s.Retries, info.retries)
	setBool(&s.TLSVerify, info.tlsVerify)
	setInt(&s.TLSVerifyDepth, info.tlsVerifyDepth)
}

// clientCertFor checks konghq.com/client-cert: a TLS Secret in the Service's namespace whose
// certificate Kong presents to the upstream. It needs a TLS protocol; assemble resolves it.
func (t *translation) clientCertFor(svc *corev1.Service, info *serviceInfo) {
	name := svc.Annotations[annClientCert]
	if name == "" {
		return
	}
	if !isTLSProtocol(info.effectiveProtocol()) {
		t.problem(serviceRef(svc), annotationField(annClientCert), "client certificate needs a TLS protocol, not %q; annotation ignored", info.effectiveProtocol())
		return
	}
	info.clientCertName = name
}

// caCertsFor reads konghq.com/ca-certificates-secrets and konghq.com/ca-certificates-configmaps:
// CA certificate Secrets and ConfigMaps (labelled konghq.com/ca-cert) of the Service's
// namespace whose ids the service trusts, the Secrets' first, as KIC. They need tls-verify true
// and a TLS protocol.
func (t *translation) caCertsFor(svc *corev1.Service, info *serviceInfo) {
	secrets, configMaps := splitList(svc.Annotations[annCACertSecrets]), splitList(svc.Annotations[annCACertConfigMaps])
	if len(secrets)+len(configMaps) == 0 {
		return
	}
	field := annotationField(annCACertSecrets)
	if len(secrets) == 0 {
		field = annotationField(annCACertConfigMaps)
	}
	if info.opts.tlsVerify == nil || !*info.opts.tlsVerify {
		t.problem(serviceRef(svc), field, "CA certificates need konghq.com/tls-verify: \"true\"; annotation ignored")
		return
	}
	if !isTLSProtocol(info.effectiveProtocol()) {
		t.problem(serviceRef(svc), field, "CA certificates need a TLS protocol, not %q; annotation ignored", info.effectiveProtocol())
		return
	}
	for _, name := range secrets {
		if sec, ok := t.snap.Secret(svc.Namespace, name); ok {
			info.caCerts = append(info.caCerts, caCertRef{kind: store.KindSecret, name: name, id: string(sec.Data["id"])})
		} else {
			t.missingRef(serviceRef(svc), field, "Secret %s/%s not found; CA certificate skipped", svc.Namespace, name)
		}
	}
	cmField := annotationField(annCACertConfigMaps)
	for _, name := range configMaps {
		if cm, ok := t.snap.ConfigMap(svc.Namespace, name); ok {
			info.caCerts = append(info.caCerts, caCertRef{kind: store.KindConfigMap, name: name, id: cm.Data["id"]})
		} else {
			t.missingRef(serviceRef(svc), cmField, "ConfigMap %s/%s not found (or not labelled %s: \"true\"); "+
				"CA certificate skipped", svc.Namespace, name, caCertLabel)
		}
	}
}

// resolveServiceCerts sets a Kong service's client certificate and CA certificates, which
// depend on other Secrets than the Service's own piece reads: the client certificate's id is
// set once identical certificates are merged, and a CA certificate counts only when it is in
// the output.
func (t *certBuilder) resolveServiceCerts(svc *corev1.Service, info *serviceInfo, s *kong.Service) {
	if name := info.clientCertName; name != "" {
		field := annotationField(annClientCert)
		switch ce := t.loadCert(svc.Namespace, name); {
		case ce.secret == nil:
			t.missingRef(serviceRef(svc), field, "Secret %s/%s not found; annotation ignored", svc.Namespace, name)
		case ce.err != "":
			t.problem(serviceRef(svc), field, "Secret %s/%s has no usable TLS key pair; annotation ignored", svc.Namespace, name)
		default:
			t.useCert(ce)
			t.clientRefs = append(t.clientRefs, clientCertRef{svc: s, cert: ce})
		}
	}
	var ids []*string
	for _, c := range info.caCerts {
		if t.trustCA(svc, c) {
			ids = append(ids, kong.String(c.id))
		}
	}
	if len(ids) > 0 {
		s.CACertificates = ids
	}
}

// trustCA reports whether a Service may trust the CA certificate id of the object it names: only
// when that object holds the id in the output, never another namespace's object (docs/security.md).
func (t *certBuilder) trustCA(svc *corev1.Service, c caCertRef) bool {
	owner, ok := t.ca.caCerts.owners[c.id]
	named := store.Ref{Kind: c.kind, Namespace: svc.Namespace, Name: c.name}
	lostTo, lost := t.ca.caCerts.lost[named]
	field := annotationField(caAnnotation(c.kind))
	switch {
	case !ok && lost && lostTo.Namespace != svc.Namespace:
		t.problem(serviceRef(svc), field, "%s is skipped: the older CA certificate %s of another namespace "+
			"holds its id or certificate; CA certificate skipped", named, lostTo)
	case !ok:
		t.problem(serviceRef(svc), field, "%s is not a valid CA certificate %s; CA certificate skipped", named, c.kind)
	case owner != named: // trusting the id would trust owner's certificate, maybe another namespace's
		t.problem(serviceRef(svc), field, "the id %s of %s belongs to the older CA certificate %s, whose "+
			"certificate Kong gets under it; CA certificate skipped", quoteShort(c.id), named, owner)
	default:
		return true
	}
	return false
}

// consistentAnnotations is KIC's rule for Kong services backed by several Kubernetes Services:
// every konghq.com/ annotation any of them carries must be on all of them with the same value,
// or the Kong service is skipped and each Service gets a problem per disagreeing annotation.
// An Ingress backs a Kong service with exactly one Service, so for Ingresses this always holds.
func (t *translation) consistentAnnotations(kongName string, svcs []*corev1.Service) bool {
	if len(svcs) < 2 {
		return true
	}
	var bad []string
	seen := map[string]bool{} // a Service can carry thousands of annotations: no search of bad
	for _, a := range svcs {
		for k, v := range a.Annotations {
			if len(k) < len(annPrefix) || k[:len(annPrefix)] != annPrefix || seen[k] {
				continue
			}
			for _, b := range svcs {
				if w, ok := b.Annotations[k]; !ok || w != v {
					bad, seen[k] = append(bad, k), true
					break
				}
			}
		}
	}
	sort.Strings(bad)
	for _, s := range svcs {
		for _, k := range bad {
			t.problem(store.Ref{Kind: store.KindService, Namespace: s.Namespace, Name: s.Name}, annotationField(k),
				"must have the same value on every Service behind Kong service %s; that Kong service is skipped", kongName)
		}
	}
	return len(bad) == 0
}
