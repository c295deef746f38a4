package store

import (
	"maps"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	portProtocols = []string{"SCTP", "TCP", "UDP"}
	serviceTypes  = []string{"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}
)

// validateService is core/validation.validateService's checks of what kongsync reads: ports
// required unless the Service is headless or ExternalName; an ExternalName's externalName (a
// DNS-1123 subdomain, a trailing dot allowed); each port's name (required when there are
// several, a DNS-1123 label, unique), number, protocol (default TCP), targetPort (default the
// port) and appProtocol; the selector's labels; the type (default ClusterIP).
func validateService(svc *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	sp := field.NewPath("spec")
	typ := string(svc.Spec.Type)
	if typ == "" {
		typ = "ClusterIP"
	}
	headless := svc.Spec.ClusterIP == corev1.ClusterIPNone || len(svc.Spec.ClusterIPs) > 0 && svc.Spec.ClusterIPs[0] == corev1.ClusterIPNone
	if len(svc.Spec.Ports) == 0 && !headless && typ != "ExternalName" {
		errs = append(errs, field.Required(sp.Child("ports"), ""))
	}
	if typ == "ExternalName" {
		if cname := strings.TrimSuffix(svc.Spec.ExternalName, "."); cname == "" {
			errs = append(errs, field.Required(sp.Child("externalName"), ""))
		} else {
			for _, m := range validation.IsDNS1123Subdomain(cname) {
				errs = append(errs, field.Invalid(sp.Child("externalName"), cname, m))
			}
		}
	}
	names := map[string]bool{}
	for i := range svc.Spec.Ports {
		errs = append(errs, validateServicePort(&svc.Spec.Ports[i], len(svc.Spec.Ports) > 1, names, sp.Child("ports").Index(i))...)
	}
	errs = append(errs, metav1validation.ValidateLabels(svc.Spec.Selector, sp.Child("selector"))...)
	if !contains(serviceTypes, typ) {
		errs = append(errs, field.NotSupported(sp.Child("type"), typ, serviceTypes))
	}
	return errs
}

// validateServicePort is core/validation.validateServicePort.
func validateServicePort(p *corev1.ServicePort, requireName bool, names map[string]bool, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case requireName && p.Name == "":
		errs = append(errs, field.Required(fp.Child("name"), ""))
	case p.Name != "":
		for _, m := range validation.IsDNS1123Label(p.Name) {
			errs = append(errs, field.Invalid(fp.Child("name"), p.Name, m))
		}
		if names[p.Name] {
			errs = append(errs, field.Duplicate(fp.Child("name"), p.Name))
		}
		names[p.Name] = true
	}
	for _, m := range validation.IsValidPortNum(int(p.Port)) {
		errs = append(errs, field.Invalid(fp.Child("port"), p.Port, m))
	}
	if p.Protocol != "" && !contains(portProtocols, string(p.Protocol)) {
		errs = append(errs, field.NotSupported(fp.Child("protocol"), p.Protocol, portProtocols))
	}
	if t := p.TargetPort; t != intstr.FromInt32(0) && t != intstr.FromString("") { // else defaulted to the port
		errs = append(errs, portNumOrName(t, fp.Child("targetPort"))...)
	}
	if p.AppProtocol != nil {
		for _, m := range validation.IsQualifiedName(*p.AppProtocol) {
			errs = append(errs, field.Invalid(fp.Child("appProtocol"), *p.AppProtocol, m))
		}
	}
	return errs
}

// portNumOrName is core/validation.ValidatePortNumOrName.
func portNumOrName(port intstr.IntOrString, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.Type == intstr.Int {
		for _, m := range validation.IsValidPortNum(port.IntValue()) {
			errs = append(errs, field.Invalid(fp, port.IntValue(), m))
		}
		return errs
	}
	for _, m := range validation.IsValidPortName(port.StrVal) {
		errs = append(errs, field.Invalid(fp, port.StrVal, m))
	}
	return errs
}

// validateEndpointSlice is discovery/validation.ValidateEndpointSlice: addressType required
// and known; at most 1000 endpoints of 1 to 100 addresses each, every address of the slice's
// type (IPv4 and IPv6 ones not unspecified, loopback or link-local: ValidateEndpointIP; FQDN
// ones fully qualified); endpoint hostnames DNS-1123 labels; port names DNS-1123 labels and
// unique, protocols known (default TCP), appProtocols qualified names.
func validateEndpointSlice(es *discoveryv1.EndpointSlice) field.ErrorList {
	var errs field.ErrorList
	at := string(es.AddressType)
	switch at {
	case "":
		errs = append(errs, field.Required(field.NewPath("addressType"), ""))
	case "IPv4", "IPv6", "FQDN":
	default:
		errs = append(errs, field.NotSupported(field.NewPath("addressType"), at, []string{"FQDN", "IPv4", "IPv6"}))
	}
	ep := field.NewPath("endpoints")
	if len(es.Endpoints) > 1000 {
		return append(errs, field.TooMany(ep, len(es.Endpoints), 1000))
	}
	for i, e := range es.Endpoints {
		ap := ep.Index(i).Child("addresses")
		switch n := len(e.Addresses); {
		case n == 0:
			errs = append(errs, field.Required(ap, "must contain at least 1 address"))
		case n > 100:
			errs = append(errs, field.TooMany(ap, n, 100))
		}
		for j, a := range e.Addresses {
			errs = append(errs, endpointAddress(at, a, ap.Index(j))...)
		}
		if e.Hostname != nil {
			for _, m := range validation.IsDNS1123Label(*e.Hostname) {
				errs = append(errs, field.Invalid(ep.Index(i).Child("hostname"), *e.Hostname, m))
			}
		}
	}
	names := map[string]bool{}
	for i, p := range es.Ports {
		pp := field.NewPath("ports").Index(i)
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		if name != "" {
			for _, m := range validation.IsDNS1123Label(name) {
				errs = append(errs, field.Invalid(pp.Child("name"), name, m))
			}
		}
		if names[name] {
			errs = append(errs, field.Duplicate(pp.Child("name"), name))
		}
		names[name] = true
		if p.Protocol != nil && !contains(portProtocols, string(*p.Protocol)) {
			errs = append(errs, field.NotSupported(pp.Child("protocol"), *p.Protocol, portProtocols))
		}
		if p.AppProtocol != nil {
			for _, m := range validation.IsQualifiedName(*p.AppProtocol) {
				errs = append(errs, field.Invalid(pp.Child("appProtocol"), *p.AppProtocol, m))
			}
		}
	}
	return errs
}

