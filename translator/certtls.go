package translator

import (
	"bytes"
	"crypto/tls"
	"slices"
	"sort"
	"strconv"

	"github.com/google/uuid"
	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/document"
	"github.com/kongsync/kongsync/store"
)

// certEntry is one TLS Secret as a certificate source, loaded and checked once.
type certEntry struct {
	key       string // "namespace/name"
	secret    *corev1.Secret
	cert, pem string // PEM certificate and key, trimmed
	err       string // why the Secret gives no certificate
	piece     *certPiece
	used      bool // in certOrder
	hosts     []string
}

// clientCertRef is a Kong service whose client_certificate is the certificate of a Secret;
// its id is known once identical certificates are merged.
type clientCertRef struct {
	svc  *kong.Service
	cert *certEntry
}

// certPiece is a TLS Secret's key pair, trimmed and checked (a costly parse, so a piece), or
// why it gives none; tags are the Secret's, for the certificate it may give its id to.
type certPiece struct {
	cert, pem, err string
	tags           []*string
}

// loadCert returns the certificate of Secret ns/name, loading it on its first use in this build.
// A Secret that exists but holds no usable key pair is reported once, on the Secret.
func (t *certBuilder) loadCert(ns, name string) *certEntry {
	key := nsNameKey(ns, name)
	if ce, ok := t.certs[key]; ok {
		return ce
	}
	ce := &certEntry{key: key}
	t.certs[key] = ce
	sec, ok := t.snap.Secret(ns, name)
	if !ok {
		return ce
	}
	ce.secret = sec
	ce.piece = piece(t.translation, t.memos.certs, sec, func() *certPiece { return t.parseCert(sec) })
	ce.cert, ce.pem, ce.err = ce.piece.cert, ce.piece.pem, ce.piece.err
	return ce
}

// parseCert is a TLS Secret's piece.
func (t *certBuilder) parseCert(sec *corev1.Secret) *certPiece {
	crt, okc := sec.Data[corev1.TLSCertKey]
	k, okk := sec.Data[corev1.TLSPrivateKeyKey]
	if !okc || !okk {
		p := &certPiece{err: "tls.crt and tls.key are both required"}
		t.problem(secretRef(sec), "data", "%s; no certificate", p.err)
		return p
	}
	crt, k = bytes.TrimSpace(crt), bytes.TrimSpace(k)
	if _, err := tls.X509KeyPair(crt, k); err != nil {
		p := &certPiece{err: err.Error()}
		t.problem(secretRef(sec), "data", "not a valid TLS key pair: %s; no certificate", p.err)
		return p
	}
	return &certPiece{cert: string(crt), pem: string(k), tags: objectTags(store.KindSecret, sec)}
}

// useCert makes a Secret's certificate part of the output.
func (t *certBuilder) useCert(ce *certEntry) {
	if !ce.used {
		ce.used = true
		t.certOrder = append(t.certOrder, ce)
	}
}

// collectTLS assigns every TLS host of the served Ingresses to one Secret: the first claim in
// Ingress order wins, later claims by other Secrets are reported. Claims whose Secret is missing
// or unusable are reported and do not block a later valid claim.
// Only the Ingresses at positions idx have TLS entries.
func (t *certBuilder) collectTLS(ings []*networkingv1.Ingress, idx []int) {
	for _, n := range idx {
		ing := ings[n]
		for i := range ing.Spec.TLS {
			t.collectTLSEntry(ing, i)
		}
	}
}

func (t *certBuilder) collectTLSEntry(ing *networkingv1.Ingress, i int) {
	tl := &ing.Spec.TLS[i]
	t.claimTLS(ingressRef(ing), ing.Namespace, tl.Hosts, tl.SecretName, "spec.tls["+strconv.Itoa(i)+"]", "an older Ingress")
}

// claimTLS claims hosts for Secret secretName of namespace ns, for the TLS entry at field of
// ref; earlier names who claimed a host first, for the problem when one already is.
func (t *certBuilder) claimTLS(ref store.Ref, ns string, hosts []string, secretName, field, earlier string) {
	if len(hosts) == 0 || secretName == "" {
		t.problem(ref, field, "a TLS entry needs hosts and a secretName; entry ignored")
		return
	}
	ce := t.loadCert(ns, secretName)
	switch {
	case ce.secret == nil:
		t.missingRef(ref, field+".secretName", "Secret %s not found; its hosts get no certificate", ce.key)
		return
	case ce.err != "":
		t.problem(ref, field+".secretName", "Secret %s has no usable TLS key pair; its hosts get no certificate", ce.key)
		return
	}
	t.useCert(ce)
	for j, h := range hosts {
		if !validHost(h) {
			t.problem(ref, field+".hosts["+strconv.Itoa(j)+"]",
				"%s is not a valid host (a DNS name, optionally starting with *.); no certificate for it", quoteShort(h))
			continue
		}
		owner, taken := t.sniOwner[h]
		if !taken {
			t.sniOwner[h] = ce
			ce.hosts = append(ce.hosts, h)
			continue
		}
		if owner != ce {
			t.problem(ref, field+".hosts["+strconv.Itoa(j)+"]",
				"host %s is already served by Secret %s (claimed by %s); ignored", h, owner.key, earlier)
		}
	}
}

