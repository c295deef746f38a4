package translator

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/store"
)

// caCertLabel marks a Secret as a CA certificate for Kong (ca_certificates entity).
const caCertLabel = "konghq.com/ca-cert"

// caCertificates emits a CA certificate for every Secret labelled konghq.com/ca-cert: "true",
// as KIC does. Its data needs an "id" (the entity id services reference; unlike KIC, it must be
// a UUID, which Kong requires) and one PEM CA certificate under "cert" or "ca.crt". Kong keeps
// both the id and the certificate unique, so both are global names: Secrets sharing one, in
// any namespaces, leave it to the oldest (then namespace, then name), and the others are
// skipped with a problem naming it (KIC sends them all, and Kong rejects the configuration). A
// Service trusts a CA certificate only through the Secret it names (resolveServiceCerts), never
// through another namespace's Secret that took the id. Unlike KIC, expiry is not checked: the
// translator reads no clock.
func (t *caBuilder) caCertificates() []*kong.CACertificate {
	ca := piece(t.translation, t.memos.allCACerts, struct{}{}, t.caCertificatesOf)
	t.caCerts = ca
	return ca.list
}

// caCerts is the piece of the Secret kind caCertificates is: the CA certificates, the Secret
// each id belongs to, and the older Secret each skipped one lost its id or certificate to.
type caCerts struct {
	list   []*kong.CACertificate
	owners map[string]store.Ref    // the Secrets whose CA certificates are in the list, by id
	lost   map[store.Ref]store.Ref // skipped Secret -> the older one holding its id or certificate
}

// caClaim is a CA certificate Secret with its piece.
type caClaim struct {
	sec *corev1.Secret
	p   *caCertPiece
}

func (t *caBuilder) caCertificatesOf() *caCerts {
	var claims []caClaim
	for _, sec := range t.snap.Secrets() {
		if sec.Labels[caCertLabel] != "true" {
			continue
		}
		p := piece(t.translation, t.memos.caCerts, sec, func() *caCertPiece { return t.caCertPiece(sec) })
		if p.id != "" {
			claims = append(claims, caClaim{sec, p})
		}
	}
	// In claim order, the first holder of an id, then of a certificate, keeps it: linear after
	// the sort, and each loser's problem names the one winner.
	slices.SortFunc(claims, func(a, b caClaim) int { return compareCASecrets(a.sec, b.sec) })
	out := &caCerts{owners: map[string]store.Ref{}, lost: map[store.Ref]store.Ref{}}
	byID := make(map[string]*corev1.Secret, len(claims))
	byCert := make(map[string]*corev1.Secret, len(claims))
	for _, c := range claims {
		ref := secretRef(c.sec)
		if w := byID[c.p.id]; w != nil {
			t.problem(ref, "data[id]", "id %q is already used by the older CA certificate %s; Secret skipped", c.p.id, secretRef(w))
			out.lost[ref] = secretRef(w)
			continue
		}
		byID[c.p.id] = c.sec
		if c.p.err != "" {
			t.problem(ref, "data", "invalid CA certificate: %s; Secret skipped", c.p.err)
			continue
		}
		if w := byCert[*c.p.entity.Cert]; w != nil {
			t.problem(ref, "data", "its certificate is already the CA certificate of the older %s, and Kong keeps "+
				"CA certificates unique; Secret skipped", secretRef(w))
			out.lost[ref] = secretRef(w)
			continue
		}
		byCert[*c.p.entity.Cert] = c.sec
		out.owners[c.p.id] = ref
		out.list = append(out.list, c.p.entity)
	}
	slices.SortFunc(out.list, func(a, b *kong.CACertificate) int { return strings.Compare(*a.ID, *b.ID) })
	return out
}

// caCertPiece is a CA certificate Secret's piece: its id, checked, and its entity, or why its
// certificate is invalid (reported only for the Secret that wins its id).
type caCertPiece struct {
	id, err string
	entity  *kong.CACertificate
}

func (t *caBuilder) caCertPiece(sec *corev1.Secret) *caCertPiece {
	idb, ok := sec.Data["id"]
	if !ok {
		t.problem(secretRef(sec), "data[id]", "a CA certificate Secret needs an id; Secret skipped")
		return &caCertPiece{}
	}
	id := string(idb)
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		t.problem(secretRef(sec), "data[id]", "id %q is not a UUID, which Kong requires; Secret skipped", id)
		return &caCertPiece{}
	}
	cert, err := caCertPEM(sec)
	if err != nil {
		return &caCertPiece{id: id, err: err.Error()}
	}
	return &caCertPiece{id: id, entity: &kong.CACertificate{ID: kong.String(id), Cert: kong.String(cert), Tags: objectTags(store.KindSecret, sec)}}
}

// compareCASecrets is the claim order of CA certificate Secrets: creation time, then
// namespace/name.
func compareCASecrets(a, b *corev1.Secret) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return compareNsName(a.Namespace, a.Name, b.Namespace, b.Name)
}

// caCertPEM checks that a Secret holds exactly one PEM CA certificate and returns it re-encoded.
func caCertPEM(sec *corev1.Secret) (string, error) {
	raw, ok := sec.Data["cert"]
	if !ok {
		if raw, ok = sec.Data["ca.crt"]; !ok {
			return "", errors.New(`neither "cert" nor "ca.crt" key exists`)
		}
	}
	rest := bytes.TrimSpace(raw)
	var der []byte
	for len(rest) > 0 {
		block, r := pem.Decode(rest)
		switch {
		case block == nil:
			return "", errors.New("invalid PEM block")
		case block.Type != "CERTIFICATE":
			return "", errors.New("invalid PEM block type")
		case der != nil:
			return "", errors.New("multiple PEM certificates found")
		}
		der, rest = block.Bytes, bytes.TrimSpace(r)
	}
	if der == nil {
		return "", errors.New("invalid PEM block")
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return "", errors.New("failed to parse certificate")
	}
	if !c.IsCA {
		return "", errors.New("certificate is missing the 'CA' basic constraint")
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), nil
}

// caBuilder is the CA certificate builder's view of one build: the build context, the pieces it
// keeps, and the CA certificates this build outputs, which Services' annotations resolve to.
type caBuilder struct {
	*translation
	memos   *caMemos
	caCerts *caCerts // the CA certificates in the output, their Secrets
}

// caMemos are the CA certificates kept between builds.
type caMemos struct {
	caCerts    *memo[*corev1.Secret, *caCertPiece]
	allCACerts *memo[struct{}, *caCerts] // caCertificates, whole
}
