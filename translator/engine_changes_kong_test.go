package translator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kong/go-kong/kong"

	configurationv1 "github.com/kongsync/kongsync/internal/apis/configuration/v1"
	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

func (w *world) mutateSecret(o *corev1.Secret) string {
	m := &o.ObjectMeta
	keys := make([]string, 0, len(o.Data))
	for k := range o.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	switch n := w.r.IntN(10); {
	case n <= 1 && len(w.tlsData) > 0:
		return w.rotateCertificate(o)
	case n == 2 && len(keys) > 0:
		k := pick(w.r, keys)
		o.Data[k] = append(bytes.Clone(o.Data[k]), pick(w.r, []string{"x", "\n", "garbage"})...)
		return "data[" + k + "] appended to"
	case n == 3 && len(keys) > 0:
		k := pick(w.r, keys)
		delete(o.Data, k)
		return "data[" + k + "] removed"
	case n == 4:
		return w.setSecretData(o)
	case n == 5:
		return w.setCredentialLabel(o)
	case n == 6:
		if o.Labels[caCertLabel] == "true" {
			delete(o.Labels, caCertLabel)
			return "ca-cert label removed"
		}
		setLabel(m, caCertLabel, "true")
		return "ca-cert label"
	case n == 7:
		if o.Type == corev1.SecretTypeTLS {
			o.Type = corev1.SecretTypeOpaque
		} else {
			o.Type = corev1.SecretTypeTLS
		}
		return "type " + string(o.Type)
	case n == 8:
		return w.retime(&o.ObjectMeta, store.KindSecret)
	}
	if o.Data != nil && w.r.IntN(4) == 0 {
		o.Data = nil
		return "data removed"
	}
	setAnn(m, annTags, pick(w.r, []string{"rotated", "a,b"}))
	return "tags annotation"
}

// rotateCertificate replaces the Secret's certificate with another TLS Secret's, with its key or
// (only half a rotation) without.
func (w *world) rotateCertificate(o *corev1.Secret) string {
	src := pick(w.r, w.tlsData)
	if o.Data == nil {
		o.Data = map[string][]byte{}
	}
	if w.r.IntN(3) == 0 {
		o.Data["tls.crt"] = bytes.Clone(src["tls.crt"])
		return "tls.crt rotated (key kept)"
	}
	o.Data["tls.crt"], o.Data["tls.key"] = bytes.Clone(src["tls.crt"]), bytes.Clone(src["tls.key"])
	return "certificate rotated"
}

// setSecretData sets a key credentials or plugin configuration read to a valid, invalid or
// empty value.
func (w *world) setSecretData(o *corev1.Secret) string {
	if o.Data == nil {
		o.Data = map[string][]byte{}
	}
	k := pick(w.r, []string{"key", "username", "password", "group", "secret", "id", "config", "value"})
	v := pick(w.r, []string{fmt.Sprintf("v-%d", w.r.IntN(1000)), `{"minute": 5}`, "[1]",
		"3f1e9d1c-6a7e-4c43-a0c4-9bd0d5c1f2a1", ""})
	o.Data[k] = []byte(v)
	return fmt.Sprintf("data[%s]=%q", k, v)
}

// setCredentialLabel sets the konghq.com/credential label to a credential type (or a bogus
// one), or removes it.
func (w *world) setCredentialLabel(o *corev1.Secret) string {
	if o.Labels["konghq.com/credential"] != "" && w.r.IntN(3) == 0 {
		delete(o.Labels, "konghq.com/credential")
		return "credential label removed"
	}
	v := pick(w.r, []string{"key-auth", "basic-auth", "acl", "jwt", "hmac-auth", "bogus"})
	setLabel(&o.ObjectMeta, "konghq.com/credential", v)
	return "credential label " + v
}

