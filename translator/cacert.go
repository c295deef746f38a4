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
// a UUID, which Kong requires) and one PEM CA certificate under "cert" or "ca.crt". Secrets sharing an id: the oldest wins (then namespace,
// then name). Unlike KIC, expiry is not checked: the translator reads no clock.
func (t *translation) caCertificates() []*kong.CACertificate {
	ca := piece(t, t.memos.allCACerts, struct{}{}, t.caCertificatesOf)
	t.caCertIDs = ca.ids
	return ca.list
}

// caCerts is the piece of the Secret kind caCertificates is: the CA certificates and their ids.
type caCerts struct {
	list []*kong.CACertificate
	ids  map[string]bool
}

func (t *translation) caCertificatesOf() *caCerts {
	known := map[string]bool{}
	winners := map[string]*corev1.Secret{}
	pieces := map[*corev1.Secret]*caCertPiece{}
	var ids []string
	for _, sec := range t.snap.Secrets() {
		if sec.Labels[caCertLabel] != "true" {
			continue
		}
		p := piece(t, t.memos.caCerts, sec, func() *caCertPiece { return t.caCertPiece(sec) })
		if p.id == "" {
			continue
		}
		pieces[sec] = p
		w, seen := winners[p.id]
		if !seen {
			winners[p.id] = sec
			ids = append(ids, p.id)
			continue
		}
		loser := sec
		if olderCASecret(sec, w) {
			winners[p.id], loser = sec, w
		}
		t.problem(secretRef(loser), "data[id]", "id %q is used by an older CA certificate Secret; Secret skipped", p.id)
	}
	sort.Strings(ids)
	out := make([]*kong.CACertificate, 0, len(ids))
	for _, id := range ids {
		sec := winners[id]
		p := pieces[sec]
		if p.err != "" {
			t.problem(secretRef(sec), "data", "invalid CA certificate: %s; Secret skipped", p.err)
			continue
		}
		known[id] = true
		out = append(out, p.entity)
	}
	return &caCerts{list: out, ids: known}
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
