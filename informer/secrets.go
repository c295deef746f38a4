package informer

import (
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kongsync/kongsync/store"
)

// Secret caching policy (documented in docs/operations.md): a Secret's data is kept in memory
// only if the translator may read it, that is if it is
//   - of type kubernetes.io/tls (Ingress TLS, Service client certificates),
//   - labelled konghq.com/ca-cert: "true" (CA certificates, as KIC),
//   - labelled konghq.com/credential (KongConsumer credentials; KIC 3 requires the label), or
//   - referenced by a watched Ingress (spec.tls[].secretName), Service (the
//     konghq.com/client-cert and konghq.com/ca-certificates-secrets annotations), KongPlugin or
//     KongClusterPlugin (configFrom and configPatches Secret references).
// The first three are listed and watched in full by informers whose server-side selectors match
// exactly them (secretsources.go); a metadata-only informer holds every Secret's name and
// resourceVersion, so the data of the others is never transferred unless a reference makes the
// controller GET it (again whenever its resourceVersion moves). Unreferenced ones never enter
// the store.

// Labels that make a Secret relevant whatever references it, as in KIC.
const (
	// CACertLabel marks a Secret holding a CA certificate for Kong.
	CACertLabel = "konghq.com/ca-cert"
	// CredentialLabel marks a Secret holding a KongConsumer credential (its value is the type).
	CredentialLabel = "konghq.com/credential"
)

// Service annotations that name Secrets in the Service's namespace.
const (
	clientCertAnnotation    = "konghq.com/client-cert"
	caCertSecretsAnnotation = "konghq.com/ca-certificates-secrets"
)

// alwaysKept reports whether a Secret's data is kept whatever references it.
func alwaysKept(s *corev1.Secret) bool {
	return s.Type == corev1.SecretTypeTLS || s.Labels[CACertLabel] == "true" || s.Labels[CredentialLabel] != ""
}

// secretRefs counts, per Secret, the objects (Ingresses, Services, KongPlugins and
// KongClusterPlugins) referencing it. It is shared by the
// handlers of several informers, hence the lock.
type secretRefs struct {
	mu      sync.Mutex
	byOwner map[store.Ref][]store.Ref
	count   map[store.Ref]int
}

func newSecretRefs() *secretRefs {
	return &secretRefs{byOwner: map[store.Ref][]store.Ref{}, count: map[store.Ref]int{}}
}

// set records the Secrets owner references now and returns those that became referenced and
// those that stopped being referenced.
func (r *secretRefs) set(owner store.Ref, secrets []store.Ref) (added, removed []store.Ref) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.byOwner[owner] {
		r.count[s]--
	}
	for _, s := range secrets {
		r.count[s]++
	}
	for _, s := range secrets {
		if r.count[s] == 1 && !contains(r.byOwner[owner], s) {
			added = append(added, s)
		}
	}
	for _, s := range r.byOwner[owner] {
		if r.count[s] <= 0 {
			delete(r.count, s)
			removed = append(removed, s)
		}
	}
	if len(secrets) == 0 {
		delete(r.byOwner, owner)
	} else {
		r.byOwner[owner] = secrets
	}
	return added, removed
}

// referenced reports whether any watched object references the Secret.
func (r *secretRefs) referenced(s store.Ref) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count[s] > 0
}

// all lists the referenced Secrets.
func (r *secretRefs) all() []store.Ref {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]store.Ref, 0, len(r.count))
	for s := range r.count {
		out = append(out, s)
	}
	return out
}

func contains(refs []store.Ref, r store.Ref) bool {
	for _, x := range refs {
		if x == r {
			return true
		}
	}
	return false
}

// ingressSecrets lists the Secrets an Ingress references, sorted and deduplicated.
func ingressSecrets(ing *networkingv1.Ingress) []store.Ref {
	var names []string
	for _, t := range ing.Spec.TLS {
		names = append(names, t.SecretName)
	}
	return secretRefList(ing.Namespace, names)
}

// serviceSecrets lists the Secrets a Service's annotations reference, sorted and deduplicated.
func serviceSecrets(svc *corev1.Service) []store.Ref {
	names := []string{svc.Annotations[clientCertAnnotation]}
	names = append(names, strings.Split(svc.Annotations[caCertSecretsAnnotation], ",")...)
	return secretRefList(svc.Namespace, names)
}

func secretRefList(namespace string, names []string) []store.Ref {
	seen := map[string]bool{}
	var out []store.Ref
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, store.Ref{Kind: store.KindSecret, Namespace: namespace, Name: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
