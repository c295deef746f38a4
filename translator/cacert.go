package translator

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"sort"

	"github.com/google/uuid"
	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"

	"github.com/kongsync/kongsync/store"
)

// caCertLabel marks a Secret as a CA certificate for Kong (ca_certificates entity).
const caCertLabel = "konghq.com/ca-cert"

// caCertificates emits a CA certificate for every Secret labelled konghq.com/ca-cert: "true",
// as KIC does. Its data needs an "id" (the entity id services reference; unlike KIC, it must be
// a UUID, which Kong requires) and one PEM CA certificate under "cert" or "ca.crt". An id is a
// global name: Secrets sharing one, in any namespaces, leave it to the oldest (then namespace,
// then name), and the others are skipped with a problem naming it. A Service trusts a CA
// certificate only through the Secret that holds its id (resolveServiceCerts), never through
// another namespace's Secret that took the id. Unlike KIC, expiry is not checked: the
// translator reads no clock.
func (t *translation) caCertificates() []*kong.CACertificate {
	ca := piece(t, t.memos.allCACerts, struct{}{}, t.caCertificatesOf)
	t.caCertOwners = ca.owners
	return ca.list
}

// caCerts is the piece of the Secret kind caCertificates is: the CA certificates and the
// Secret each id belongs to.
type caCerts struct {
	list []*kong.CACertificate
	// owners are the Secrets whose CA certificates are in the list, by id.
	owners map[string]store.Ref
}

func (t *translation) caCertificatesOf() *caCerts {
	winners := map[string]*corev1.Secret{}
	pieces := map[*corev1.Secret]*caCertPiece{}
	var ids []string
	var holders []*corev1.Secret
	for _, sec := range t.snap.Secrets() {
		if sec.Labels[caCertLabel] != "true" {
			continue
		}
		p := piece(t, t.memos.caCerts, sec, func() *caCertPiece { return t.caCertPiece(sec) })
		if p.id == "" {
			continue
		}
		pieces[sec] = p
		holders = append(holders, sec)
		switch w, seen := winners[p.id]; {
		case !seen:
			winners[p.id] = sec
			ids = append(ids, p.id)
		case olderCASecret(sec, w):
			winners[p.id] = sec
		}
	}
	for _, sec := range holders { // once the oldest of each id is known: linear, named once
		if w := winners[pieces[sec].id]; w != sec {
			t.problem(secretRef(sec), "data[id]", "id %q is already used by the older CA certificate %s; Secret skipped",
				pieces[sec].id, secretRef(w))
		}
	}
	sort.Strings(ids)
	out := make([]*kong.CACertificate, 0, len(ids))
	owners := make(map[string]store.Ref, len(ids))
	for _, id := range ids {
		sec := winners[id]
		p := pieces[sec]
		if p.err != "" {
			t.problem(secretRef(sec), "data", "invalid CA certificate: %s; Secret skipped", p.err)
			continue
		}
		owners[id] = secretRef(sec)
		out = append(out, p.entity)
	}
	return &caCerts{list: out, owners: owners}
}

// caCertPiece is a CA certificate Secret's piece: its id, checked, and its entity, or why its
// certificate is invalid (reported only for the Secret that wins its id).
type caCertPiece struct {
	id, err string
	entity  *kong.CACertificate
}

func (t *translation) caCertPiece(sec *corev1.Secret) *caCertPiece {
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

func olderCASecret(a, b *corev1.Secret) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return nsNameKey(a.Namespace, a.Name) < nsNameKey(b.Namespace, b.Name)
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
