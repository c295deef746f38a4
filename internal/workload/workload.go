// Package workload generates the synthetic cluster that kongsync's benchmarks and
// cmd/genworkload use: N Ingresses, each with its own Service and EndpointSlice, optionally TLS
// Secrets, KongConsumers with key-auth credentials (in KongConsumerGroups), KongPlugins the Ingresses reference, large
// unrelated Secrets, and HTTPRoutes (with their own Services and EndpointSlices) on one Gateway. The same Config always yields the same objects, byte for
// byte, so a benchmark in-process and a manifest file on disk describe the identical workload and
// anyone can compare kongsync with another tool on it.
package workload

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// ClassName is the IngressClass every generated Ingress names (KIC's and kongsync's default).
const ClassName = "kong"

// ControllerName is what the generated IngressClass says its controller is (KIC's value, so the
// same file also drives KIC).
const ControllerName = "ingress-controllers.konghq.com/kong"

// ManagedBy labels the generated EndpointSlices. The Services have no selector, so Kubernetes'
// EndpointSlice controller leaves slices with this label alone on a real cluster.
const ManagedBy = "genworkload.kongsync.dev"

// Config says what to generate.
type Config struct {
	// Ingresses is N: each comes with one Service and one 2-endpoint EndpointSlice.
	Ingresses int
	// HTTPRoutes is how many HTTPRoutes to generate, each with its own hostname, one rule with
	// one PathPrefix match and its own Service and 2-endpoint EndpointSlice, all attached to one
	// Gateway (HTTP on port 80) of a GatewayClass of KIC's controller name. Zero: no Gateway
	// API objects at all.
	HTTPRoutes int
	// TLSSecrets is how many of the Ingresses (the first ones) get a TLS section and their own
	// kubernetes.io/tls Secret with a self-signed certificate for their host.
	TLSSecrets int
	// UnrelatedSecrets is how many Opaque Secrets no Ingress references, of SecretSize data bytes
	// each: the objects a controller must not keep in memory.
	UnrelatedSecrets int
	SecretSize       int
	// Consumers is how many KongConsumers (of class kong) to generate, each with one key-auth
	// credential in its own Secret labelled konghq.com/credential.
	Consumers int
	// ConsumerGroups is G: that many KongConsumerGroups (of class kong), group j in namespace
	// j mod Namespaces, and consumer i joins group i mod G (in its own namespace: G must be a
	// multiple of Namespaces). Zero: no groups.
	ConsumerGroups int
	// Plugins is K: that many KongPlugins (rate-limiting, each its own limit) in every namespace,
	// and Ingress i references plugin i mod K through konghq.com/plugins. Zero: no plugins.
	Plugins int
	// Namespaces spreads objects round-robin over that many namespaces. One means "default";
	// more means bench-0, bench-1, ..., whose Namespace objects are emitted first.
	Namespaces int
	// Seed varies UIDs, certificate keys and Secret data; names and structure stay the same.
	Seed int64
	// UIDs sets metadata.uid (derived from Seed and the object's ref) so that Kong ids and tags
	// derived from UIDs are stable across runs. A real apiserver replaces them on create.
	UIDs bool
}

// Defaults returns the configuration used by the benchmarks for n Ingresses.
func Defaults(n int) Config {
	return Config{Ingresses: n, Namespaces: 1, SecretSize: 256 << 10, UIDs: true}
}

// Validate rejects configurations that cannot be generated.
func (c Config) Validate() error {
	switch {
	case c.Ingresses < 0 || c.TLSSecrets < 0 || c.UnrelatedSecrets < 0 || c.SecretSize < 0 || c.Consumers < 0 || c.Plugins < 0 || c.ConsumerGroups < 0 ||
		c.HTTPRoutes < 0:
		return fmt.Errorf("counts and sizes must not be negative")
	case c.TLSSecrets > c.Ingresses:
		return fmt.Errorf("-tls-secrets %d exceeds -ingresses %d: each TLS Secret belongs to one Ingress", c.TLSSecrets, c.Ingresses)
	case c.Namespaces < 1:
		return fmt.Errorf("-namespaces must be at least 1")
	case c.ConsumerGroups%c.Namespaces != 0:
		return fmt.Errorf("-consumer-groups %d is not a multiple of -namespaces %d: a consumer joins a group of its own namespace",
			c.ConsumerGroups, c.Namespaces)
	case c.Ingresses+c.HTTPRoutes > 1<<22:
		return fmt.Errorf("-ingresses plus -httproutes (%d) is over the %d the 10.0.0.0/8 address plan allows",
			c.Ingresses+c.HTTPRoutes, 1<<22)
	}
	return nil
}

