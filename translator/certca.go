package translator

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/kong/go-kong/kong"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kongsync/kongsync/store"
)

// caCertLabel marks a Secret or ConfigMap as a CA certificate for Kong (ca_certificates entity).
const caCertLabel = "konghq.com/ca-cert"

// caCertificates emits a CA certificate for every Secret and every ConfigMap labelled
// konghq.com/ca-cert: "true", as KIC does. Its data needs an "id" (the entity id services
// reference; unlike KIC, it must be a UUID, which Kong requires) and one PEM CA certificate
// under "cert" or "ca.crt". Kong keeps both the id and the certificate unique, so both are
// global names: objects sharing one, in any namespaces, leave it to the oldest (then namespace,
// then name, then a Secret before a ConfigMap, KIC's order), and the others are skipped with a
// problem naming it (KIC sends them all, and Kong rejects the configuration). A Service trusts
// a CA certificate only through the object it names (resolveServiceCerts), never through
// another namespace's object that took the id. With Options.Now, a certificate expired at that
// time is left out with a problem, as KIC leaves it out (unexpired).
func (t *caBuilder) caCertificates() []*kong.CACertificate {
	ca := piece(t.translation, t.memos.allCACerts, struct{}{}, t.caCertificatesOf)
	t.caCerts = t.unexpired(ca)
	return t.caCerts.list
}

// caCerts is the piece caCertificates is: the CA certificates, the object each id belongs to,
// and the older object each skipped one lost its id or certificate to.
type caCerts struct {
	list     []*kong.CACertificate
	owners   map[string]store.Ref    // the objects whose CA certificates are in the list, by id
	lost     map[store.Ref]store.Ref // skipped object -> the older one holding its id or certificate
	notAfter map[string]time.Time    // each listed certificate's expiry, by id
}

// caClaim is a CA certificate Secret or ConfigMap with its piece.
type caClaim struct {
	obj metav1.Object
	ref store.Ref
	p   *caCertPiece
}

func (t *caBuilder) caClaims() []caClaim {
	var claims []caClaim
	for _, sec := range t.snap.Secrets() {
		if sec.Labels[caCertLabel] != "true" {
			continue
		}
		p := piece(t.translation, t.memos.caCerts, sec, func() *caCertPiece {
			return t.caCertPiece(secretRef(sec), objectTags(store.KindSecret, sec), func(k string) ([]byte, bool) {
				v, ok := sec.Data[k]
				return v, ok
			})
		})
		claims = append(claims, caClaim{sec, secretRef(sec), p})
	}
	for _, cm := range t.snap.ConfigMaps() {
		if cm.Labels[caCertLabel] != "true" {
			continue
		}
		p := piece(t.translation, t.memos.caConfigMaps, cm, func() *caCertPiece {
			return t.caCertPiece(configMapRef(cm), objectTags(store.KindConfigMap, cm), func(k string) ([]byte, bool) {
				v, ok := cm.Data[k]
				return []byte(v), ok
			})
		})
		claims = append(claims, caClaim{cm, configMapRef(cm), p})
	}
	return slices.DeleteFunc(claims, func(c caClaim) bool { return c.p.id == "" })
}

func (t *caBuilder) caCertificatesOf() *caCerts {
	claims := t.caClaims()
	// In claim order, the first holder of an id, then of a certificate, keeps it: linear after
	// the sort, and each loser's problem names the one winner.
	slices.SortStableFunc(claims, func(a, b caClaim) int { return compareCAObjects(a.obj, b.obj) })
	out := &caCerts{owners: map[string]store.Ref{}, lost: map[store.Ref]store.Ref{}, notAfter: map[string]time.Time{}}
	byID := make(map[string]store.Ref, len(claims))
	byCert := make(map[string]store.Ref, len(claims))
	for _, c := range claims {
		kind := c.ref.Kind
		if w, ok := byID[c.p.id]; ok {
			t.problem(c.ref, "data[id]", "id %q is already used by the older CA certificate %s; %s skipped", c.p.id, w, kind)
			out.lost[c.ref] = w
			continue
		}
		byID[c.p.id] = c.ref
		if c.p.err != "" {
			t.problem(c.ref, "data", "invalid CA certificate: %s; %s skipped", c.p.err, kind)
			continue
		}
		if w, ok := byCert[*c.p.entity.Cert]; ok {
			t.problem(c.ref, "data", "its certificate is already the CA certificate of the older %s, and Kong keeps "+
				"CA certificates unique; %s skipped", w, kind)
			out.lost[c.ref] = w
			continue
		}
		byCert[*c.p.entity.Cert] = c.ref
		out.owners[c.p.id] = c.ref
		out.notAfter[c.p.id] = c.p.notAfter
		out.list = append(out.list, c.p.entity)
	}
	slices.SortFunc(out.list, func(a, b *kong.CACertificate) int { return strings.Compare(*a.ID, *b.ID) })
	return out
}

// caCertPiece is a CA certificate object's piece: its id, checked, and its entity with its
// expiry, or why its certificate is invalid (reported only for the object that wins its id).
type caCertPiece struct {
	id, err  string
	entity   *kong.CACertificate
	notAfter time.Time
}

