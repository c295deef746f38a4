package store

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	configurationv1alpha1 "github.com/kongsync/kongsync/internal/apis/configuration/v1alpha1"
	configurationv1beta1 "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	incubatorv1alpha1 "github.com/kongsync/kongsync/internal/apis/incubator/v1alpha1"
)

// Refusal is one reason the API server would have refused an object of a manifest: its
// metadata, a field its validation requires or forbids, a rule of its CRD's schema. Manifests
// never met an API server and the live path never sees such objects, so the manifest reader
// (ReadPaths) reports each as a problem: `dump` and `diff -f` exit with status 1, as they do for
// every problem. The object itself is still translated (see checkObjects). Its fields mean what
// translator.Problem's do.
type Refusal struct {
	Object Ref
	Field  string
	Reason string
}

// String renders a refusal the way problems are rendered: "Kind namespace/name: field: reason".
func (r Refusal) String() string {
	if r.Field == "" {
		return fmt.Sprintf("%s: %s", r.Object, r.Reason)
	}
	return fmt.Sprintf("%s: %s: %s", r.Object, r.Field, r.Reason)
}

// refusedSuffix ends every refusal's reason: why a manifest's object is a problem at all.
const refusedSuffix = "; the API server would refuse the %s"

// maxRefusalReason bounds a reason, as the translator bounds a problem's: values from manifests
// can be any length.
const maxRefusalReason = 1024

// check returns what the API server would refuse in obj (nil when it would store it) and the
// notes about parts of it that translate to nothing. Objects of kinds the store does not hold
// are not checked (KindOf fails; Load reports them).
func check(obj Object, cache *metaCache) ([]Refusal, []string) {
	kind, err := KindOf(obj)
	if err != nil {
		return nil, nil
	}
	c := checker{}
	c.add(validateMeta(obj, !clusterScoped[string(kind)], nameRule(kind), cache))
	switch o := obj.(type) {
	case *networkingv1.Ingress:
		c.add(validateIngress(o))
		c.notes = ingressNotes(o)
	case *networkingv1.IngressClass:
		c.add(validateIngressClass(o))
	case *corev1.Service:
		c.add(validateService(o))
	case *discoveryv1.EndpointSlice:
		c.add(validateEndpointSlice(o))
	case *corev1.Secret:
		c.add(validateSecret(o))
	case *configurationv1.KongPlugin:
		c.add(validatePluginFields(&o.PluginFields))
	case *configurationv1.KongClusterPlugin:
		c.add(validatePluginFields(&o.PluginFields))
	case *configurationv1.KongConsumer:
		c.add(validateConsumer(o))
	case *configurationv1beta1.TCPIngress:
		c.add(validateStreamIngress(o.StreamRules()))
	case *configurationv1beta1.UDPIngress:
		c.add(validateStreamIngress(o.StreamRules()))
	case *configurationv1alpha1.KongVault:
		c.add(validateVault(o))
	case *configurationv1alpha1.KongLicense:
		c.add(validateLicense(o))
	case *configurationv1alpha1.KongCustomEntity:
		c.add(validateCustomEntity(o))
	case *incubatorv1alpha1.KongServiceFacade:
		c.add(validateFacade(o))
	}
	if len(c.errs) == 0 {
		return nil, c.notes
	}
	ref := Ref{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	out := make([]Refusal, 0, len(c.errs))
	for _, e := range c.errs {
		out = append(out, Refusal{Object: ref, Field: e.field, Reason: capRefusal(e.reason + fmt.Sprintf(refusedSuffix, kind))})
	}
	slices.SortFunc(out, func(a, b Refusal) int {
		return strings.Compare(a.Field+"\x00"+a.Reason, b.Field+"\x00"+b.Reason)
	})
	return slices.Compact(out), c.notes
}

// nameRule is the name rule the API server applies to a kind: Services are DNS-1123 labels
// (KEP-5311's relaxed rule, GA and locked on since Kubernetes 1.37; DNS-1035 labels before 1.36,
// so a name starting with a digit is refused by older servers only), Namespaces DNS-1123 labels
// (ValidateNamespaceName), every other kind kongsync reads — Ingress, IngressClass, Secret,
// EndpointSlice and all custom resources (apiextensions-apiserver validates their names with
// NameIsDNSSubdomain) — DNS-1123 subdomains.
func nameRule(kind Kind) apivalidation.ValidateNameFunc {
	switch kind {
	case KindService:
		return apivalidation.NameIsDNSLabel
	case KindNamespace:
		return apivalidation.ValidateNamespaceName
	}
	return apivalidation.NameIsDNSSubdomain
}

type fieldErr struct{ field, reason string }

type checker struct {
	errs  []fieldErr
	notes []string
}

// add words apimachinery's field errors.
func (c *checker) add(errs field.ErrorList) {
	for _, e := range errs {
		c.errs = append(c.errs, fieldErr{e.Field, describeError(e)})
	}
}

// describeError words one field error without its field (the refusal names it), quoting at
// most 100 bytes of the bad value.
func describeError(e *field.Error) string {
	var b strings.Builder
	switch e.Type {
	case field.ErrorTypeInvalid, field.ErrorTypeNotSupported, field.ErrorTypeDuplicate:
		b.WriteString(strings.ToLower(e.Type.String()[:1]) + e.Type.String()[1:])
		b.WriteString(" " + quoteValue(e.BadValue))
	case field.ErrorTypeRequired:
		b.WriteString("required")
	default:
		b.WriteString(strings.ToLower(e.Type.String()))
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}

func quoteValue(v any) string {
	switch x := v.(type) {
	case string:
		return quoteShort(x)
	case *string:
		if x != nil {
			return quoteShort(*x)
		}
	case int, int32, int64:
		return fmt.Sprint(x)
	}
	return quoteShort(fmt.Sprint(v))
}

// quoteShort quotes a user's value, cut to its first 100 bytes (at a rune boundary) with its
// length said, so that a huge value cannot make a huge line.
func quoteShort(s string) string {
	const limit = 100
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

func capRefusal(reason string) string {
	if len(reason) <= maxRefusalReason {
		return reason
	}
	cut := maxRefusalReason
	for cut > 0 && !utf8.RuneStart(reason[cut]) {
		cut--
	}
	return reason[:cut] + fmt.Sprintf("... (cut; %d bytes in all)", len(reason))
}