// buildCertificates emits one certificate per distinct cert+key pair. Identical pairs from
// several Secrets merge: the oldest Secret gives id and tags (ties: the smaller UID). A
// certificate equal to the last build's of the same id is that entity, so its bytes are reused.
func (t *certBuilder) buildCertificates() []*document.Certificate {
	byPair := make(map[string]*document.Certificate, len(t.certOrder))
	winner := make(map[string]*certEntry, len(t.certOrder))
	var out []*document.Certificate
	for _, ce := range t.certOrder {
		pair := ce.cert + "\x00" + ce.pem
		c, ok := byPair[pair]
		if !ok {
			c = &document.Certificate{Cert: &ce.piece.cert, Key: &ce.piece.pem}
			byPair[pair] = c
			out = append(out, c)
		}
		if w := winner[pair]; w == nil || olderSecret(ce.secret, w.secret) {
			winner[pair] = ce
			c.ID = kong.String(certificateID(ce.secret))
			c.Tags = ce.piece.tags
		}
		for _, h := range ce.hosts {
			c.SNIs = append(c.SNIs, &document.SNI{Name: kong.String(h)})
		}
	}
	for _, c := range out {
		sort.Slice(c.SNIs, func(i, j int) bool { return *c.SNIs[i].Name < *c.SNIs[j].Name })
		for _, s := range c.SNIs {
			s.Certificate = &document.CertificateRef{ID: c.ID}
		}
	}
	for _, r := range t.clientRefs {
		r.svc.ClientCertificate = &kong.Certificate{ID: byPair[r.cert.cert+"\x00"+r.cert.pem].ID}
	}
	return t.reuseCertificates(out)
}

// reuseCertificates replaces each certificate equal to the last build's of the same id by that
// one, and remembers this build's, when the engine keeps entities.
func (t *certBuilder) reuseCertificates(out []*document.Certificate) []*document.Certificate {
	if !t.keep {
		return out
	}
	prev := t.memos.certEntities
	next := make(map[string]*document.Certificate, len(out))
	for i, c := range out {
		if p := prev[*c.ID]; p != nil && sameCertificate(p, c) {
			out[i] = p
		}
		next[*c.ID] = out[i]
	}
	t.memos.certEntities = next
	return out
}

// sameCertificate compares two certificates of one id: PEMs, tags (the same Secret version's)
// and SNI names.
func sameCertificate(a, b *document.Certificate) bool {
	if *a.Cert != *b.Cert || *a.Key != *b.Key || !slices.Equal(a.Tags, b.Tags) || len(a.SNIs) != len(b.SNIs) {
		return false
	}
	for i := range a.SNIs {
		if *a.SNIs[i].Name != *b.SNIs[i].Name {
			return false
		}
	}
	return true
}

// olderSecret is KIC's order for merged certificates: creation time, then UID.
func olderSecret(a, b *corev1.Secret) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.UID < b.UID
}

// certificateID is the Secret's UID, as in KIC. A Secret without a UID (a manifest that was
// never applied), or with one that is not a UUID, gets a UUIDv5 of its namespace/name instead:
// KIC's empty or malformed id is rejected by Kong and decK (certificates with SNIs need an id).
func certificateID(s *corev1.Secret) string {
	if _, err := uuid.Parse(string(s.UID)); err == nil && len(s.UID) == 36 {
		return string(s.UID)
	}
	return uuid.NewSHA1(certIDNamespace, []byte(nsNameKey(s.Namespace, s.Name))).String()
}

// certIDNamespace is the UUIDv5 namespace of generated certificate ids (a fixed random UUID).
var certIDNamespace = uuid.MustParse("5f0c2b7e-7f4e-4c49-9d0a-2a4c3b9f61d1")

// secretData is the Secret's data with stringData merged over it, as the API server does on
// write; manifests read offline may still carry stringData.
func secretData(s *corev1.Secret) map[string][]byte {
	if len(s.StringData) == 0 {
		return s.Data
	}
	out := make(map[string][]byte, len(s.Data)+len(s.StringData))
	for k, v := range s.Data {
		out[k] = v
	}
	for k, v := range s.StringData {
		out[k] = []byte(v)
	}
	return out
}

// certMemos are the TLS certificates kept between builds.
// certBuilder is the certificate builders' view of one build (TLS here, CA in certca.go): the
// build context, the pieces they keep, and what this build claimed, which assemble hands to
// the families that claim certificates or resolve a Service's.
type certBuilder struct {
	*translation
	memos      *certMemos
	ca         *caBuilder            // the CA certificates (certca.go)
	certs      map[string]*certEntry // by "namespace/name" of the Secret
	certOrder  []*certEntry          // Secrets that produce certificates, in claim order
	sniOwner   map[string]*certEntry // TLS host → the Secret serving it
	clientRefs []clientCertRef       // services whose client_certificate awaits the merged id
}

type certMemos struct {
	certs        *memo[*corev1.Secret, *certPiece]
	certEntities map[string]*document.Certificate // the last build's certificates, by id
}