func (w *world) mutateConsumer(o *configurationv1.KongConsumer) string {
	switch n := w.r.IntN(10); {
	case n == 0:
		o.Username = pick(w.r, append(slices.Clone(w.usernames), "", fmt.Sprintf("user-%d", w.r.IntN(5))))
		return fmt.Sprintf("username %q", o.Username)
	case n == 1:
		o.CustomID = pick(w.r, []string{"", "cid-1", "cid-2"})
		return fmt.Sprintf("custom_id %q", o.CustomID)
	case n == 2 || n == 3:
		if len(o.Credentials) > 0 && w.r.IntN(3) == 0 {
			i := w.r.IntN(len(o.Credentials))
			o.Credentials = slices.Delete(o.Credentials, i, i+1)
			return fmt.Sprintf("credential %d removed", i)
		}
		s := pick(w.r, w.names(store.KindSecret, o.Namespace))
		o.Credentials = append(o.Credentials, s)
		return "credential " + s + " added"
	case n == 4:
		return w.setClassAnnotation(&o.ObjectMeta)
	case n == 5:
		return w.setPluginsAnnotation(&o.ObjectMeta)
	case n == 6:
		return w.mutateConsumerGroups(o)
	case n == 7:
		o.Spec.Tags = pick(w.r, [][]string{nil, {"t1"}, {"t1", "t2"}})
		return fmt.Sprintf("spec.tags %v", o.Spec.Tags)
	case n == 8:
		if o.Spec.ControlPlaneRef != nil {
			o.Spec.ControlPlaneRef = nil
			return "controlPlaneRef removed"
		}
		o.Spec.ControlPlaneRef = &kup.ControlPlaneRef{Type: pick(w.r, []string{"kic", "konnectNamespacedRef"})}
		return "controlPlaneRef " + o.Spec.ControlPlaneRef.Type
	}
	return w.retime(&o.ObjectMeta, store.KindKongConsumer)
}

// mutateClusterPlugin toggles the global label, sets the class annotation or edits the plugin
// fields.
func (w *world) mutateClusterPlugin(o *configurationv1.KongClusterPlugin) string {
	switch w.r.IntN(5) {
	case 0:
		if o.Labels["global"] == "true" {
			delete(o.Labels, "global")
			return "global label off"
		}
		setLabel(&o.ObjectMeta, "global", "true")
		return "global label on"
	case 1:
		return w.setClassAnnotation(&o.ObjectMeta)
	}
	return w.mutatePluginFields(&o.ObjectMeta, &o.PluginFields, true)
}

func (w *world) mutatePluginFields(m *metav1.ObjectMeta, f *configurationv1.PluginFields, cluster bool) string {
	secretNS := m.Namespace
	if cluster {
		secretNS = pick(w.r, w.namespaces)
	}
	secretRef := func() configurationv1.ConfigSource {
		return configurationv1.ConfigSource{SecretValue: configurationv1.SecretValueFromSource{Namespace: secretNS,
			Secret: pick(w.r, w.names(store.KindSecret, secretNS)), Key: pick(w.r, []string{"config", "value", "key", "missing"})}}
	}
	switch w.r.IntN(9) {
	case 0, 1:
		v := pick(w.r, []string{fmt.Sprintf(`{"minute": %d}`, w.r.IntN(100)), `{"minute": 5, "policy": "local"}`,
			`{"origins": ["*"]}`, `[1]`, `not json`, `null`, ``, `{"minute": 1e400}`})
		f.Config = json.RawMessage(v)
		return fmt.Sprintf("config %q", v)
	case 2:
		f.PluginName = pick(w.r, []string{"rate-limiting", "cors", "key-auth", "acl", "correlation-id", ""})
		return fmt.Sprintf("plugin %q", f.PluginName)
	case 3:
		f.Disabled = !f.Disabled
		return fmt.Sprintf("disabled %v", f.Disabled)
	case 4:
		f.InstanceName = pick(w.r, []string{"", "shared-instance", "inst-" + m.Name})
		return fmt.Sprintf("instance_name %q", f.InstanceName)
	case 5:
		f.Protocols = pick(w.r, [][]string{nil, {"http", "https"}, {"grpc"}, {"bogus"}})
		return fmt.Sprintf("protocols %v", f.Protocols)
	case 6:
		if f.ConfigFrom != nil {
			f.ConfigFrom = nil
			return "configFrom removed"
		}
		src := secretRef()
		f.ConfigFrom = &src
		if w.r.IntN(3) > 0 {
			f.Config = nil
		}
		return "configFrom " + src.SecretValue.Secret + "/" + src.SecretValue.Key
	case 7:
		if len(f.ConfigPatches) > 0 {
			f.ConfigPatches = nil
			return "configPatches removed"
		}
		f.ConfigPatches = []configurationv1.ConfigPatch{{Path: pick(w.r, []string{"/minute", "/x/y", "bad"}), ValueFrom: secretRef()}}
		return "configPatches " + f.ConfigPatches[0].Path
	}
	if f.Ordering != nil {
		f.Ordering = nil
		return "ordering removed"
	}
	f.Ordering = &kong.PluginOrdering{Before: kong.PluginOrderingPhase{"access": {"key-auth"}}}
	return "ordering"
}

