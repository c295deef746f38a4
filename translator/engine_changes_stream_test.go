package translator

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kup "github.com/kongsync/kongsync/internal/apis/configuration/v1beta1"
	"github.com/kongsync/kongsync/store"
)

// streamObjects are TCPIngresses and UDPIngresses on the pool's first Services: a TCPIngress and
// a UDPIngress on the same Service port (sharing the upstream; an Ingress of the workload may use
// that port too), one TCPIngress with TLS on a pool Secret, and one of another class.
func streamObjects(pool []store.Object) []store.Object {
	var svcs []*corev1.Service
	var secret *corev1.Secret
	for _, o := range pool {
		switch o := o.(type) {
		case *corev1.Service:
			if len(o.Spec.Ports) > 0 && len(svcs) < 3 {
				svcs = append(svcs, o)
			}
		case *corev1.Secret:
			if secret == nil && len(o.Data["tls.crt"]) > 0 {
				secret = o
			}
		}
	}
	kong := func() map[string]string { return map[string]string{annIngressClass: "kong"} }
	var out []store.Object
	for i, svc := range svcs {
		be := kup.IngressBackend{ServiceName: svc.Name, ServicePort: int(svc.Spec.Ports[0].Port)}
		tcp := &kup.TCPIngress{ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Name: fmt.Sprintf("tcp-%d", i), Annotations: kong()},
			Spec: kup.TCPIngressSpec{Rules: []kup.IngressRule{{Port: 9000 + i, Backend: be}, {Port: 9100 + i, Host: "s.example.com", Backend: be}}}}
		if i == 1 && secret != nil && secret.Namespace == svc.Namespace {
			tcp.Spec.TLS = []kup.IngressTLS{{Hosts: []string{"s.example.com"}, SecretName: secret.Name}}
		}
		if i == 2 {
			tcp.Annotations[annIngressClass] = "other"
		}
		udp := &kup.UDPIngress{ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Name: fmt.Sprintf("udp-%d", i), Annotations: kong()},
			Spec: kup.UDPIngressSpec{Rules: []kup.UDPIngressRule{{Port: 9200 + i, Backend: be}}}}
		out = append(out, tcp, udp)
	}
	return out
}

// mutateStream edits a TCPIngress or UDPIngress: a rule's port, host, Service or Service port,
// a rule added or removed, TLS entries, the class, plugins or protocols annotation, its age.
func (w *world) mutateStream(o store.Object) string {
	m := o.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta)
	tcp, isTCP := o.(*kup.TCPIngress)
	udp, _ := o.(*kup.UDPIngress)
	n := 0
	if isTCP {
		n = len(tcp.Spec.Rules)
	} else {
		n = len(udp.Spec.Rules)
	}
	switch k := w.r.IntN(11); {
	case k < 4 && n > 0:
		i := w.r.IntN(n)
		var port *int
		var be *kup.IngressBackend
		if isTCP {
			port, be = &tcp.Spec.Rules[i].Port, &tcp.Spec.Rules[i].Backend
		} else {
			port, be = &udp.Spec.Rules[i].Port, &udp.Spec.Rules[i].Backend
		}
		switch k {
		case 0:
			*port = pick(w.r, []int{9000, 9001, 9100, 0, 70000})
			return fmt.Sprintf("rules[%d].port %d", i, *port)
		case 1:
			be.ServiceName = pick(w.r, w.names(store.KindService, m.Namespace))
			return fmt.Sprintf("rules[%d].backend.serviceName %s", i, be.ServiceName)
		case 2:
			be.ServicePort = pick(w.r, []int{80, 443, 8080, 9999, 0})
			return fmt.Sprintf("rules[%d].backend.servicePort %d", i, be.ServicePort)
		}
		if isTCP {
			tcp.Spec.Rules[i].Host = pick(w.r, append(slices.Clone(w.hosts), "", "bad_host!"))
			return fmt.Sprintf("rules[%d].host %q", i, tcp.Spec.Rules[i].Host)
		}
		return "no edit"
	case k == 4 && n > 0:
		if isTCP {
			tcp.Spec.Rules = slices.Delete(tcp.Spec.Rules, n-1, n)
		} else {
			udp.Spec.Rules = slices.Delete(udp.Spec.Rules, n-1, n)
		}
		return "last rule removed"
	case k == 5:
		svc := pick(w.r, w.names(store.KindService, m.Namespace))
		be := kup.IngressBackend{ServiceName: svc, ServicePort: pick(w.r, []int{80, 443, 8080})}
		if isTCP {
			tcp.Spec.Rules = append(tcp.Spec.Rules, kup.IngressRule{Port: 9300, Backend: be})
		} else {
			udp.Spec.Rules = append(udp.Spec.Rules, kup.UDPIngressRule{Port: 9300, Backend: be})
		}
		return "rule added for " + svc
	case k == 6 && isTCP:
		tcp.Spec.TLS = []kup.IngressTLS{{Hosts: []string{pick(w.r, w.hosts), "s.example.com"},
			SecretName: pick(w.r, w.names(store.KindSecret, m.Namespace))}}
		return "tls set"
	case k == 7:
		return w.setClassAnnotation(m)
	case k == 8:
		return w.setPluginsAnnotation(m)
	case k == 9:
		return w.setAnnFrom(m, map[string][]string{annProtocols: {"tls_passthrough", "tcp,tls", "http"}})
	}
	return w.retime(m, kindOfStream(isTCP))
}

func kindOfStream(tcp bool) store.Kind {
	if tcp {
		return store.KindTCPIngress
	}
	return store.KindUDPIngress
}