// Each calls emit with every object in manifest order: Namespaces, the IngressClass, Secrets,
// KongConsumerGroups, credential Secret and KongConsumer per consumer, KongPlugins, Service, EndpointSlice and
// Ingress per index, then (with HTTPRoutes) the GatewayClass, the Gateway and Service,
// EndpointSlice and HTTPRoute per route. It stops at the first error emit returns.
// Objects are built one at a time, so a caller that writes and forgets them uses little memory
// even with thousands of large Secrets.
func Each(c Config, emit func(runtime.Object) error) error {
	if err := c.Validate(); err != nil {
		return err
	}
	g := newGen(c)
	for i := 0; c.Namespaces > 1 && i < c.Namespaces; i++ {
		if err := emit(g.namespace(i)); err != nil {
			return err
		}
	}
	if err := emit(g.ingressClass()); err != nil {
		return err
	}
	for i := range c.TLSSecrets {
		s, err := g.tlsSecret(i)
		if err != nil {
			return err
		}
		if err := emit(s); err != nil {
			return err
		}
	}
	for i := range c.UnrelatedSecrets {
		if err := emit(g.opaqueSecret(i)); err != nil {
			return err
		}
	}
	for j := range c.ConsumerGroups {
		if err := emit(g.consumerGroup(j)); err != nil {
			return err
		}
	}
	for i := range c.Consumers {
		for _, o := range []runtime.Object{g.credentialSecret(i), g.consumer(i)} {
			if err := emit(o); err != nil {
				return err
			}
		}
	}
	for i := range c.Plugins * c.Namespaces {
		if err := emit(g.plugin(i)); err != nil {
			return err
		}
	}
	for i := range c.Ingresses {
		for _, o := range []runtime.Object{g.service(i), g.endpointSlice(i), g.ingress(i)} {
			if err := emit(o); err != nil {
				return err
			}
		}
	}
	return g.eachRoute(emit)
}

// eachRoute emits the Gateway API part of the workload, if any.
func (g *gen) eachRoute(emit func(runtime.Object) error) error {
	if g.c.HTTPRoutes == 0 {
		return nil
	}
	if err := emit(g.gatewayClass()); err != nil {
		return err
	}
	if err := emit(g.gateway()); err != nil {
		return err
	}
	for i := range g.c.HTTPRoutes {
		ns, name := g.ns(i), g.routeName(i)
		// Endpoints after the Ingresses' in the address plan.
		objs := []runtime.Object{g.serviceNamed(ns, name, i), g.sliceFor(ns, name, i, 2*(g.c.Ingresses+i)), g.httpRoute(i)}
		for _, o := range objs {
			if err := emit(o); err != nil {
				return err
			}
		}
	}
	return nil
}

// Objects returns every generated object but the Namespaces (which only Gateway API
// allowedRoutes selectors read, and the generated listeners allow routes from all namespaces),
// in manifest order, for benchmarks that load a store in-process.
func Objects(c Config) ([]runtime.Object, error) {
	var out []runtime.Object
	err := Each(c, func(o runtime.Object) error {
		if _, ok := o.(*corev1.Namespace); !ok {
			out = append(out, o)
		}
		return nil
	})
	return out, err
}

// gen holds what is derived once from a Config.
type gen struct {
	c     Config
	width int
	uidNS uuid.UUID
	stamp time.Time
}

func newGen(c Config) *gen {
	width := len(fmt.Sprint(max(c.Ingresses, c.UnrelatedSecrets, c.Consumers, c.Plugins, c.HTTPRoutes, c.ConsumerGroups) - 1))
	var seed [8]byte
	binary.BigEndian.PutUint64(seed[:], uint64(c.Seed))
	return &gen{
		c:     c,
		width: max(width, 5),
		uidNS: uuid.NewSHA1(uuid.NameSpaceOID, append([]byte("kongsync-workload/"), seed[:]...)),
		stamp: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
	}
}

// name is "prefix-000042", zero-padded so that names sort in index order.
func (g *gen) name(prefix string, i int) string {
	return fmt.Sprintf("%s-%0*d", prefix, g.width, i)
}

func (g *gen) ns(i int) string {
	if g.c.Namespaces == 1 {
		return "default"
	}
	return fmt.Sprintf("bench-%d", i%g.c.Namespaces)
}

func (g *gen) host(i int) string {
	return g.name("app", i) + "." + g.ns(i) + ".example.test"
}

// meta builds object metadata with a UID derived from kind, namespace and name.
func (g *gen) meta(kind, ns, name string, i int) metav1.ObjectMeta {
	m := metav1.ObjectMeta{
		Name:              name,
		Namespace:         ns,
		CreationTimestamp: metav1.NewTime(g.stamp.Add(time.Duration(i) * time.Second)),
	}
	if g.c.UIDs {
		m.UID = types.UID(uuid.NewSHA1(g.uidNS, []byte(kind+"/"+ns+"/"+name)).String())
	}
	return m
}

// rng returns a deterministic random stream for one purpose and index.
func (g *gen) rng(purpose string, i int) *rand.ChaCha8 {
	return rand.NewChaCha8(sha256.Sum256(fmt.Appendf(nil, "%d/%s/%d", g.c.Seed, purpose, i)))
}