// caCertPiece reads a CA certificate Secret's or ConfigMap's data through get.
func (t *caBuilder) caCertPiece(ref store.Ref, tags []*string, get func(string) ([]byte, bool)) *caCertPiece {
	idb, ok := get("id")
	if !ok {
		t.problem(ref, "data[id]", "a CA certificate %s needs an id; %s skipped", ref.Kind, ref.Kind)
		return &caCertPiece{}
	}
	id := string(idb)
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		t.problem(ref, "data[id]", "id %q is not a UUID, which Kong requires; %s skipped", id, ref.Kind)
		return &caCertPiece{}
	}
	cert, notAfter, err := caCertPEM(get)
	if err != nil {
		return &caCertPiece{id: id, err: err.Error()}
	}
	return &caCertPiece{id: id, entity: &kong.CACertificate{ID: kong.String(id), Cert: kong.String(cert), Tags: tags}, notAfter: notAfter}
}

// compareCAObjects is the claim order of CA certificate objects: creation time, then
// namespace/name (a stable sort keeps Secrets before ConfigMaps on a tie, as KIC).
func compareCAObjects(a, b metav1.Object) int {
	at, bt := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if c := at.Compare(bt.Time); c != 0 {
		return c
	}
	return compareNsName(a.GetNamespace(), a.GetName(), b.GetNamespace(), b.GetName())
}

// caCertPEM checks that an object's data holds exactly one PEM CA certificate and returns it
// re-encoded, with its expiry.
func caCertPEM(get func(string) ([]byte, bool)) (string, time.Time, error) {
	raw, ok := get("cert")
	if !ok {
		if raw, ok = get("ca.crt"); !ok {
			return "", time.Time{}, errors.New(`neither "cert" nor "ca.crt" key exists`)
		}
	}
	rest := bytes.TrimSpace(raw)
	var der []byte
	for len(rest) > 0 {
		block, r := pem.Decode(rest)
		switch {
		case block == nil:
			return "", time.Time{}, errors.New("invalid PEM block")
		case block.Type != "CERTIFICATE":
			return "", time.Time{}, errors.New("invalid PEM block type")
		case der != nil:
			return "", time.Time{}, errors.New("multiple PEM certificates found")
		}
		der, rest = block.Bytes, bytes.TrimSpace(r)
	}
	if der == nil {
		return "", time.Time{}, errors.New("invalid PEM block")
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return "", time.Time{}, errors.New("failed to parse certificate")
	}
	if !c.IsCA {
		return "", time.Time{}, errors.New("certificate is missing the 'CA' basic constraint")
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), c.NotAfter, nil
}

// caBuilder is the CA certificate builder's view of one build: the build context, the pieces it
// keeps, and the CA certificates this build outputs, which Services' annotations resolve to.
type caBuilder struct {
	*translation
	memos   *caMemos
	caCerts *caCerts // the CA certificates in the output, their objects
	// nextExpiry is the earliest expiry among the CA certificates in the output (zero: none,
	// or no Options.Now): the build to come after it leaves that certificate out.
	nextExpiry time.Time
}

// caMemos are the CA certificates kept between builds.
type caMemos struct {
	caCerts      *memo[*corev1.Secret, *caCertPiece]
	caConfigMaps *memo[*corev1.ConfigMap, *caCertPiece]
	allCACerts   *memo[struct{}, *caCerts] // caCertificates, whole
}

// unexpired is KIC's expiry check of CA certificates (Secrets' and ConfigMaps' alike): with
// Options.Now, a certificate whose NotAfter is before the build's time is left out with a
// problem, and is no owner of its id, so the Services naming it trust nothing through it (its
// id stays claimed: KIC picks an id's holder before checking its certificate). It runs on every
// build, outside the memoised CA certificates, since time moves without any object changing;
// it records the earliest expiry kept in nextExpiry. Linear in the CA certificates.
func (t *caBuilder) unexpired(ca *caCerts) *caCerts {
	t.nextExpiry = time.Time{}
	if t.opts.Now == nil {
		return ca
	}
	now := t.opts.Now()
	var out *caCerts
	for i, c := range ca.list {
		na := ca.notAfter[*c.ID]
		if !now.After(na) {
			if t.nextExpiry.IsZero() || na.Before(t.nextExpiry) {
				t.nextExpiry = na
			}
			if out != nil {
				out.list = append(out.list, c)
			}
			continue
		}
		if out == nil { // the first expired one: copy what came before it
			out = &caCerts{list: append([]*kong.CACertificate(nil), ca.list[:i]...), lost: ca.lost,
				notAfter: ca.notAfter, owners: make(map[string]store.Ref, len(ca.owners))}
			for id, r := range ca.owners {
				out.owners[id] = r
			}
		}
		owner := ca.owners[*c.ID]
		delete(out.owners, *c.ID)
		t.problem(owner, "data", "invalid CA certificate: expired at %s; %s skipped",
			na.UTC().Format(time.RFC3339), owner.Kind)
	}
	if out == nil {
		return ca
	}
	return out
}