// endpointAddress checks one address against the slice's address type.
func endpointAddress(addressType, a string, p *field.Path) field.ErrorList {
	if addressType == "FQDN" {
		return validation.IsFullyQualifiedDomainName(p, a)
	}
	if addressType != "IPv4" && addressType != "IPv6" {
		return nil // the address type itself is refused
	}
	ip, err := netip.ParseAddr(a)
	if err != nil || ip.Zone() != "" {
		return field.ErrorList{field.Invalid(p, a, "must be a valid IP address")}
	}
	switch {
	case addressType == "IPv4" && !ip.Is4():
		return field.ErrorList{field.Invalid(p, a, "must be an IPv4 address")}
	case addressType == "IPv6" && !(ip.Is6() && !ip.Is4In6()):
		return field.ErrorList{field.Invalid(p, a, "must be an IPv6 address")}
	case ip.IsUnspecified():
		return field.ErrorList{field.Invalid(p, a, "may not be unspecified ("+a+")")}
	case ip.IsLoopback():
		return field.ErrorList{field.Invalid(p, a, "may not be in the loopback range (127.0.0.0/8, ::1/128)")}
	case ip.IsLinkLocalUnicast():
		return field.ErrorList{field.Invalid(p, a, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")}
	case ip.IsLinkLocalMulticast():
		return field.ErrorList{field.Invalid(p, a, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")}
	}
	return nil
}

// secretRequiredKeys are the data keys core/validation.ValidateSecret requires by type (for
// basic-auth, either key).
var secretRequiredKeys = map[corev1.SecretType][]string{
	corev1.SecretTypeTLS:              {corev1.TLSCertKey, corev1.TLSPrivateKeyKey},
	corev1.SecretTypeDockercfg:        {corev1.DockerConfigKey},
	corev1.SecretTypeDockerConfigJson: {corev1.DockerConfigJsonKey},
	corev1.SecretTypeSSHAuth:          {corev1.SSHAuthPrivateKey},
}

// validateSecret is core/validation.ValidateSecret on the data the API server would store
// (SecretData: stringData merged into data): keys valid ConfigMap keys (each named in the field
// the manifest wrote it in), at most 1 MiB of data, and the keys its type requires. Values are
// never quoted.
func validateSecret(s *corev1.Secret) field.ErrorList {
	var errs field.ErrorList
	dp := field.NewPath("data")
	for k := range s.Data {
		errs = append(errs, secretKeyErrs(k, dp)...)
	}
	for k := range s.StringData {
		if _, dup := s.Data[k]; !dup {
			errs = append(errs, secretKeyErrs(k, field.NewPath("stringData"))...)
		}
	}
	data := SecretData(s)
	size := 0
	for _, v := range data {
		size += len(v)
	}
	if size > corev1.MaxSecretSize {
		errs = append(errs, field.TooLong(dp, "", corev1.MaxSecretSize))
	}
	has := func(k string) bool { _, ok := data[k]; return ok }
	if s.Type == corev1.SecretTypeBasicAuth && !has(corev1.BasicAuthUsernameKey) && !has(corev1.BasicAuthPasswordKey) {
		errs = append(errs, field.Required(dp.Key(corev1.BasicAuthUsernameKey), "or "+corev1.BasicAuthPasswordKey))
	}
	if s.Type == corev1.SecretTypeServiceAccountToken && s.Annotations[corev1.ServiceAccountNameKey] == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
	}
	for _, k := range secretRequiredKeys[s.Type] {
		if !has(k) {
			errs = append(errs, field.Required(dp.Key(k), "a "+string(s.Type)+" Secret needs it"))
		}
	}
	return errs
}

// SecretData is a Secret's data as the API server stores it: stringData merged over data,
// stringData winning (the API server's conversion of a written Secret does this; a Secret read
// back never has stringData). Manifests may carry stringData; informers never do, and the
// reader merges it (storeStringData), so only Secrets built by hand still need this.
func SecretData(s *corev1.Secret) map[string][]byte {
	if len(s.StringData) == 0 {
		return s.Data
	}
	out := maps.Clone(s.Data)
	if out == nil {
		out = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		out[k] = []byte(v)
	}
	return out
}

// storeStringData makes a Secret read from a manifest hold what the API server would store:
// its stringData merged into data, and no stringData. The reader does this for every object it
// returns, after the checks (which name stringData's keys as written), so that everything after
// it (TLS certificates, CA certificates, credentials, plugin configs) reads data alone.
func storeStringData(obj Object) {
	if s, ok := obj.(*corev1.Secret); ok && len(s.StringData) > 0 {
		s.Data, s.StringData = SecretData(s), nil
	}
}

func secretKeyErrs(k string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, m := range validation.IsConfigMapKey(k) {
		errs = append(errs, field.Invalid(p.Key(k), k, m))
	}
	return errs
}