func (w *world) mutatePolicy(s *kup.KongUpstreamPolicySpec) string {
	switch w.r.IntN(7) {
	case 0:
		if w.r.IntN(4) == 0 {
			s.Algorithm = nil
			return "algorithm removed"
		}
		s.Algorithm = kong.String(pick(w.r, []string{"round-robin", "least-connections", "consistent-hashing", "latency", "bogus"}))
		return "algorithm " + *s.Algorithm
	case 1:
		v := pick(w.r, []int{10, 5, 100, 70000})
		s.Slots = &v
		return fmt.Sprintf("slots %d", v)
	case 2:
		return w.setHashOn(s)
	case 3:
		if s.HashOnFallback != nil {
			s.HashOnFallback = nil
			return "hashOnFallback removed"
		}
		s.HashOnFallback = &kup.KongUpstreamHash{QueryArg: kong.String("q")}
		return "hashOnFallback"
	case 4:
		if s.StickySessions != nil {
			s.StickySessions = nil
			return "stickySessions removed"
		}
		s.StickySessions = &kup.KongUpstreamStickySessions{Cookie: "sticky"}
		return "stickySessions"
	case 5:
		if s.Healthchecks != nil && w.r.IntN(3) == 0 {
			s.Healthchecks = nil
			return "healthchecks removed"
		}
		v := pick(w.r, []int{0, 10, 100, -1})
		if s.Healthchecks == nil {
			s.Healthchecks = &kup.KongUpstreamHealthcheck{}
		}
		s.Healthchecks.Threshold = &v
		return fmt.Sprintf("healthchecks.threshold %d", v)
	}
	return w.setActiveHealthcheck(s)
}

// setHashOn sets what the policy hashes on (header, cookie or input, maybe invalid), or removes it.
func (w *world) setHashOn(s *kup.KongUpstreamPolicySpec) string {
	switch w.r.IntN(4) {
	case 0:
		s.HashOn = nil
		return "hashOn removed"
	case 1:
		s.HashOn = &kup.KongUpstreamHash{Header: kong.String("x-user")}
	case 2:
		s.HashOn = &kup.KongUpstreamHash{Cookie: kong.String("session"), CookiePath: kong.String("/")}
	default:
		s.HashOn = &kup.KongUpstreamHash{Input: kong.String(pick(w.r, []string{"ip", "consumer", "path", "bogus"}))}
	}
	return "hashOn"
}

// setActiveHealthcheck sets an active healthcheck of a valid or invalid type and concurrency.
func (w *world) setActiveHealthcheck(s *kup.KongUpstreamPolicySpec) string {
	typ := pick(w.r, []string{"http", "https", "tcp", "bogus"})
	conc := pick(w.r, []int{1, 10, 0})
	if s.Healthchecks == nil {
		s.Healthchecks = &kup.KongUpstreamHealthcheck{}
	}
	s.Healthchecks.Active = &kup.KongUpstreamActiveHealthcheck{Type: &typ, Concurrency: &conc, HTTPPath: kong.String("/healthz")}
	return "healthchecks.active " + typ
}
